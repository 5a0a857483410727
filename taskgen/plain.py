"""Review questions in a reviewer's words: the classifier's evidence tags and the incident's resolution source, which
name pipeline internals ('rule:primary_request:1', 'resolved:agent_path'), said as what they mean (fifth cold review of
tau2 drafts, #12 presentation). The tags themselves stay on the classification for tools to read."""

from __future__ import annotations

_CLAUSE = {
    "primary_request": "clause {n} is the main request", "fallback_clause": "clause {n} is a fallback",
    "fallback_request": "clause {n} is a fallback", "conditional_clause": "clause {n} is asked under a condition",
    "skipped_request": "clause {n} asks for something else too", "later_ask": "clause {n} is asked later",
    "ask_order": "clause {n} was asked out of order",
}
_RULE = {"intent_from_tools": "the agent's calls decided it", "tie_broken_by_tools": "a tie broken by the agent's calls",
         "fallback": "no request read, the taxonomy's default"}


def _tag(tag: str) -> str | None:
    kind, _, rest = tag.partition(":")
    if kind == "meaning":
        return f"the nearest labelled example reads it as {rest.split(':')[0]}"
    if kind == "tool":
        return f"the agent called {rest}"
    if kind == "keyword":
        return f"the keyword '{rest}'"
    if kind == "rule":
        name, _, number = rest.partition(":")
        if name in ("boilerplate_clause", "context_clause"):
            return None  # greetings and context: nothing a reviewer weighs
        if name in _CLAUSE and number.isdigit():
            return _CLAUSE[name].format(n=int(number) + 1)
        if name == "negated_intent":
            return f"the words refuse {number}"
        return _RULE.get(name, name.replace("_", " "))
    return tag


def plain_evidence(evidence: list[str]) -> str:
    """What points to an intent, in words; 'nothing' when no tag says anything."""
    said = list(dict.fromkeys(text for tag in evidence if (text := _tag(tag))))
    return "; ".join(said) or "nothing"


def plain_source(source: str) -> str:
    """Where an incident's resolution was read ('escalation:esc-2:resolution' -> 'the resolution of escalation esc-2')."""
    head, _, rest = source.partition(":")
    if rest.endswith(":reason") and head == "deploy":
        return f"the reason of deploy {rest.removesuffix(':reason')}"
    if rest.endswith(":resolution") and head == "escalation":
        return f"the resolution of escalation {rest.removesuffix(':resolution')}"
    return {"no_usable_reason": "a rollback whose reason names no action", "no_resolution": "an escalation with no resolution written",
            "agent_path": "the agent's own calls, the session taken as resolved"}.get(
        rest, f"the agent's own calls, not trusted in a session {head.replace('_', ' ')}" if rest == "agent_path_untrusted" else source)
