"""OpenTelemetry: a span per stage with counts, and never a raw personal value in a span."""

import json

import pytest
from dagster import DagsterInstance, materialize
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from demo_world import SECRET, landed_assets, planted_values

from pipelines.defs.resources import resources_for
from pipelines.telemetry import install_provider

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("telemetry")]


def test_stage_spans_carry_counts_and_no_personal_values(world, monkeypatch, tmp_path):
    monkeypatch.setenv("TRACE2TASK_SECRET", SECRET)
    exporter = InMemorySpanExporter()
    install_provider(exporter)
    result = materialize(
        landed_assets(world.config),
        resources=resources_for(str(world.config)),
        partition_key="2026-11-16",
        instance=DagsterInstance.ephemeral(),
    )
    assert result.success
    spans = exporter.get_finished_spans()
    stages = {span.attributes.get("trace2task.stage") for span in spans}
    assert stages >= {"ingest", "assemble", "classify", "sample", "scrub", "freeze", "draft", "validate"}
    scrub = next(s for s in spans if s.attributes.get("trace2task.stage") == "scrub")
    assert scrub.attributes["trace2task.scrubbed"] > 0
    assert any(key.startswith("trace2task.entities.") for key in scrub.attributes)
    land = [s for s in spans if s.name == "trace2task.land"]  # the scale benchmark splits landing by these
    assert {s.attributes["trace2task.source"] for s in land} == {"tickets", "traces", "error_logs", "escalations", "deploys"}
    assert all(s.attributes["trace2task.parse_seconds"] >= 0 and s.attributes["trace2task.write_seconds"] >= 0 for s in land)
    dumped = json.dumps([dict(s.attributes) | {"name": s.name} for s in spans], default=str).casefold()
    leaked = sorted({entity for entity, value in planted_values(world.drop) if value.casefold() in dumped})
    assert leaked == []


def test_a_failing_stage_raises_without_the_record_in_its_message():
    from pipelines.telemetry import StageError, stage_span

    with pytest.raises(StageError) as error:
        with stage_span("scrub", partition="2026-11-16"):
            raise ValueError("could not align 'Margaret Oyelaran' with its tokens")
    assert "Oyelaran" not in str(error.value)
    assert "ValueError" in str(error.value) and error.value.__cause__ is None
    assert error.value.__suppress_context__


def test_a_run_has_a_span_that_holds_its_stage_spans(world, monkeypatch, tmp_path):
    """The run is launched into its own process: its stage spans continue the trace of the CLI's
    `run` span (the run's `trace2task/traceparent` tag), both written to the configured file."""
    import yaml

    from pipelines.config import load_config
    from pipelines.cli.runner import run_partition

    monkeypatch.setenv("TRACE2TASK_SECRET", SECRET)
    settings = yaml.safe_load(world.config.read_text())
    settings["telemetry"] = {"exporter": "file", "path": str(tmp_path / "spans.jsonl")}
    config_path = world.root / "telemetry.yaml"
    config_path.write_text(yaml.safe_dump(settings))
    outcome = run_partition(load_config(config_path), config_path, "2026-11-17")
    assert outcome.success, outcome.failures
    spans = [json.loads(line) for line in (tmp_path / "spans.jsonl").read_text().splitlines()]
    run = next(s for s in spans if s["name"] == "trace2task.run")
    assert run["attributes"]["trace2task.partition"] == "2026-11-17" and run["attributes"]["trace2task.success"]
    children = {s["attributes"].get("trace2task.stage") for s in spans if s["parent_id"] == run["context"]["span_id"]}
    assert {"ingest", "assemble", "scrub", "draft", "validate"} <= children
    assert {s["context"]["trace_id"] for s in spans if s["attributes"].get("trace2task.stage") == "draft"} == {
        run["context"]["trace_id"]
    }
