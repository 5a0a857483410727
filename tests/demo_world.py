"""The one demo world the end-to-end tests share: a drop, a configuration over it, and the CLI.

A world is a folder holding the demo drop (`drop/`), `trace2task.yaml` pointing at it, the task
store and raw zone (SQLite in `.trace2task/` unless other URLs are given), the Dagster home
(`.dagster_home/`) and the output (`out/`). `python -m pytest` finds this module through
`pythonpath` in pyproject.toml.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
import yaml

from ingest.demo import generate_drop

PROJECT_ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = PROJECT_ROOT / "tests" / "artifacts"
TRACE2TASK = str(Path(sys.executable).with_name("trace2task"))
"""The installed command, as a person runs it."""
SECRET = "pipeline-test-secret-of-32-bytes-or-more"
RUN_TIMEOUT = 900
PG_ADMIN = dict(host="127.0.0.1", port=5432, dbname="test", user="root", connect_timeout=3)
PG_URL = "postgresql+psycopg2://root@127.0.0.1:5432"

DEMO_CLI_RUN_GROUP = "demo_cli_run"
"""The xdist group of every module that uses the `demo_cli_run` fixture (tests/conftest.py): on one
worker, the demo drop goes through `trace2task run --all` once for all of them."""

DEMO_STAGES_RUN_GROUP = "demo_stages_run"
"""The xdist group of every module that uses the `demo_stages_run` fixture (tests/pipelines/conftest.py):
on one worker, the demo drop goes through the stages once for all of them."""

DEMO_OUTPUT_SHA256 = "31291a57f9c90c95aa0581caa9a8a39cfb045c29dcbea201b0dcda61bd0df205"
"""Every task, seed and the manifest of the default world (40 sessions, 2 days, seed 11) run with
SECRET. A change meant to change the output updates it, and says so in its commit message."""


@dataclass
class World:
    root: Path
    config: Path
    out: Path

    @property
    def drop(self) -> Path:
        return self.root / "drop"

    @property
    def dagster_home(self) -> Path:
        return self.root / ".dagster_home"

    def cli(self, *args: str, secret: str | None = SECRET, env: dict[str, str] | None = None,
            timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess:
        return subprocess.run(
            [TRACE2TASK, *args], cwd=self.root, env=cli_env(secret, env), capture_output=True, text=True, timeout=timeout
        )

    def run_all(self, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return self.cli("run", "--all", "--config", str(self.config), "--workers", "1", *extra, env=env)

    def cli_in_process(self, *args: str, secret: str | None = SECRET, env: dict[str, str] | None = None,
                       stdin: str = "") -> subprocess.CompletedProcess:
        """`cli` without a new interpreter (see `cli_in_process`)."""
        return cli_in_process(args, cwd=self.root, secret=secret, env=env, stdin=stdin)

    def run_all_in_process(self, *extra: str) -> subprocess.CompletedProcess:
        return self.cli_in_process("run", "--all", "--config", str(self.config), "--workers", "1", *extra)

    def popen(self, *args: str) -> subprocess.Popen:
        """The CLI in its own process group, so a hard kill takes its worker processes too."""
        return subprocess.Popen(
            [TRACE2TASK, *args], cwd=self.root, env=cli_env(SECRET), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, start_new_session=True,
        )


def cli_in_process(args: Sequence[str], *, cwd: Path, secret: str | None = SECRET, env: dict[str, str] | None = None,
                   stdin: str = "") -> subprocess.CompletedProcess:
    """The `trace2task` command's entry point (`pipelines.cli.app.main`) called in this process, with the
    environment, working folder, arguments and standard input `World.cli` gives the installed command:
    its exit code and output, without starting Python and importing Dagster and Presidio again (a few
    seconds a call). For what the command does before it launches a Dagster run: arguments,
    configuration, the environment it checks, `scrub`, `ingest check`, `validate`, `review`. The
    end-to-end tests keep the installed command (`World.cli`)."""
    from pipelines.cli.app import main

    out, err, environment = io.StringIO(), io.StringIO(), dict(os.environ)
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("TRACE2TASK_SECRET", raising=False)
        for name, value in cli_env(secret, env).items():
            patch.setenv(name, value)
        patch.chdir(cwd)
        patch.setattr(sys, "argv", [TRACE2TASK, *args])
        patch.setattr(sys, "stdin", io.StringIO(stdin))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
                code = 0
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
    os.environ.clear()  # whatever the command set leaves with it, as a process's environment would
    os.environ.update(environment)
    return subprocess.CompletedProcess([TRACE2TASK, *args], code, out.getvalue(), err.getvalue())


def cli_env(secret: str | None = SECRET, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TRACE2TASK_SECRET"}
    if secret is not None:
        env["TRACE2TASK_SECRET"] = secret
    return {**env, "COLUMNS": "200", **(extra or {})}


def write_drop(folder: Path, *, sessions: int = 40, days: int = 2, seed: int = 11) -> Path:
    drop = folder / "drop"
    generate_drop(drop, sessions=sessions, days=days, seed=seed, start=date(2026, 11, 16))
    return drop


def make_world(
    root: Path, *, drop: Path | None = None, sessions: int = 40, days: int = 2, seed: int = 11,
    store_url: str | None = None, raw_url: str | None = None, state: str | None = None, output: str = "out",
    dagster_yaml: Path | None = None,
) -> World:
    """A world in `root`: a copy of `drop` when given (a test may change it), else a new demo drop."""
    root.mkdir(parents=True, exist_ok=True)
    if drop is None:
        write_drop(root, sessions=sessions, days=days, seed=seed)
    else:
        shutil.copytree(drop, root / "drop")
    config = {
        "drop": "drop",
        "state": {"location": state or "sqlite:///drop/state/shop.db", "mapping": "drop/state/mapping.yaml"},
        "store": {"url": store_url or "sqlite:///.trace2task/store.db", "raw_url": raw_url or "sqlite:///.trace2task/raw.db"},
        "output": output,
        "dagster_home": ".dagster_home",
        "secret": {"env": "TRACE2TASK_SECRET", "file": None},
    }
    path = root / "trace2task.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")  # block style: a test may append a section
    world = World(root=root, config=path, out=root / output)
    if dagster_yaml is not None:
        world.dagster_home.mkdir()
        (world.dagster_home / "dagster.yaml").write_bytes(dagster_yaml.read_bytes())
    return world


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[str]:
    """A new, empty database on the PostgreSQL server at 127.0.0.1:5432 (its SQLAlchemy URL),
    dropped with whatever still holds it open when the block ends. The test is skipped, with the
    reason, when psycopg2 is missing or the server does not answer. (The `postgres_url` fixture of
    tests/conftest.py.)"""
    psycopg2 = pytest.importorskip("psycopg2", reason="psycopg2 is not installed")
    try:
        admin = psycopg2.connect(**PG_ADMIN)
    except psycopg2.OperationalError as exc:
        pytest.skip(f"PostgreSQL at 127.0.0.1:5432 does not answer: {str(exc).strip().splitlines()[0]}")
    admin.autocommit = True
    name = f"t2t_{uuid.uuid4().hex[:12]}"
    try:
        with admin.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE {name}")
        yield f"{PG_URL}/{name}"
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()


def copy_world(world: World, root: Path) -> World:
    """A copy of `world` (drop, configuration, store, Dagster home, output) in `root`, for a test that
    changes it or serves it: the configuration names everything relative to its folder, and the CLI
    writes the Dagster home's launch settings afresh from its dagster.yaml at every launch."""
    shutil.copytree(world.root, root, symlinks=True)
    return World(root=root, config=root / world.config.relative_to(world.root),
                 out=root / world.out.relative_to(world.root))


def ran_world(root: Path, drop: Path, *, env: dict[str, str] | None = None, **options) -> World:
    """A world over a copy of `drop`, every day run through the CLI; a failure shows its output."""
    world = make_world(root, drop=drop, **options)
    result = world.run_all(env=env)
    assert result.returncode == 0, f"trace2task run failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return world


@dataclass
class StagesRun:
    run: object  # pipelines.stages.context.RunContext
    store: object  # pipelines.store.repository.Store
    residues: dict  # day -> that day's residue
    scrub_failures: int
    written: int


def run_stages(config_path: Path, secret: str = SECRET, *, incident_id: str = "", days: list[str] | None = None) -> StagesRun:
    """Every landed day (or `days`) through every stage as plain functions, in the order of the
    asset graph, in this process and without Dagster: the output is byte for byte the CLI's
    (`DEMO_OUTPUT_SHA256`). With `incident_id`, the on-call path as `trace2task incident` runs it:
    the incident's day, its sessions only, under its scope."""
    from pipelines.config import load_config
    from pipelines.stages.assemble import assemble_day
    from pipelines.stages.classify import classify_day, sample_day
    from pipelines.stages.context import RunContext
    from pipelines.stages.draft import draft_day
    from pipelines.stages.freeze import freeze_day
    from pipelines.stages.plan import plan_incident
    from pipelines.stages.preflight import land_everything, landed_days
    from pipelines.stages.residue import residue_day
    from pipelines.stages.scrub import scrub_day
    from pipelines.stages.state import AppState
    from pipelines.stages.validate import validate_day
    from pipelines.store.repository import open_store

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TRACE2TASK_SECRET", secret)
        config = load_config(config_path)
        run, store = RunContext(config), open_store(config)
        state = AppState.open(config.state_location(), config.path(config.state.mapping))
        if incident_id:
            plan = plan_incident(config, incident_id)
            days, only, scope = [plan.day], plan.sessions, incident_id
        else:
            land_everything(store, config)
            days, only, scope = days or landed_days(store), [], "nightly"  # a day may hold only late records: nothing to draft
        stages = StagesRun(run, store, {}, 0, 0)
        for day in days:
            run_id = f"stages-{scope}-{day}" if incident_id else f"stages-{day}"
            assemble_day(store, run, day, run_id=run_id, only=only, scope=scope)
            classify_day(store, run, day, only=only, run_id=run_id)
            sample_day(store, run, day, scope=scope, only=only)
            stages.scrub_failures += scrub_day(store, run, state, day, scope=scope, run_id=run_id).failed
            stages.residues[day] = residue_day(store, state, day, scope=scope)
            freeze_day(store, run, day, scope=scope)
            stages.written += draft_day(store, run, day, scope=scope, run_id=run_id).written
            validate_day(store, run, day, scope=scope, run_id=run_id)
    return stages


def output_digest(out: Path) -> str:
    """sha256 over the output's files (path and bytes), leaving out the run summary (it names folders)."""
    digest = hashlib.sha256()
    for path in sorted(out.rglob("*")):
        if path.is_file() and path.name != "run-summary.json" and not path.name.startswith("."):
            digest.update(path.relative_to(out).as_posix().encode("utf-8") + b"\0" + path.read_bytes())
    return digest.hexdigest()


def output_tree(out: Path) -> dict[str, bytes]:
    """Every task, seed and the manifest, by relative path (a writer's hidden temp files are not output)."""
    files = [out / "manifest.json"] if (out / "manifest.json").exists() else []
    for folder in ("tasks", "seeds"):
        files += [p for p in (out / folder).rglob("*") if p.is_file() and not p.name.startswith(".")]
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(files)}


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def leftover_temp_files(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*.tmp"))


def one_line_error(result: subprocess.CompletedProcess) -> str:
    """The failure as a person sees it: exit 1 or 2, no traceback, every stderr line an error line."""
    assert result.returncode in (1, 2), (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


def first_escalation(drop: Path) -> str:
    first = sorted((drop / "escalations").glob("*.jsonl"))[0]
    return json.loads(first.read_text(encoding="utf-8").splitlines()[0])["id"]


def planted_values(drop: Path) -> list[tuple[str, str]]:
    """The personal values the generator planted, minus lone first/last names (stand-ins share them)."""
    document = json.loads((drop / "planted_pii.json").read_text(encoding="utf-8"))
    return [
        (v["type"], v["value"])
        for v in document["values"]
        if v["type"] not in ("FIRST_NAME", "LAST_NAME") and len(v["value"]) >= 5
    ]


def find_planted(values: list[tuple[str, str]], texts: dict[str, str]) -> dict[str, list[str]]:
    """Where each planted value appears as a whole word: {entity type: [places]} (values never returned)."""
    found: dict[str, list[str]] = {}
    for entity, value in values:
        pattern = re.compile(r"(?<![\w@.])" + re.escape(value) + r"(?![\w@])", re.IGNORECASE)
        for where, text in texts.items():
            if pattern.search(text):
                found.setdefault(entity, []).append(where)
                break
    return found


def landed_assets(config_path: Path) -> list:
    """The pipeline's assets for a configuration after landing its drop, as the CLI makes them:
    the partitions start at the earliest record landed (or the configured start)."""
    from pipelines.config import load_config
    from pipelines.defs.assets import pipeline_assets
    from pipelines.defs.partitions import partitions_for
    from pipelines.stages.preflight import land_everything
    from pipelines.store.repository import open_store

    config = load_config(config_path)
    land_everything(open_store(config), config)
    return pipeline_assets(partitions_for(config))
