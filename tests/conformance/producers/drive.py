"""Drive one real trace producer against the scripted model and export what it emits.

    python drive.py PRODUCER OUT_DIR

writes OUT_DIR/traces.jsonl (and OUT_DIR/logs.jsonl when the producer emits log records)
with the OTLP JSON file exporter (`opentelemetry-exporter-otlp-json-file`). Every producer
plays the same two-turn conversation (see scripted_model.py; the Agents SDK through the
Responses API, its default, and through chat completions as `*-chat`): the user asks where an order
is, the agent calls `get_order_details` and answers; the user asks for a refund, the agent
calls `refund_order`, which fails, and says so. Run it in a virtual environment holding the
producer's released packages (tests/conformance/requirements-*.txt).
"""

from __future__ import annotations

import json
import os
import sys
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scripted_model import ORDER_ID, ScriptedModel  # noqa: E402

CONVERSATION_ID = "conv-7f3a-2026"
USER_TURNS = ("Hi, where is my order #W2611340?", "It arrived broken. Please refund it.")
INSTRUCTIONS = "You are the shop's support agent. Use the tools."
MODEL = "gpt-4o-mini"
APP_SESSION_ATTRIBUTE = "traceloop.association.properties.session_id"
"""What Traceloop's SDK puts on every span of an associated session; the app span sets it here."""


class RefundRefused(RuntimeError):
    pass


def get_order_details(order_id: str) -> str:
    """Look up an order by its id."""
    return json.dumps({"order_id": order_id, "status": "delivered", "user_id": "maria_lopez_4521"})


def refund_order(order_id: str) -> str:
    """Refund an order by its id."""
    raise RefundRefused(f"refund of {order_id} refused: amount exceeds order total")


TOOLS = {"get_order_details": get_order_details, "refund_order": refund_order}
TOOL_SCHEMAS = [
    {"type": "function", "function": {"name": name, "description": fn.__doc__,
                                      "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}},
                                                     "required": ["order_id"]}}}
    for name, fn in TOOLS.items()
]


def providers(out: Path, service: str) -> tuple[Any, Any]:
    """A tracer provider and a logger provider exporting to OUT/traces.jsonl and OUT/logs.jsonl."""
    from opentelemetry.exporter.otlp.json.file import FileSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    resource = Resource.create({"service.name": service})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(out / "traces.jsonl")))
    from opentelemetry.exporter.otlp.json.file._log_exporter import FileLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor

    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(FileLogExporter(out / "logs.jsonl")))
    return tracer_provider, logger_provider


def _openai_client(base_url: str, asynchronous: bool = False) -> Any:
    import openai

    kind = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    return kind(base_url=base_url, api_key="sk-conformance", max_retries=0)


# ---------------------------------------------------------------- OpenAI Agents SDK
def _agents_conversation(base_url: str, api: str) -> None:
    from agents import (Agent, RunConfig, Runner, function_tool, set_default_openai_api,
                        set_default_openai_client)

    set_default_openai_client(_openai_client(base_url, asynchronous=True), use_for_tracing=False)
    set_default_openai_api(api)
    agent = Agent(name="support", instructions=INSTRUCTIONS, model=MODEL,
                  tools=[function_tool(get_order_details), function_tool(refund_order)])
    config = RunConfig(group_id=CONVERSATION_ID, workflow_name="support chat")
    first = Runner.run_sync(agent, USER_TURNS[0], run_config=config)
    Runner.run_sync(agent, first.to_input_list() + [{"role": "user", "content": USER_TURNS[1]}], run_config=config)


def agents_openinference(base_url: str, out: Path, api: str = "responses") -> tuple[Any, Any]:
    from agents import set_trace_processors
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    tracer_provider, logger_provider = providers(out, "agents-openinference")
    set_trace_processors([])  # nothing sent to OpenAI's tracing backend
    OpenAIAgentsInstrumentor().instrument(tracer_provider=tracer_provider)
    _agents_conversation(base_url, api)
    return tracer_provider, logger_provider


def agents_otel_v2(base_url: str, out: Path, api: str = "responses") -> tuple[Any, Any]:
    from agents import set_trace_processors
    from opentelemetry.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    tracer_provider, logger_provider = providers(out, "agents-otel-v2")
    set_trace_processors([])
    OpenAIAgentsInstrumentor().instrument(tracer_provider=tracer_provider)
    _agents_conversation(base_url, api)
    return tracer_provider, logger_provider


# ---------------------------------------------------------------- LangGraph
def langgraph_openinference(base_url: str, out: Path) -> tuple[Any, Any]:
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langgraph.checkpoint.memory import MemorySaver
    from langgraph.prebuilt import ToolNode, create_react_agent
    from openinference.instrumentation import using_session
    from openinference.instrumentation.langchain import LangChainInstrumentor

    tracer_provider, logger_provider = providers(out, "langgraph-openinference")
    LangChainInstrumentor().instrument(tracer_provider=tracer_provider)
    model = ChatOpenAI(model=MODEL, base_url=base_url, api_key="sk-conformance", max_retries=0)
    tools = ToolNode([tool(get_order_details), tool(refund_order)], handle_tool_errors=True)
    graph = create_react_agent(model, tools, prompt=INSTRUCTIONS,
                               checkpointer=MemorySaver())
    config = {"configurable": {"thread_id": CONVERSATION_ID}}
    for text in USER_TURNS:
        with using_session(CONVERSATION_ID):
            graph.invoke({"messages": [{"role": "user", "content": text}]}, config)
    return tracer_provider, logger_provider


# ---------------------------------------------------------------- plain OpenAI client
def _chat_loop(base_url: str, tracer_provider: Any, api: str = "chat_completions") -> None:
    """The app's own loop: one app span per user turn carrying the session, model calls and tools inside."""
    tracer = tracer_provider.get_tracer("support-app")
    client = _openai_client(base_url)
    messages: list[dict[str, Any]] = [] if api == "responses" else [{"role": "system", "content": INSTRUCTIONS}]
    for text in USER_TURNS:
        with tracer.start_as_current_span("handle_message", attributes={APP_SESSION_ATTRIBUTE: CONVERSATION_ID}):
            messages.append({"role": "user", "content": text})
            while True:
                calls = _ask_responses(client, messages) if api == "responses" else _ask_chat(client, messages)
                if not calls:
                    break
                for call_id, name, arguments in calls:
                    try:
                        result = TOOLS[name](**json.loads(arguments))
                    except RefundRefused as error:
                        result = json.dumps({"error": str(error)})
                    messages.append({"type": "function_call_output", "call_id": call_id, "output": result} if api == "responses"
                                    else {"role": "tool", "tool_call_id": call_id, "content": result})


def _ask_chat(client: Any, messages: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    message = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOL_SCHEMAS).choices[0].message
    messages.append(message.model_dump(exclude_none=True))
    return [(call.id, call.function.name, call.function.arguments) for call in message.tool_calls or []]


def _ask_responses(client: Any, items: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    tools = [{"type": "function", **schema["function"]} for schema in TOOL_SCHEMAS]
    response = client.responses.create(model=MODEL, instructions=INSTRUCTIONS, input=items, tools=tools)
    items += [item.model_dump(exclude_none=True) for item in response.output]
    return [(item.call_id, item.name, item.arguments) for item in response.output if item.type == "function_call"]


def openllmetry(base_url: str, out: Path, api: str = "chat_completions") -> tuple[Any, Any]:
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    tracer_provider, logger_provider = providers(out, "openllmetry")
    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)
    _chat_loop(base_url, tracer_provider, api)
    return tracer_provider, logger_provider


def openai_v2(base_url: str, out: Path) -> tuple[Any, Any]:
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    tracer_provider, logger_provider = providers(out, "openai-v2")
    kwargs: dict[str, Any] = {"tracer_provider": tracer_provider, "logger_provider": logger_provider}
    try:
        from opentelemetry.sdk._events import EventLoggerProvider

        kwargs["event_logger_provider"] = EventLoggerProvider(logger_provider)
    except ImportError:
        pass
    OpenAIInstrumentor().instrument(**kwargs)
    _chat_loop(base_url, tracer_provider)
    return tracer_provider, logger_provider


PRODUCERS = {
    "agents-openinference": agents_openinference,
    "agents-openinference-chat": partial(agents_openinference, api="chat_completions"),
    "agents-otel-v2": agents_otel_v2,
    "agents-otel-v2-chat": partial(agents_otel_v2, api="chat_completions"),
    "langgraph-openinference": langgraph_openinference,
    "openllmetry": openllmetry,
    "openllmetry-responses": partial(openllmetry, api="responses"),
    "openai-v2": openai_v2,
}


def drive(producer: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in ("traces.jsonl", "logs.jsonl"):
        (out / name).unlink(missing_ok=True)
    with ScriptedModel() as model:
        tracer_provider, logger_provider = PRODUCERS[producer](model.base_url, out)
    tracer_provider.shutdown()
    logger_provider.shutdown()
    logs = out / "logs.jsonl"
    if logs.exists() and logs.stat().st_size == 0:
        logs.unlink()


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in PRODUCERS:
        sys.exit(f"usage: drive.py {{{'|'.join(PRODUCERS)}}} OUT_DIR")
    os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    drive(sys.argv[1], Path(sys.argv[2]))
