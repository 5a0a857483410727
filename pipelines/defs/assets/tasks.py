"""Tasks: seeds frozen, draft tasks and their negatives written, the day's set validated."""

from dagster import AssetExecutionContext, AssetsDefinition, MaterializeResult, MetadataValue, PartitionsDefinition, asset

from pipelines.defs import checks
from pipelines.defs.assets.common import check_spec, markdown_counts, start_run
from pipelines.defs.resources import RunScope, SettingsResource, StoreResource
from pipelines.stages.draft import draft_day
from pipelines.stages.freeze import freeze_day
from pipelines.stages.validate import validate_day
from pipelines.telemetry import count, stage_span


def seeds_asset(partitions: PartitionsDefinition) -> AssetsDefinition:
    @asset(partitions_def=partitions, group_name="tasks", deps=["scrubbed_sessions"])
    def seeds(
        context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
    ) -> MaterializeResult:
        """Frozen starting states (state rows and clock), content-addressed and shared."""
        run = start_run(settings, context)
        day = context.partition_key
        with stage_span("freeze", partition=day) as span:
            result = freeze_day(store.get(), run, day, scope=scope.name)
            span.set_attribute("trace2task.seeds", result.seeds)
        return MaterializeResult(metadata={"seeds": result.seeds, "sessions": result.sessions})

    return seeds


def draft_tasks_asset(partitions: PartitionsDefinition) -> AssetsDefinition:
    @asset(
        partitions_def=partitions, group_name="tasks", deps=["seeds"],
        check_specs=[check_spec(partitions, checks.EVERY_POSITIVE_HAS_A_NEGATIVE, "draft_tasks")],
    )
    def draft_tasks(
        context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
    ) -> MaterializeResult:
        """Draft tasks, each with its paired negative stub, written as JSON files for review."""
        run = start_run(settings, context)
        day = context.partition_key
        db = store.get()
        with stage_span("draft", partition=day) as span:
            result = draft_day(db, run, day, scope=scope.name, run_id=context.run.run_id)
            span.set_attribute("trace2task.tasks_written", result.written)
        count("tasks_written", result.written)
        day_rows = checks.day_task_rows(db, day)
        return MaterializeResult(
            metadata={
                # the day's record stays whole whichever run wrote last (the on-call path drafts a few)
                "tasks_in_partition": len(day_rows),
                "scope": scope.name,
                "tasks": result.positives,
                "negative_stubs": result.negatives,
                "written": result.written,
                "withdrawn_stale_drafts": result.withdrawn,
                "by_set": markdown_counts(result.by_set, "set"),
                "task_files": _task_files(result.paths),
                "output": MetadataValue.path(str(run.output)),
            },
            check_results=checks.selected(context, [checks.every_positive_has_a_negative(day_rows)]),
        )

    return draft_tasks


def _task_files(paths: dict[str, str]) -> MetadataValue:
    """Every task this run wrote, with its file under the output folder (ids and paths only)."""
    lines = ["| task | file |", "| --- | --- |"] + [f"| {task_id} | {path} |" for task_id, path in sorted(paths.items())]
    return MetadataValue.md("\n".join(lines))


def task_validation_asset(partitions: PartitionsDefinition) -> AssetsDefinition:
    @asset(
        partitions_def=partitions, group_name="tasks", deps=["draft_tasks"],
        check_specs=[
            check_spec(partitions, checks.TASKS_PASS_SET_VALIDATION, "task_validation"),
            check_spec(partitions, checks.REFERENCE_PASSES_EVERY_TASK, "task_validation"),
        ],
    )
    def task_validation(
        context: AssetExecutionContext, settings: SettingsResource, store: StoreResource, scope: RunScope
    ) -> MaterializeResult:
        """Set validation and the reference / refund-everything / do-nothing health check."""
        run = start_run(settings, context)
        day = context.partition_key
        db = store.get()
        with stage_span("validate", partition=day):
            report = validate_day(db, run, day, scope=scope.name, run_id=context.run.run_id)
        rows = checks.task_rows(db, report.task_ids)  # not the whole day: another run may be drafting it now
        return MaterializeResult(
            metadata={
                "tasks": report.tasks,
                "with_issues": report.with_issues,
                "reference_failures": report.reference_failures,
                "report": MetadataValue.md(report.markdown),
            },
            check_results=checks.selected(
                context, [checks.tasks_pass_set_validation(rows), checks.reference_passes_every_task(rows)]
            ),
        )

    return task_validation
