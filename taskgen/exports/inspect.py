"""A release split as an Inspect AI task folder: `samples.jsonl`, `task.py`, `policy.yaml` and `export.json`.

`inspect eval DIR/task.py --model MODEL` runs it: the domain's tools act on a per-sample copy of
the seed, the domain's end-state grader scores (see `taskgen.exports.inspect_runtime`). The task
module imports trace2task, so it runs where trace2task is installed with the `inspect` extra.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from ingest.models import sha256_hex
from taskgen.domains import Domain
from taskgen.exports.release import ExportError, ReleaseSplit
from taskgen.exports.rubric import rubric_items
from taskgen.output import atomic_write, pretty_json

TASK_MODULE = '''"""trace2task release {version}, {split} split, as an Inspect AI task.

    inspect eval task.py --model MODEL                          # the model is the agent
    inspect eval task.py --model mockllm/model -T behaviour=reference   # the reference behaviour (scores 1)
    inspect eval task.py --model mockllm/model -T behaviour=do_nothing  # the do-nothing behaviour (scores 0)
    inspect eval task.py --model mockllm/model                          # Inspect's mock model (scores 0, offline)
"""

from pathlib import Path

from inspect_ai import Task, task

from taskgen.exports.inspect_runtime import release_task


@task
def trace2task(behaviour: str = "model") -> Task:
    return release_task(Path(__file__).parent, behaviour=behaviour)
'''


def inspect_samples(release: ReleaseSplit) -> list[dict[str, Any]]:
    """One Inspect sample per task: the user's words as input, the task, its seed and rubric in metadata."""
    samples = []
    for task in release.tasks:
        samples.append({
            "id": task.task_id,
            "input": task.prompt,
            "target": [expectation.describe() for expectation in task.expectations],
            "metadata": {
                "release": release.version,
                "split": release.split,
                "set": task.set,
                "polarity": task.polarity,
                "pair_id": task.pair_id,
                "intent": task.intent,
                "boundary": task.boundary,
                "provenance": task.provenance.model_dump(mode="json"),
                "budget": task.budget.model_dump(mode="json"),
                "rubric": rubric_items(task),
                "task": task.model_dump(mode="json"),
                "seed": release.seeds[task.seed_id].model_dump(mode="json"),
            },
        })
    return samples


def export_inspect(release: ReleaseSplit, destination: Path, domain: Domain) -> Path:
    """Write the Inspect task folder; the same release, split and policy always give the same bytes."""
    foreign = sorted({task.domain for task in release.tasks} - {domain.name})
    if foreign:
        raise ExportError(f"release {release.version} holds tasks of domain {', '.join(foreign)}; configured: {domain.name}")
    destination = Path(destination)
    files = {
        "samples.jsonl": "".join(json.dumps(sample, sort_keys=True, ensure_ascii=False) + "\n" for sample in inspect_samples(release)),
        "task.py": TASK_MODULE.format(version=release.version, split=release.split),
        "policy.yaml": yaml.safe_dump(domain.policy.model_dump(mode="json"), sort_keys=True),
    }
    for name, text in files.items():
        atomic_write(destination / name, text)
    summary = {
        "format": "inspect",
        "release": release.version,
        "notes": release.notes,
        "split": release.split,
        "domain": domain.name,
        "counts": release.counts(),
        "files": {name: sha256_hex(text.encode("utf-8")) for name, text in sorted(files.items())},
        "run": "inspect eval task.py --model MODEL [-T behaviour=reference|do_nothing]",
    }
    return atomic_write(destination / "export.json", pretty_json(summary))
