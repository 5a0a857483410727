"""Every place an instrumentation puts a model call's messages and tool calls, one rule a test.

The live producers in tests/conformance cover what today's packages emit; these cover the
shapes none of them emitted in our runs (span events, the older flattened names, LangChain's
message_to_dict form, a Python repr with text) and the joining rules on their own.
"""

from __future__ import annotations

import json
from typing import Any

import ingest_builders as b
from ingest.assemble import assemble_sessions
from ingest.config import IngestConfig
from ingest.messages import message_list, messages_of_span
from ingest.models import QuarantinedRecord, RawRecord, Session
from ingest.readers import read_file

T0, T1, T2, T3 = "2026-11-20T10:00:00Z", "2026-11-20T10:00:01Z", "2026-11-20T10:00:02Z", "2026-11-20T10:00:03Z"


def session_of(tmp_path, *lines: str, config: IngestConfig | None = None) -> list[Session]:
    path = b.write(tmp_path / "traces" / "t.jsonl", "".join(line + "\n" for line in lines))
    items = [item for item, _ in read_file("traces", path, tmp_path, config or IngestConfig())]
    assert [i for i in items if isinstance(i, QuarantinedRecord)] == []
    return assemble_sessions([i for i in items if isinstance(i, RawRecord)], config or IngestConfig()).sessions


def said(session: Session) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in session.turns]


def test_flattened_older_names_with_tool_calls_and_prompt_tokens(tmp_path):
    attrs = {"llm.request.type": "chat", "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Where is #W2611340?",
             "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.tool_calls.0.id": "c1",
             "gen_ai.completion.0.tool_calls.0.name": "get_order", "gen_ai.completion.0.tool_calls.0.arguments": '{"order_id": "#W2611340"}',
             "gen_ai.usage.prompt_tokens": 11, "gen_ai.usage.completion_tokens": 7, "session.id": "s"}
    [session] = session_of(tmp_path, b.spans_line(b.span("a000000000000001", "openai.chat", T0, T1, attrs)))
    assert said(session) == [("user", "Where is #W2611340?")]
    assert [(c.name, c.call_id, c.arguments) for c in session.tool_calls] == [("get_order", "c1", {"order_id": "#W2611340"})]
    assert (session.usage.input_tokens, session.usage.output_tokens) == (11, 7)


def test_span_events_carry_prompt_and_completion(tmp_path):
    span = b.span("a000000000000001", "chat", T0, T1, {"gen_ai.operation.name": "chat", "session.id": "s"})
    span["events"] = [
        {"name": "gen_ai.content.prompt", "timeUnixNano": b.nanos(T0),
         "attributes": [b.attr("gen_ai.prompt", json.dumps([{"role": "user", "content": "Refund please"}]))]},
        {"name": "gen_ai.content.completion", "timeUnixNano": b.nanos(T1),
         "attributes": [b.attr("gen_ai.completion", json.dumps([{"role": "assistant", "content": "Done."}]))]},
    ]
    [session] = session_of(tmp_path, b.spans_line(span))
    assert said(session) == [("user", "Refund please"), ("agent", "Done.")]


def test_log_events_join_their_span_and_need_no_severity(tmp_path):
    span = b.span("a000000000000001", "chat gpt", T0, T1, {"gen_ai.operation.name": "chat", "session.id": "s"})
    events = [
        {"observedTimeUnixNano": b.nanos(T0), "eventName": "gen_ai.user.message", "traceId": b.TRACE,
         "spanId": "a000000000000001", "body": {"kvlistValue": {"values": [b.attr("content", "Where is it?")]}}},
        {"timeUnixNano": b.nanos(T1), "traceId": b.TRACE, "spanId": "a000000000000001",
         "attributes": [b.attr("event.name", "gen_ai.choice")],
         "body": {"kvlistValue": {"values": [{"key": "message", "value": {"kvlistValue": {"values": [
             b.attr("role", "assistant"), b.attr("content", "On its way.")]}}}]}}},
        {"timeUnixNano": b.nanos(T1), "eventName": "gen_ai.user.message", "traceId": b.TRACE, "body": {}},
        {"timeUnixNano": b.nanos(T1), "body": {"stringValue": "no severity, no event name"}},
    ]
    path = b.write(tmp_path / "traces" / "t.jsonl", b.spans_line(span) + "\n" + b.log_line(events) + "\n")
    items = [item for item, _ in read_file("traces", path, tmp_path, IngestConfig())]
    bad = [(q.position, q.record, q.reason) for q in items if isinstance(q, QuarantinedRecord)]
    assert bad == [(2, 3, "missing field 'spanId' of a GenAI event"),
                   (2, 4, "missing field 'severityNumber' (and no GenAI event name)")]
    [session] = assemble_sessions([i for i in items if isinstance(i, RawRecord)], IngestConfig()).sessions
    assert said(session) == [("user", "Where is it?"), ("agent", "On its way.")]


def test_metrics_in_a_trace_file_are_skipped_not_quarantined(tmp_path):
    path = b.write(tmp_path / "traces" / "t.jsonl", json.dumps({"resourceMetrics": [{"scopeMetrics": []}]}) + "\n")
    assert list(read_file("traces", path, tmp_path, IngestConfig())) == []


def test_langchain_message_to_dict_and_dumpd_forms():
    dumped = {"messages": [[{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"],
                             "kwargs": {"content": "hello", "type": "human"}}]]}
    as_dict = [{"type": "ai", "data": {"content": "", "tool_calls": [{"name": "get_order", "args": {"order_id": "#W1"}, "id": "c9"}]}},
               {"type": "tool", "data": {"content": '{"ok": true}', "tool_call_id": "c9", "status": "success"}}]
    [human] = message_list(dumped, "user")
    ai, tool = message_list(as_dict, "user")
    assert (human.role, human.text) == ("user", "hello")
    assert [(c.name, c.call_id, c.arguments) for c in ai.calls] == [("get_order", "c9", {"order_id": "#W1"})]
    assert (tool.role, tool.answers, tool.result, tool.failed) == ("tool", "c9", {"ok": True}, False)


def test_python_repr_of_a_message_is_read_as_that_message():
    """The Agents SDK's v2 instrumentation writes the chat message's repr as a text part."""
    text = str({"content": "Here you go.", "role": "assistant", "tool_calls": [
        {"id": "call_7", "type": "function", "function": {"name": "refund_order", "arguments": '{"order_id": "#W1"}'}}]})
    [message] = message_list([{"role": "assistant", "parts": [{"type": "text", "content": text}]}], "assistant")
    assert message.text == "Here you go."
    assert [(c.name, c.call_id, c.arguments) for c in message.calls] == [("refund_order", "call_7", {"order_id": "#W1"})]
    [plain] = message_list([{"role": "assistant", "content": "{'not': 'a message'}"}], "assistant")
    assert plain.text == "{'not': 'a message'}" and plain.calls == []


def test_semconv_attribute_wins_over_raw_input_value():
    attrs = {"gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "A"}]}]),
             "input.value": "B"}
    inputs, outputs = messages_of_span(attrs, [], [])
    assert [(m.role, m.text) for m in inputs] == [("user", "A")] and outputs == []


def _chat(span_id: str, start: str, end: str, inputs: list[tuple[str, str]], output: dict[str, Any], trace: str,
          **extra: Any) -> dict[str, Any]:
    messages = [{"role": r, "parts": [{"type": "text", "content": t}]} for r, t in inputs]
    return b.span(span_id, "chat", start, end, {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(messages),
                                                  "gen_ai.output.messages": json.dumps([output]), **extra}, trace_id=trace)


def _text(text: str) -> dict[str, Any]:
    return {"role": "assistant", "parts": [{"type": "text", "content": text}]}


def test_tool_call_in_messages_and_span_is_counted_once_and_joined_by_id(tmp_path):
    call = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "get_order", "arguments": {"order_id": "#W1"}}]}
    answered = [("user", "where?")]
    trace = b.TRACE
    first = _chat("a000000000000001", T0, T1, answered, call, trace, **{"session.id": "s"})
    tool = b.span("a000000000000002", "execute_tool get_order", T1, T2,
                  {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_order", "input.value": "#W1",
                   "output.value": json.dumps({"shipped": True})})
    history = [{"role": "user", "parts": [{"type": "text", "content": "where?"}]}, call,
               {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": {"shipped": True}}]}]
    second = b.span("a000000000000003", "chat", T2, T3, {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(history),
                                                         "gen_ai.output.messages": json.dumps([_text("Shipped.")])})
    [session] = session_of(tmp_path, b.spans_line(first, tool, second))
    [joined] = session.tool_calls
    assert (joined.name, joined.call_id, joined.arguments, joined.result) == ("get_order", "c1", {"order_id": "#W1"}, {"shipped": True})
    assert joined.duration_ms == 1000.0  # the span's timing, the message's id and arguments


def test_a_call_without_id_repeated_in_history_is_one_call(tmp_path):
    call = {"role": "assistant", "tool_calls": [{"function": {"name": "get_order", "arguments": '{"order_id": "#W1"}'}}]}
    user = {"role": "user", "content": "where?"}
    first = b.span("a000000000000001", "chat", T0, T1, {"gen_ai.operation.name": "chat", "session.id": "s",
                                                        "gen_ai.input.messages": json.dumps([user]),
                                                        "gen_ai.output.messages": json.dumps([call])})
    second = b.span("a000000000000002", "chat", T1, T2, {"gen_ai.operation.name": "chat",
                                                         "gen_ai.input.messages": json.dumps([user, call]),
                                                         "gen_ai.output.messages": json.dumps([call])})
    [session] = session_of(tmp_path, b.spans_line(first, second))
    assert [c.name for c in session.tool_calls] == ["get_order", "get_order"]  # asked twice: two calls, not three


def test_a_run_continuing_another_joins_its_session_an_unrelated_one_does_not(tmp_path):
    one, two, other = "1" * 32, "2" * 32, "3" * 32
    run1 = _chat("a000000000000001", T0, T1, [("system", "Be kind."), ("user", "Where is #W1?")], _text("Shipped."), one)
    run2 = _chat("b000000000000001", T2, T3, [("system", "Be kind."), ("user", "Where is #W1?"), ("assistant", "Shipped."),
                                              ("user", "Thanks!")], _text("You're welcome."), two)
    unrelated = _chat("c000000000000001", T2, T3, [("user", "Where is #W1?"), ("assistant", "Lost."), ("user", "Thanks!")],
                      _text("Sorry."), other)
    sessions = session_of(tmp_path, b.spans_line(run1), b.spans_line(run2), b.spans_line(unrelated))
    assert sorted(s.trace_ids for s in sessions) == [[one, two], [other]]
    joined = next(s for s in sessions if len(s.trace_ids) == 2)
    assert joined.session_id == one
    assert [t.text for t in joined.turns if t.role != "system"] == ["Where is #W1?", "Shipped.", "Thanks!", "You're welcome."]


def test_configured_session_attribute(tmp_path):
    span = _chat("a000000000000001", T0, T1, [("user", "hi")], _text("hello"), b.TRACE, **{"app.conversation": "conv-9"})
    config = IngestConfig(session_attributes=["app.conversation"])
    assert [s.session_id for s in session_of(tmp_path, b.spans_line(span), config=config)] == ["conv-9"]
    assert [s.session_id for s in session_of(tmp_path, b.spans_line(span))] == [b.TRACE]


def test_a_failed_langchain_tool_message_marks_the_call_failed(tmp_path):
    tool = b.span("a000000000000002", "refund_order", T1, T2, {
        "openinference.span.kind": "TOOL", "tool.name": "refund_order", "input.value": "{'order_id': '#W1'}", "session.id": "s",
        "output.value": json.dumps({"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
                                    "kwargs": {"content": "Error: refused", "tool_call_id": "c5", "status": "error"}})})
    [session] = session_of(tmp_path, b.spans_line(tool))
    [call] = session.tool_calls
    assert (call.call_id, call.arguments, call.result, call.status) == ("c5", {"order_id": "#W1"}, "Error: refused", "error")


def test_responses_items_written_as_their_repr_are_read():
    """Through the Responses API the v2 instrumentation writes output items' reprs as text."""
    call = ("ResponseFunctionToolCall(arguments='{\"order_id\": \"#W1\"}', call_id='call_3', name='refund_order', "
            "type='function_call', id='fc_3', status='completed')")
    said = "{'annotations': [], 'text': 'Refunded.', 'type': 'output_text'}"
    outer = ("ResponseOutputMessage(id='msg_1', content=[ResponseOutputText(annotations=[], text='Done.', "
             "type='output_text')], role='assistant', status='completed', type='message')")
    messages = message_list([{"role": "assistant", "parts": [{"type": "text", "content": text}]} for text in (call, said, outer)],
                            "assistant")
    assert [(c.name, c.call_id, c.arguments) for c in messages[0].calls] == [("refund_order", "call_3", {"order_id": "#W1"})]
    assert messages[0].text == ""
    assert [m.text for m in messages[1:]] == ["Refunded.", "Done."]


def test_a_repr_is_parsed_never_run():
    from ingest.messages import python_value

    assert python_value("Thing(a=__import__('os').getcwd())") is None
    assert python_value("{'a': open('/etc/passwd').read()}") is None
    assert python_value("Thing(1, b=2)") is None
    assert python_value("Thing(b=[1, 'x'], c=None)") == {"b": [1, "x"], "c": None}


def test_a_status_message_with_a_traceback_gives_its_first_line(tmp_path):
    tool = b.span("a000000000000002", "refund_order", T1, T2, {
        "openinference.span.kind": "TOOL", "tool.name": "refund_order", "input.value": '{"order_id": "#W1"}', "session.id": "s"})
    tool["status"] = {"code": "STATUS_CODE_ERROR",
                      "message": "RefundRefused('amount too high')Traceback (most recent call last):\n  File \"x.py\", line 1"}
    [session] = session_of(tmp_path, b.spans_line(tool))
    assert session.tool_calls[0].error == "RefundRefused('amount too high')"
    assert [e.message for e in session.signals.errors] == ["RefundRefused('amount too high')"]
