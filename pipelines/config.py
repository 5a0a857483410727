"""The one configuration file, `trace2task.yaml`, validated into a typed model at start-up.

Relative paths in the file are relative to the file's own folder. Nothing here reads the
environment at import time: the secret's environment variable is read when asked for.
"""

from __future__ import annotations

import os
import secrets
import stat
from datetime import date
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from ingest.config import IngestConfig
from ingest.errors import UserFacingError
from scrubbers.config import ScrubConfig
from taskgen.config import TaskgenConfig

DEFAULT_CONFIG_FILE = "trace2task.yaml"
CONFIG_FILE_ENV = "TRACE2TASK_CONFIG"
"""Names the configuration file a Dagster code location loads (else DEFAULT_CONFIG_FILE in its
working folder); read when the location loads, never on import. The CLI sets it for its runs."""
EXECUTOR_ENV = "TRACE2TASK_EXECUTOR"
"""Names the executor a Dagster code location runs its jobs' steps on instead of the configured
`executor.name` (with Dagster's default settings); read when the location loads. The CLI sets it
for the runs it launches with `--executor`; unset, the configuration's executor runs them."""


class ConfigError(UserFacingError):
    """A configuration problem, worded for a person: what is wrong and where."""

    exit_code = 2


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StateConfig(_Section):
    location: str = Field(description="SQLAlchemy URL of the app database, or a folder of JSON documents")
    mapping: Path = Field(description="YAML mapping of entity kinds onto tables or files")


class StoreConfig(_Section):
    url: str = Field(default="sqlite:///.trace2task/store.db", description="SQLAlchemy URL of the task store")
    raw_url: str = Field(
        default="sqlite:///.trace2task/raw.db",
        description="SQLAlchemy URL of the raw landing zone (the only place raw values live)",
    )
    raw_retention_days: int = Field(default=30, ge=1)


class SecretConfig(_Section):
    env: str | None = Field(default="TRACE2TASK_SECRET", description="environment variable holding the secret")
    file: Path | None = Field(default=Path(".trace2task/secret"), description="file holding the secret")


class ScheduleConfig(_Section):
    cron: str = "0 2 * * *"
    timezone: str = "UTC"


EXECUTORS = ("in_process", "multiprocess", "celery", "k8s", "celery_k8s")


class ExecutorConfig(_Section):
    name: Literal["in_process", "multiprocess", "celery", "k8s", "celery_k8s"] = Field(
        default="in_process",
        description="how a run's steps execute: in_process (one process), multiprocess (a process per step), "
        "celery (a Celery task per step; needs dagster-celery), k8s (a Kubernetes pod per step; needs dagster-k8s), "
        "celery_k8s (Celery queues, Kubernetes pods; needs dagster-celery-k8s)",
    )
    config: dict[str, Any] = Field(
        default_factory=dict, description="the executor's own settings, as Dagster documents them (e.g. max_concurrent)"
    )


class RunLauncherConfig(_Section):
    module: str = Field(description="the run launcher's module, e.g. dagster_k8s")
    class_: str = Field(alias="class", description="its class, e.g. K8sRunLauncher")
    config: dict[str, Any] = Field(default_factory=dict, description="its settings, as Dagster documents them")


class PartitionsConfig(_Section):
    start: date | None = Field(
        default=None,
        description="the first partition's day; default: the day of the earliest record landed. "
        "Records older than it are quarantined with their file, line and reason",
    )
    by: Literal["day", "hour"] = Field(
        default="day",
        description="day: one run a day; hour: landing and assembly run per hour (a run for each hour "
        "holding landed records, at most 24 a day, spread over workers), then the day's run from "
        "classification on; the tasks are the same",
    )


class TelemetryConfig(_Section):
    exporter: Literal["none", "console", "otlp", "file"] = "none"
    endpoint: str | None = Field(default=None, description="OTLP/HTTP endpoint, for exporter: otlp")
    path: Path | None = Field(default=None, description="JSON Lines file, for exporter: file")


class AppConfig(_Section):
    drop: Path = Field(description="the sources folder: one subfolder per source")
    state: StateConfig
    store: StoreConfig = Field(default_factory=StoreConfig)
    output: Path = Path("out")
    dagster_home: Path = Field(default=Path(".dagster_home"), description="the Dagster instance the runs are recorded in")
    dagster_url: str = Field(default="http://127.0.0.1:3000", description="the Dagster UI (`make ui`) the printed run links open")
    secret: SecretConfig = Field(default_factory=SecretConfig)
    schedule: ScheduleConfig = Field(default_factory=ScheduleConfig)
    partitions: PartitionsConfig = Field(default_factory=PartitionsConfig)
    executor: ExecutorConfig = Field(default_factory=ExecutorConfig)
    run_launcher: RunLauncherConfig | None = Field(
        default=None, description="where the Dagster instance starts runs (written into the Dagster home's dagster.yaml)"
    )
    quarantine_max_share: float = Field(default=0.05, ge=0, le=1)
    telemetry: TelemetryConfig = Field(default_factory=TelemetryConfig)
    ingest: IngestConfig = Field(default_factory=IngestConfig)
    scrub: ScrubConfig = Field(default_factory=ScrubConfig)
    taskgen: TaskgenConfig = Field(default_factory=TaskgenConfig)

    _base_dir: Path = PrivateAttr(default=Path("."))

    @property
    def base_dir(self) -> Path:
        """The folder relative paths start from: the configuration file's own."""
        return self._base_dir

    def path(self, value: Path) -> Path:
        return value if value.is_absolute() else (self.base_dir / value)

    def sqlalchemy_url(self, url: str) -> str:
        """A relative SQLite path in a URL is relative to the config file's folder."""
        prefix = "sqlite:///"
        if url.startswith(prefix) and not url.startswith(prefix + "/") and ":memory:" not in url:
            return prefix + str((self.base_dir / url[len(prefix):]).resolve())
        return url

    def state_location(self) -> str:
        loc = self.state.location
        if "://" in loc:
            return self.sqlalchemy_url(loc)
        return str(self.path(Path(loc)))

    def read_secret(self, *, create: bool = False) -> bytes:
        """The pseudonym secret: the environment variable first, then the file.

        With `create`, a missing file is made with a fresh random secret (mode 0600): the demo
        does this and says so.
        """
        if self.secret.env and os.environ.get(self.secret.env):
            return _long_enough(os.environ[self.secret.env].encode("utf-8"), f"environment variable {self.secret.env}")
        if self.secret.file is not None:
            path = self.path(self.secret.file)
            if path.is_file():
                mode = stat.S_IMODE(path.stat().st_mode)
                if mode & (stat.S_IRWXG | stat.S_IRWXO):
                    raise ConfigError(f"secret file {path} is readable by others (mode {mode:04o}): run `chmod 600 {path}`")
                value = path.read_bytes().strip()
                if value:
                    return _long_enough(value, f"secret file {path}")
            if create:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, stat.S_IRUSR | stat.S_IWUSR)
                with os.fdopen(fd, "w") as fh:
                    fh.write(secrets.token_hex(32) + "\n")
                return path.read_bytes().strip()
        where = " or ".join(
            part
            for part in (
                f"environment variable {self.secret.env}" if self.secret.env else "",
                f"file {self.path(self.secret.file)}" if self.secret.file else "",
            )
            if part
        )
        raise ConfigError(f"no pseudonym secret: set {where or 'secret.env or secret.file'}")


MIN_SECRET_BYTES = 32
MAKE_A_SECRET = "python3 -c 'import secrets; print(secrets.token_hex(32))'"


def _long_enough(value: bytes, where: str) -> bytes:
    """A pseudonym secret short enough to guess would let anyone recompute the stand-ins."""
    if len(value) < MIN_SECRET_BYTES:
        raise ConfigError(
            f"the pseudonym secret in {where} is {len(value)} bytes, at least {MIN_SECRET_BYTES} are needed: "
            f"make one with `{MAKE_A_SECRET}` (into a file of mode 0600, or the variable)"
        )
    return value


def load_config(path: str | Path = DEFAULT_CONFIG_FILE) -> AppConfig:
    """Read and validate the configuration file; a ConfigError names the bad key."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"configuration file not found: {path} (pass --config, or start from the trace2task.yaml in the project's root)")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}: not valid YAML{where}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of settings")
    try:
        config = AppConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise ConfigError(f"{path}: bad setting '{key}': {first['msg']}") from None
    config._base_dir = path.resolve().parent
    for key in ("taxonomy_path", "policy_path"):  # files the configuration names must be there
        named = getattr(config.taskgen, key)
        if named is None:
            continue
        if not config.path(named).is_file():
            raise ConfigError(f"{path}: bad setting 'taskgen.{key}': no such file {config.path(named)}")
        setattr(config.taskgen, key, config.path(named))
    return config


def config_json_schema() -> dict:
    """The JSON Schema of trace2task.yaml (docs/schemas/trace2task-config.schema.json)."""
    schema = AppConfig.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "trace2task configuration"
    return schema
