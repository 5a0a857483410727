"""OpenTelemetry for the pipeline itself: a span per run and per stage, counters for records.

Attributes carry counts, ids of partitions and stages, never a record's values. The exporter
is chosen in configuration (`telemetry.exporter`: none, console, otlp, file); tests install
an in-memory exporter with `install_provider`.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from opentelemetry import metrics, propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import Status, StatusCode
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

from ingest.errors import UserFacingError

from pipelines.config import TelemetryConfig

NAME = "trace2task"
COUNTERS = ("records_read", "records_quarantined", "entities_replaced", "tasks_written")

_provider: TracerProvider | None = None


class JsonLinesSpanExporter(SpanExporter):
    """Appends each finished span as one JSON line to a file."""

    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)

    def export(self, spans: "list[ReadableSpan]") -> SpanExportResult:
        with self.path.open("a", encoding="utf-8") as fh:
            for span in spans:
                fh.write(span.to_json(indent=None) + "\n")
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


def _exporter(config: TelemetryConfig, base_dir: Path) -> SpanExporter | None:
    if config.exporter == "console":
        return ConsoleSpanExporter()
    if config.exporter == "file":
        path = config.path or Path("out/spans.jsonl")
        return JsonLinesSpanExporter(path if path.is_absolute() else base_dir / path)
    if config.exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter(endpoint=config.endpoint) if config.endpoint else OTLPSpanExporter()
    return None


def install_provider(exporter: SpanExporter | None) -> TracerProvider:
    """Install this process's tracer provider (once; later calls add the exporter)."""
    global _provider
    if _provider is None:
        _provider = TracerProvider(resource=Resource.create({"service.name": NAME}))
        trace.set_tracer_provider(_provider)
        metrics.set_meter_provider(MeterProvider(resource=Resource.create({"service.name": NAME})))
    if exporter is not None:
        _provider.add_span_processor(SimpleSpanProcessor(exporter))
    return _provider


_configured: set[tuple[str, str]] = set()


def configure(config: TelemetryConfig, base_dir: Path) -> None:
    key = (config.exporter, str(config.endpoint or config.path or ""))
    if key in _configured:
        return
    _configured.add(key)
    install_provider(_exporter(config, base_dir))


def _counter(name: str):
    return metrics.get_meter(NAME).create_counter(f"trace2task.{name}")


def count(name: str, value: int, attributes: Mapping[str, Any] | None = None) -> None:
    if value:
        _counter(name).add(value, dict(attributes or {}))


class StageError(UserFacingError):
    """A stage failed. Carries the error's type and where it was raised, never its message,
    which could quote a raw record; the traceback's frames still show the code path."""


TRACEPARENT_TAG = "trace2task/traceparent"
"""The run tag holding the W3C trace context of the span that launched the run (the CLI's `run` span)."""

_run_parent: Context | None = None


def trace_carrier() -> dict[str, str]:
    """The current span's W3C trace context (`traceparent`), for a run started in another process."""
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier


def continue_trace(carrier: Mapping[str, str]) -> None:
    """This process's outermost stage spans become children of the span `carrier` names (the
    CLI's `run` span when the CLI launched the run); an empty carrier starts their own traces."""
    global _run_parent
    _run_parent = propagate.extract(carrier) if carrier else None


def _parent() -> Context | None:
    return None if trace.get_current_span().get_span_context().is_valid else _run_parent


@contextmanager
def stage_span(stage: str, **attributes: Any) -> Iterator[trace.Span]:
    """A span for one stage; attributes must be counts or identifiers, never values.

    An exception inside is re-raised as a `StageError` without its message, so no raw value
    reaches the span, Dagster's event log or the terminal through an error.
    """
    tracer = trace.get_tracer(NAME)
    with tracer.start_as_current_span(f"trace2task.{stage}", context=_parent(), record_exception=False) as span:
        span.set_attribute("trace2task.stage", stage)
        for key, value in attributes.items():
            span.set_attribute(f"trace2task.{key}", value)
        try:
            yield span
        except Exception as exc:
            if isinstance(exc, UserFacingError):  # our own errors, worded without record values
                raise
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"{Path(frame.filename).name}:{frame.lineno}"
            span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__} at {where}"))
            raise StageError(f"{stage} failed: {type(exc).__name__} at {where}") from None


def set_counts(span: trace.Span, counts: Mapping[str, int], prefix: str) -> None:
    for key, value in sorted(counts.items()):
        span.set_attribute(f"trace2task.{prefix}.{key}", int(value))


def spans_as_dicts(spans) -> list[dict[str, Any]]:
    return [json.loads(span.to_json(indent=None)) for span in spans]
