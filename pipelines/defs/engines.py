"""The executor and the run launcher that trace2task.yaml names: where a run's steps execute and
where the Dagster instance starts runs, chosen in configuration, never by editing the definitions.

- `executor` (a run's steps): `in_process` and `multiprocess` are Dagster's own; `celery`, `k8s`
  and `celery_k8s` are Dagster's integration packages (`pip install 'trace2task[celery]'`,
  `'trace2task[k8s]'`, `'trace2task[celery-k8s]'`), imported only when named. Its `config` is the
  executor's own settings as Dagster documents them.
- `run_launcher` (whole runs): an instance setting, so it is written into the Dagster home's
  `dagster.yaml` when a command opens the instance (`pipelines.stages.dagster_home`); it applies to runs the UI, the schedule, the
  sensor, `dagster-daemon` and the CLI (through `pipelines.defs.launch`) start.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pipelines.config import ConfigError, ExecutorConfig

if TYPE_CHECKING:
    from dagster import ExecutorDefinition

STEP_EXECUTORS = {
    # name in trace2task.yaml: (module, executor definition, the package that provides it, the extra)
    "celery": ("dagster_celery", "celery_executor", "dagster-celery", "celery"),
    "k8s": ("dagster_k8s", "k8s_job_executor", "dagster-k8s", "k8s"),
    "celery_k8s": ("dagster_celery_k8s", "celery_k8s_job_executor", "dagster-celery-k8s", "celery-k8s"),
}


def executor_for(settings: ExecutorConfig, override: str = "") -> ExecutorDefinition:
    """The executor of the configuration (or `override`, a command's --executor, with Dagster's
    defaults), configured with its settings. A missing integration package is one line naming it.
    (Dagster is imported here: the CLI checks the configuration before it starts its runs.)"""
    import dagster as dg

    name = override or settings.name
    if name == "in_process":
        executor = dg.in_process_executor
    elif name == "multiprocess":
        executor = dg.multiprocess_executor
    elif name in STEP_EXECUTORS:
        module, attribute, package, extra = STEP_EXECUTORS[name]
        try:
            executor = getattr(importlib.import_module(module), attribute)
        except ImportError:
            raise ConfigError(
                f"executor {name!r} needs the {package} package: pip install 'trace2task[{extra}]' "
                f"(the release matching dagster {dg.__version__})"
            ) from None
    else:
        raise ConfigError(f"unknown executor {name!r}: use one of in_process, multiprocess, {', '.join(STEP_EXECUTORS)}")
    if override or not settings.config:
        return executor
    configured = executor.configured(settings.config, name=executor.name)
    _check_settings(configured, name)
    return configured


def _check_settings(executor: ExecutorDefinition, name: str) -> None:
    """Dagster checks an executor's settings when a run starts; this checks them when the
    definitions load, so a typo is one line naming the setting, not a failed run."""
    import dagster as dg

    @dg.op
    def nothing() -> None: ...

    @dg.job(name="executor_settings_probe", executor_def=executor)
    def probe() -> None:
        nothing()

    try:
        dg.validate_run_config(probe, {})
    except dg.DagsterInvalidConfigError as exc:
        reasons = "; ".join(error.message for error in exc.errors) or str(exc).splitlines()[0]
        raise ConfigError(f"bad setting 'executor.config' for executor {name!r}: {reasons}") from None
