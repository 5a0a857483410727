"""The intent taxonomy: intents with their keyword rules and labelled examples, how requests are read
per language, and the outcome phrases and windows classification uses (`taxonomy.yaml`)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from taskgen.requests import RequestLanguage


class IntentRule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    keywords: list[str] = Field(default_factory=list)
    phrases: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list, description="tool names whose call implies the intent")
    definition: str = Field(default="", description="what the intent covers, in words a reviewer judges a label by")


class Taxonomy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intents: dict[str, IntentRule]
    fallback_intent: str = "other"
    complaint_tags: list[str] = Field(default_factory=list)
    negative_ticket_statuses: list[str] = Field(default_factory=list)
    complaint_language: dict[str, list[str]] = Field(
        default_factory=dict,
        description="language -> phrases by which a customer says the request was not done (matched on whole words)",
    )
    followup_examples: dict[str, list[str]] = Field(
        default_factory=dict,
        description="contradicts / confirms -> labelled follow-ups after a claimed success; by meaning the nearest "
                    "(taskgen.followups): none, complaint phrases alone decide",
    )
    followup_cues: dict[str, dict[str, list[str]]] = Field(
        default_factory=dict,
        description="contradicts / confirms -> language -> cue words (negations, 'again'; thanks) moving a follow-up's "
                    "reading by meaning that way",
    )
    followup_confidence: float = Field(
        default=0.8, ge=0.0, le=1.0,
        description="a follow-up's meaning decides (contradicts or confirms the claim) only with at least this confidence",
    )
    success_claims: dict[str, list[str]] = Field(
        default_factory=dict, description="language -> phrases by which the agent says the request is done"
    )
    later_contact_window_hours: float = Field(
        default=72.0, ge=0.0, description="how long after a session a contact about the same order still counts"
    )
    examples: dict[str, list[str]] = Field(
        default_factory=dict, description="intent -> labelled requests; intent by meaning is the nearest (none: keywords only)"
    )
    intent_confidence_threshold: float = Field(
        default=0.8, ge=0.0, le=1.0, description="below this the intent is uncertain and the task gets a review question"
    )
    intent_min_margin: float = Field(
        default=0.0, ge=0.0,
        description="the intent is uncertain when its score is less than this ahead of the runner-up's (intent by meaning)",
    )
    request_confidence: float = Field(
        default=0.9, ge=0.0, le=1.0,
        description="a sentence of the request whose own intent confidence reaches this asks for that intent; "
                    "two action intents asked (or carried out by the agent's tools) make the session's intent uncertain",
    )
    meaning_disagrees_margin: float = Field(
        default=0.0, ge=0.0,
        description="the intent is uncertain (meaning_disagrees) when the nearest labelled example of the primary request "
                    "is of another intent (the keywords or the agent's calls moved the label) and the label is less than "
                    "this ahead of the runner-up, whatever its confidence (0: never)",
    )
    action_intents: list[str] = Field(
        default_factory=list, description="the intents that ask for a change (none listed: every intent but the fallback)"
    )
    read_only_tool_prefixes: list[str] = Field(
        default_factory=list, description="a called tool whose name starts with one of these says nothing of the intent"
    )
    request_language: dict[str, RequestLanguage] = Field(
        default_factory=dict,
        description="language -> how the customer's words split into clauses and which are boilerplate, fallbacks "
                    "or negated (taskgen.requests); none: every sentence is a request",
    )
    consequences: dict[str, list[str]] = Field(
        default_factory=dict,
        description="intent -> the intents it follows from: asked after one of them it is a consequence, not a request",
    )
    done_through: dict[str, list[str]] = Field(
        default_factory=dict,
        description="intent -> action intents whose calls carry it out: 'refund' done through a return is no text_tool_conflict",
    )
    refinements: dict[str, list[str]] = Field(
        default_factory=dict,
        description="intent -> intents that, meant (not named by a keyword) by the next clause of the same sentence, say "
                    "what the request is: 'return the luggage and get the same one in red' is an exchange",
    )

    @model_validator(mode="after")
    def _action_intents_known(self) -> Taxonomy:
        unknown = sorted(set(self.action_intents) - set(self.intents))
        if unknown:
            raise ValueError(f"action_intents names intents the taxonomy does not have: {', '.join(unknown)}")
        return self

    @classmethod
    def from_yaml(cls, path: Path) -> Taxonomy:
        return cls.model_validate(yaml.safe_load(Path(path).read_text(encoding="utf-8")))

    @property
    def intent_names(self) -> list[str]:
        return list(self.intents)

    @property
    def action_tools(self) -> set[str]:
        """Tools whose successful call does what an intent asks: calling one claims success."""
        return {tool for rule in self.intents.values() for tool in rule.tools}

    @property
    def later_contact_window(self) -> timedelta:
        return timedelta(hours=self.later_contact_window_hours)
