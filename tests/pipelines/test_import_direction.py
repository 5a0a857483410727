"""Imports go down the layers, never back up: a walk from the configuration to where the secret and
the domain are used (`pipelines.config` → `pipelines.stages.context.RunContext` → the stages →
`scrubbers` / `taskgen`) never climbs to the Dagster layer or the command line that called it.

Read with `ast` from every module of the packages (imports inside functions count too)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LAYERS = {
    "ingest": 0,
    "scrubbers": 1, "taskgen": 1,  # peers: neither imports the other
    "pipelines.config": 2,
    "pipelines.store": 3, "pipelines.telemetry": 3,
    "pipelines.stages": 4,
    "pipelines.defs": 5,
    "pipelines.cli": 6,
    "pipelines.__main__": 7,
}
"""Each part of the code and its height: a module imports its own part or a lower one."""

ALLOWED_UPWARD = {
    ("ingest.demo.values", "scrubbers"): "the demo drop's generator (not a reader) writes cards and IBANs with "
                                         "the check digits of scrubbers.shapes, which the leak gate checks",
}


def _part(module: str) -> str | None:
    parts = module.split(".")
    for length in (2, 1):
        if ".".join(parts[:length]) in LAYERS:
            return ".".join(parts[:length])
    return None


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, module: str) -> set[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return names


def upward_imports(root: Path = ROOT) -> list[str]:
    """'<module> imports <part>' for every import of a part at the module's height or above."""
    found = set()
    for top in ("ingest", "scrubbers", "taskgen", "pipelines"):
        for path in (root / top).rglob("*.py"):
            module = _module_name(path, root)
            own = _part(module)
            for target in {_part(name) for name in _imports(path, module)} - {None, own}:
                if own is not None and LAYERS[target] >= LAYERS[own] and (module, target) not in ALLOWED_UPWARD:
                    found.add(f"{module} imports {target}")
    return sorted(found)


def test_every_import_goes_down_the_layers():
    assert upward_imports() == []


def test_the_check_sees_a_stage_importing_the_dagster_layer_or_the_cli(tmp_path):
    """The check can fail: a copy of the tree where a stage reaches up to defs, and the domain's
    library reaches up to the pipeline's configuration."""
    (tmp_path / "pipelines" / "stages").mkdir(parents=True)
    (tmp_path / "taskgen").mkdir()
    (tmp_path / "ingest").mkdir()
    (tmp_path / "scrubbers").mkdir()
    (tmp_path / "pipelines" / "stages" / "scrub.py").write_text(
        "def scrub_day():\n    from pipelines.defs.resources import SettingsResource\n    from pipelines.cli import app\n"
    )
    (tmp_path / "taskgen" / "domain.py").write_text("from pipelines.config import AppConfig\nfrom ingest.models import Session\n")
    (tmp_path / "scrubbers" / "x.py").write_text("from taskgen.task import DraftTask\n")
    assert upward_imports(tmp_path) == [
        "pipelines.stages.scrub imports pipelines.cli",
        "pipelines.stages.scrub imports pipelines.defs",
        "scrubbers.x imports taskgen",
        "taskgen.domain imports pipelines.config",
    ]
