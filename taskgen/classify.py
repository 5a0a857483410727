"""Intent from words and tool calls, outcome from signals, and a near-duplicate signature."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from ingest.models import Session, sha256_hex

OUTCOMES: tuple[str, ...] = ("rolled_back", "escalated", "errored", "failed", "resolved")
"""Outcomes in precedence order: the first that applies wins."""

_TOOL_WEIGHT = 3
_PHRASE_WEIGHT = 2
_KEYWORD_WEIGHT = 1


class IntentRule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    keywords: list[str] = Field(default_factory=list)
    phrases: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list, description="tool names whose call implies the intent")


class Taxonomy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intents: dict[str, IntentRule]
    fallback_intent: str = "other"
    complaint_tags: list[str] = Field(default_factory=list)
    negative_ticket_statuses: list[str] = Field(default_factory=list)

    @classmethod
    def from_yaml(cls, path: Path) -> Taxonomy:
        return cls.model_validate(yaml.safe_load(Path(path).read_text(encoding="utf-8")))

    @property
    def intent_names(self) -> list[str]:
        return list(self.intents)


class Classification(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intent: str
    outcome: str
    evidence: list[str] = Field(description="rule names, taxonomy keywords, tool names, signal ids; never user text")
    signature: str = Field(description="failure signature: near-duplicates share it")


def _contains_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(word.lower())}(?![a-z0-9])", text) is not None


def _classify_intent(session: Session, taxonomy: Taxonomy) -> tuple[str, list[str]]:
    texts = [turn.text for turn in session.turns if turn.role == "user"]
    texts += [ticket.subject for ticket in session.signals.tickets if ticket.subject]
    text = "\n".join(texts).lower()
    called = {call.name for call in session.tool_calls}
    best_intent, best_score, best_evidence = taxonomy.fallback_intent, 0, ["rule:fallback"]
    for intent, rule in taxonomy.intents.items():
        evidence = [f"tool:{tool}" for tool in rule.tools if tool in called]
        evidence += [f"phrase:{phrase}" for phrase in rule.phrases if _contains_word(text, phrase)]
        evidence += [f"keyword:{word}" for word in rule.keywords if _contains_word(text, word)]
        score = sum(
            _TOOL_WEIGHT if item.startswith("tool:") else _PHRASE_WEIGHT if item.startswith("phrase:") else _KEYWORD_WEIGHT
            for item in evidence
        )
        if score > best_score:
            best_intent, best_score, best_evidence = intent, score, evidence
    return best_intent, best_evidence


def _classify_outcome(session: Session, taxonomy: Taxonomy) -> tuple[str, list[str], str]:
    """Returns (outcome, evidence, signature detail)."""
    signals = session.signals
    if signals.deploys:
        deploys = sorted(signals.deploys, key=lambda deploy: deploy.id)
        return (
            "rolled_back",
            [f"deploy:{deploy.id}:{deploy.kind}" for deploy in deploys],
            ",".join(deploy.id for deploy in deploys),
        )
    if signals.escalations:
        escalations = sorted(signals.escalations, key=lambda escalation: escalation.id)
        categories = sorted({reason_category(escalation.reason) for escalation in escalations})
        return "escalated", [f"escalation:{escalation.id}" for escalation in escalations], ",".join(categories)
    failed_calls = [call for call in session.tool_calls if call.status == "error"]
    if signals.errors or signals.span_errors or failed_calls:
        evidence = []
        if signals.errors:
            evidence.append(f"error_logs:{len(signals.errors)}")
        if signals.span_errors:
            evidence.append(f"span_errors:{signals.span_errors}")
        if failed_calls:
            evidence.append(f"failed_tool_calls:{len(failed_calls)}")
        templates = sorted({error.template or reason_category(error.message) for error in signals.errors})
        templates += sorted({f"tool:{call.name}" for call in failed_calls})
        return "errored", evidence, ",".join(templates)
    complaint_tags = {tag.lower() for tag in taxonomy.complaint_tags}
    negative_statuses = {status.lower() for status in taxonomy.negative_ticket_statuses}
    for ticket in sorted(signals.tickets, key=lambda ticket: ticket.id):
        if (ticket.status or "").lower() in negative_statuses:
            return "failed", [f"ticket:{ticket.id}:status"], f"status:{ticket.status.lower()}"
        tags = sorted(complaint_tags & {tag.lower() for tag in ticket.tags})
        if tags:
            return "failed", [f"ticket:{ticket.id}:tag:{tags[0]}"], f"tag:{tags[0]}"
    tools = sorted({call.name for call in session.tool_calls})
    return "resolved", ["rule:no_failure_signal"], ",".join(tools)


def reason_category(text: str) -> str:
    """A coarse category for free text written by the agent/system: lowercase words, ids and numbers dropped."""
    words = re.findall(r"[a-z]+", re.sub(r"\S*\d\S*", " ", text.lower()))
    return " ".join(words[:6])


def classify(session: Session, taxonomy: Taxonomy) -> Classification:
    intent, intent_evidence = _classify_intent(session, taxonomy)
    outcome, outcome_evidence, detail = _classify_outcome(session, taxonomy)
    signature = f"{intent}:{outcome}:{sha256_hex(detail)[:12]}"
    return Classification(intent=intent, outcome=outcome, evidence=intent_evidence + outcome_evidence, signature=signature)
