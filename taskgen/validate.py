"""Checks that a drafted task is answerable on its seed, and that pairs are labelled consistently."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from taskgen.domains import Domain
from taskgen.seeds import Seed, find_relative_phrases, parse_timestamp, resolve_relative_dates
from taskgen.task import DraftTask, ValidationIssue


def _clock_issues(task: DraftTask, seed: Seed) -> list[ValidationIssue]:
    phrases = find_relative_phrases(task.prompt)
    if not phrases:
        return []
    if not task.clock or not seed.clock:
        return [ValidationIssue(code="relative_date_without_clock", message=f"{len(phrases)} relative date(s) but no frozen clock")]
    resolvable = len(resolve_relative_dates(task.prompt, parse_timestamp(task.clock)))
    if resolvable < len(phrases):
        return [ValidationIssue(code="vague_relative_date", message=f"{len(phrases) - resolvable} relative date(s) cannot be pinned to a day")]
    return []


def _empty_arguments(expectations) -> list[str]:
    """Checks with an empty argument (`address_equals(address=)`): a check that cannot be judged, never drafted."""
    empty = []
    for item in expectations:
        empty += _empty_arguments(item.any_of)
        if any(value is None or (isinstance(value, str) and not value.strip()) for value in item.args.values()):
            empty.append(item.describe())
    return empty


def validate_task(task: DraftTask, seed: Seed, domain: Domain) -> list[ValidationIssue]:
    """`domain` is the task's domain, loaded once by the caller (its policy is a file read)."""
    issues: list[ValidationIssue] = []
    if task.seed_id != seed.seed_id:
        issues.append(ValidationIssue(code="seed_mismatch", message=f"task names seed {task.seed_id}, got {seed.seed_id}"))
    if task.clock and seed.clock and task.clock != seed.clock:
        issues.append(ValidationIssue(code="clock_mismatch", message="task clock differs from its seed's frozen clock"))
    if not task.expectations and task.boundary != "none":  # a stub negative waits for a person to write it
        issues.append(ValidationIssue(code="no_expectations", message="task has no end-state expectation"))
    if set(task.required_tools) & set(task.forbidden_tools):
        issues.append(ValidationIssue(code="tool_conflict", message="a tool is both required and forbidden"))
    if task.polarity == "negative" and not (task.synthetic and task.boundary_question):
        issues.append(ValidationIssue(code="negative_unmarked", message="a negative must be synthetic and carry a boundary question"))
    issues += [ValidationIssue(code="empty_argument", message=f"check {described} has an empty argument")
               for described in _empty_arguments(task.expectations)]
    issues += _clock_issues(task, seed)
    issues += domain.check_task(task, seed)
    return sorted(issues, key=lambda issue: (issue.code, issue.message))


WORDS_BOUNDARIES: tuple[str, ...] = ("identity_not_verified", "identity_verified", "outside_request")
"""Boundaries a negative may cross by changing what the customer says (who they can show they are, what they ask)."""


def _only_added_to(members: Sequence[DraftTask]) -> bool:
    """A negative whose boundary is in the state (an order on its way, a closed one) may name the order the
    session's words left unnamed: its prompt is the positive's, word for word, with a sentence added."""
    by_polarity = {task.polarity: task.prompt for task in members}
    positive, negative = by_polarity.get("positive"), by_polarity.get("negative")
    return (len(members) == 2 and positive is not None and negative is not None and negative != positive
            and negative.startswith(positive.rstrip() + " "))


def validate_set(tasks: Sequence[DraftTask]) -> list[ValidationIssue]:
    """Every pair: one positive and one negative, same intent, set, split and prompt (unless the
    negative's boundary is crossed in the words: `WORDS_BOUNDARIES`, or its words only add to the positive's:
    `_only_added_to`); rollbacks are regression;
    all tasks of one incident in one split."""
    by_pair: dict[str, list[DraftTask]] = defaultdict(list)
    for task in tasks:
        by_pair[task.pair_id].append(task)
    issues = []
    for pair_id, members in sorted(by_pair.items()):
        polarities = sorted(task.polarity for task in members)
        if polarities != ["negative", "positive"]:
            issues.append(ValidationIssue(code="pair_polarity", message=f"{pair_id} has polarities {polarities}", subject=pair_id))
        # A negative whose boundary is in the customer's words (identity, an extra request) says other words.
        labels = ("intent", "set", "split") if any(task.boundary in WORDS_BOUNDARIES for task in members) else ("intent", "set", "split", "prompt")
        for label in labels:
            if label == "prompt" and _only_added_to(members):
                continue
            if len({getattr(task, label) for task in members}) > 1:
                issues.append(ValidationIssue(code=f"pair_{label}_differs", message=f"{pair_id} members differ in {label}", subject=pair_id))
    splits_of: dict[str, set[str]] = defaultdict(set)
    for task in tasks:
        if task.provenance.incident_id:
            splits_of[task.provenance.incident_id].add(task.split)
    issues += [
        ValidationIssue(code="incident_split_differs", message=f"tasks of incident {task.provenance.incident_id} are in both splits", subject=task.task_id)
        for task in tasks
        if len(splits_of.get(task.provenance.incident_id or "", ())) > 1
    ]
    issues += [
        ValidationIssue(
            code="set_label",
            message=f"{task.task_id} comes from a rollback but is not in the regression set",
            subject=task.task_id,
        )
        for task in tasks
        if task.outcome == "rolled_back" and task.set != "regression"
    ]
    return issues
