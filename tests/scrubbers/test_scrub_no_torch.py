"""Scrubbing, ingest and the pipeline's definitions do not load PyTorch or Transformers (issue 18: every
step process that loaded them made the process tree peak at about 2.3 GB); intent by meaning still can."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("torch", "transformers", "sentence_transformers")


def _loaded_after(statement: str) -> list[str]:
    probe = f"{statement}; import sys; print(','.join(name for name in {HEAVY!r} if name in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=600, check=True)
    return [name for name in done.stdout.strip().split(",") if name]


@pytest.mark.parametrize("statement", [
    "import ingest.assemble, ingest.otlp",
    "import scrubbers.engine, scrubbers.nlp, scrubbers.scrubber, scrubbers.leakgate",
    "import pipelines.defs.definitions, pipelines.stages.scrub",
])
def test_the_scrub_and_ingest_path_imports_no_torch(statement):
    assert _loaded_after(statement) == []


def test_the_scrubber_runs_without_torch_and_the_encoder_still_loads_after_it():
    statement = ("import scrubbers.engine, thinc.compat; assert not thinc.compat.has_torch; "
                 "from taskgen import meaning; assert meaning.encoder().encode(['where is my order']).shape == (1, 384)")
    if not __import__("taskgen.meaning", fromlist=["available"]).available():
        pytest.skip("the meaning model is not installed")
    assert _loaded_after(statement) == ["torch", "transformers", "sentence_transformers"]
