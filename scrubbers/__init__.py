"""Scrub personal data from sessions and state: Presidio detection, Faker stand-ins, leak gate.

The names below load on first use, so that importing `scrubbers.config` alone does not load
Presidio and spaCy.
"""

from importlib import import_module

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


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'scrubbers' has no attribute {name!r}")
