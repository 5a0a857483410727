"""What every asset shares: check specs of one partition, the start of a step, metadata tables."""

import warnings

from dagster import AssetCheckSpec, AssetExecutionContext, AssetKey, MetadataValue, PartitionsDefinition, PreviewWarning

from pipelines.defs.resources import SettingsResource
from pipelines.stages.context import RunContext
from pipelines.telemetry import TRACEPARENT_TAG, configure, continue_trace

def check_spec(partitions: PartitionsDefinition, name: str, asset: str | AssetKey, **kwargs) -> AssetCheckSpec:
    """A check of one partition: its results carry it, so the UI shows which day failed.
    (Dagster 1.13 calls `partitions_def` on a check spec a preview; its warning is not ours to print.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PreviewWarning)
        return AssetCheckSpec(name, asset=asset, partitions_def=partitions, **kwargs)


def start_run(settings: SettingsResource, context: AssetExecutionContext) -> RunContext:
    """The run context of the step's configuration, with the pipeline's telemetry set up; the
    step's stage spans continue the trace of whatever launched the run."""
    run = settings.context()
    configure(run.config.telemetry, run.config.base_dir)
    traceparent = context.run.tags.get(TRACEPARENT_TAG)
    continue_trace({"traceparent": traceparent} if traceparent else {})
    return run


def markdown_counts(counts: dict[str, int], key: str) -> MetadataValue:
    lines = [f"| {key} | count |", "| --- | ---: |"]
    lines += [f"| {name} | {value} |" for name, value in sorted(counts.items())]
    return MetadataValue.md("\n".join(lines))


def raw_key(source: str) -> AssetKey:
    return AssetKey(f"raw_{source}")
