"""The draft task format (one JSON file per task; schema in docs/schemas/task.schema.json)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

TaskStatus = Literal["draft", "approved", "rejected", "retired"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Expectation(_Model):
    """One end-state assertion, e.g. refund_exists(order_id, amount_cents); `any_of` is an either-or group."""

    check: str = Field(description="a check the domain's grader knows, or 'any_of'")
    args: dict[str, str | int] = Field(default_factory=dict)
    any_of: list[Expectation] = Field(default_factory=list)

    def describe(self) -> str:
        if self.check == "any_of":
            return " OR ".join(option.describe() for option in self.any_of)
        arguments = ", ".join(f"{key}={value}" for key, value in sorted(self.args.items()))
        return f"{self.check}({arguments})"


class Allowance(_Model):
    """A change the task allows but does not require ("may change, not required"): one field of one row, or,
    with no field, new rows of a kind for one order. Never a check: the grader's 'nothing else changed' reads it."""

    kind: str = Field(description="the row's kind (order, customer) or, for new rows, their kind (refund)")
    row_id: str = Field(description="the row's id; for new rows, the order they belong to")
    field: str | None = Field(default=None, description="the field that may change; None: new rows of `kind` for order `row_id`")

    def describe(self) -> str:
        return f"{self.kind} {self.row_id}: {self.field}" if self.field else f"new {self.kind} rows of order {self.row_id}"


class ForbiddenCall(_Model):
    """A call the task forbids on one entity, not the tool everywhere: `tool` called with these argument values (the
    order it acts on). A check: a trial that attempts it fails, whatever the tool answers (it may refuse the call)."""

    tool: str
    args: dict[str, str | int] = Field(default_factory=dict, description="argument values that make a call of `tool` the forbidden one")

    def describe(self) -> str:
        arguments = ", ".join(f"{key}={value}" for key, value in sorted(self.args.items()))
        return f"{self.tool}({arguments})"


class Budget(_Model):
    turns: int
    tokens: int
    latency_ms: int


class TaskProvenance(_Model):
    source_record_ids: list[str] = Field(default_factory=list, description="external ids of the source records")
    session_ids: list[str] = Field(description="the drafted session and every near-duplicate it stands for")
    incident_id: str | None = None
    trace_ids: list[str] = Field(default_factory=list)


class IncidentCall(_Model):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    status: Literal["ok", "error"] = "ok"


class IncidentBehaviour(_Model):
    """What the agent did in the (scrubbed) incident session: its tool calls in order and its last reply.

    The health check replays it on the positive's seed: a failed, errored or rolled-back incident must fail.
    """

    calls: list[IncidentCall] = Field(default_factory=list)
    reply: str | None = None
    usage: Budget | None = Field(default=None, description="the incident agent's own turns, tokens and model and tool time")


class ReviewRecord(_Model):
    """One reviewer's verdict, kept for good: a later verdict is added beside it, never over it."""

    status: TaskStatus
    reason: str | None = None
    reviewer: str | None = None
    at: str | None = Field(default=None, description="ISO-8601 time the reviewer acted")
    version: int | None = Field(default=None, description="the task version the reviewer saw")
    drafted_sha256: str | None = Field(default=None, description="the drafted content the reviewer saw")
    forced: list[str] = Field(
        default_factory=list, description="what the reviewer approved over with --force (validation issue codes, open questions)"
    )


EditableField = Literal["expectations", "required_tools", "forbidden_tools", "answer"]


class ReviewEdit(_Model):
    """A reviewer's own content: it wins over every later re-draft of the field it sets."""

    field: EditableField
    value: list[Expectation] | list[str] | str
    question: str | None = Field(default=None, description="for an answer: the review question it answers")
    drafted: list[Expectation] | list[str] | None = Field(
        default=None, description="the drafted value the reviewer replaced (a re-draft changing it is shown as a change)"
    )
    reviewer: str
    at: str | None = None


class FieldChange(_Model):
    """A drafted field that changed after the task was reviewed: what the reviewer saw, what it is now."""

    field: str
    before: object = None
    after: object = None


class DraftTask(_Model):
    task_id: str
    version: int = 1
    status: TaskStatus = "draft"
    set: Literal["regression", "capability"]
    split: Literal["dev", "heldout"]
    polarity: Literal["positive", "negative"]
    pair_id: str
    domain: str
    intent: str
    outcome: str
    prompt: str = Field(description="the user's own (scrubbed) words")
    actor: dict[str, str] = Field(default_factory=dict, description="who is asking, e.g. customer_id")
    target: dict[str, str] = Field(
        default_factory=dict, description="the entity the expectations are about (e.g. order_id), from the customer's words or the agent's calls"
    )
    seed_id: str
    clock: str
    seed_uncertain: list[str] = Field(
        default_factory=list, description="seed rows whose values as of the clock could not be told, and why"
    )
    expectations: list[Expectation]
    expectations_status: Literal["draft", "confirmed"] = "draft"
    required_tools: list[str] = Field(default_factory=list)
    forbidden_tools: list[str] = Field(default_factory=list)
    forbidden_calls: list[ForbiddenCall] = Field(
        default_factory=list, description="calls forbidden on one entity (a tool the request's other orders may need, never on "
        "this order): a check of the tool rules, failed by an attempt even where the tool refuses it"
    )
    may_change: list[Allowance] = Field(
        default_factory=list, description="changes allowed but not required (a write the customer asks for only under a "
        "condition, a field the agent may write): read by 'nothing else changed', never a check"
    )
    rubric: list[str] = Field(
        default_factory=list, description="what code cannot judge about the reply: items for a judge (a model or a person), never graded in code"
    )
    budget: Budget
    provenance: TaskProvenance
    review_questions: list[str] = Field(default_factory=list)
    incident: IncidentBehaviour | None = Field(default=None, description="positives: the incident's own behaviour, replayed by the health check")
    synthetic: bool = False
    boundary: str | None = Field(default=None, description="negatives: the policy boundary the seed crosses")
    boundary_question: str | None = None
    drafted_sha256: str | None = Field(default=None, description="sha256 of the drafted content; `version` goes up when it changes")
    reviews: list[ReviewRecord] = Field(default_factory=list, description="every verdict, oldest first; `status` is the latest")
    edits: list[ReviewEdit] = Field(default_factory=list, description="reviewers' expectations, tool rules and answers")
    changed_since_review: list[FieldChange] = Field(
        default_factory=list, description="drafted fields changed since the last verdict; a release refuses such a task"
    )

    @model_serializer(mode="wrap")
    def _without_empty_forbidden_calls(self, handler: Any) -> dict[str, Any]:
        """No `forbidden_calls` key when there are none: task files written before the field existed stay byte for byte."""
        data = handler(self)
        if isinstance(data, dict) and not data.get("forbidden_calls"):
            data.pop("forbidden_calls", None)
        return data

    @model_validator(mode="before")
    @classmethod
    def _single_review_block(cls, data: object) -> object:
        """Files written before the review history held one `review` block: it is the first verdict."""
        if isinstance(data, dict) and "review" in data:
            data = dict(data)
            block = data.pop("review")
            if block and not data.get("reviews"):
                data["reviews"] = [block]
        return data


class ValidationIssue(_Model):
    """A problem with a task; the message names ids and kinds, never customer text."""

    code: str
    message: str
    subject: str | None = Field(default=None, description="the task or pair id a set-level issue is about")


class Verdict(_Model):
    """A grader's judgement of one trial: passed, and every unmet expectation or tool rule."""

    passed: bool
    reasons: list[str] = Field(default_factory=list)
    failed_checks: list[str] = Field(default_factory=list, description="end_state, tools, nothing_else_changed, budget")


class AgentView(_Model):
    """What an agent is given: the request and who asks. Never the polarity or the expectations."""

    prompt: str
    intent: str
    actor: dict[str, str] = Field(default_factory=dict)
    clock: str
