"""Scrub personal data from sessions and state: Presidio detection, Faker stand-ins, leak gate.

The names below load on first use, so that importing `scrubbers.config` alone does not load
Presidio and spaCy.

Scrubbing never needs PyTorch or Hugging Face Transformers, but spaCy's thinc imports torch and
Presidio imports transformers whenever they are installed (they are: intent by meaning,
`taskgen.meaning`, needs them), each only to offer optional models the scrubber does not use
(en_core_web_sm runs on numpy). `_OptionalTorchRefused` refuses those two imports to thinc and
Presidio alone, so a process that scrubs, or merely loads the pipeline's definitions, does not load
torch (about 2 s and 300 MB a process); anything else may still import them.
"""

import sys
from importlib import import_module
from importlib.abc import MetaPathFinder

_EXPORTS = {
    "ConsistencyMap": "scrubbers.consistency",
    "LeakVerdict": "scrubbers.leakgate",
    "Pseudonymizer": "scrubbers.pseudonyms",
    "ScrubConfig": "scrubbers.config",
    "ScrubPathResult": "scrubbers.paths",
    "ScrubReport": "scrubbers.scrubber",
    "ScrubResult": "scrubbers.scrubber",
    "Scrubber": "scrubbers.scrubber",
    "check_leaks": "scrubbers.leakgate",
    "scrub_path": "scrubbers.paths",
}

__all__ = sorted(_EXPORTS)


class _OptionalTorchRefused(MetaPathFinder):
    """Refuses `torch` and `transformers` (not yet imported) to thinc's `compat` and to Presidio, which
    import them only to offer what they can do with them and go on without them (`except ImportError`)."""

    REFUSED = ("torch", "transformers")
    IMPORTERS = ("thinc.compat", "presidio_analyzer")

    def find_spec(self, name, path=None, target=None):  # noqa: ARG002 (MetaPathFinder's signature)
        if name.partition(".")[0] not in self.REFUSED:
            return None
        frame = sys._getframe(1)
        while frame is not None:
            importer = frame.f_globals.get("__name__") or ""
            if importer == self.IMPORTERS[0] or importer.partition(".")[0] == self.IMPORTERS[1]:
                raise ModuleNotFoundError(f"{name} is left out of scrubbing (scrubbers/__init__.py)", name=name)
            frame = frame.f_back
        return None


if not any(isinstance(finder, _OptionalTorchRefused) for finder in sys.meta_path):
    sys.meta_path.insert(0, _OptionalTorchRefused())


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'scrubbers' has no attribute {name!r}")
