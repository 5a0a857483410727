"""What an exported Inspect task runs: the domain's tools on a per-sample copy of the seed, the
behaviour under test (the model, or the reference or do-nothing behaviour), the budget as Inspect's
limits, and the domain's end-state grader as the scorer.

Imported by the exported `task.py` only (it needs inspect-ai: `pip install trace2task[inspect]`).
The environment lives in the sample's store as JSON (state and calls), so the Inspect log holds
every change the agent made.
"""

from __future__ import annotations

import inspect as pyinspect
import json
import typing
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import json_dataset
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ModelOutput, execute_tools, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolCall as InspectToolCall
from inspect_ai.tool import ToolDef, ToolError
from inspect_ai.util import LimitExceededError, store, token_limit, turn_limit, working_limit

from ingest.models import ToolCall
from taskgen.domains import Domain, get_domain
from taskgen.seeds import Seed
from taskgen.task import AgentView, DraftTask

BEHAVIOURS = ("model", "reference", "do_nothing")
STATE_KEY, CALLS_KEY, BUDGET_KEY = "trace2task:state", "trace2task:calls", "trace2task:budget_exceeded"

SYSTEM_PROMPT = """You are the customer support agent of a {domain} business. Act only through the tools, \
follow the policy below, and send the customer a reply before you finish.

The customer is authenticated as: {actor}
Current time: {clock}

Policy:
{policy}"""


def _task(state: TaskState) -> DraftTask:
    return DraftTask.model_validate(state.metadata["task"])


def _environment(domain: Domain, task: DraftTask) -> Any:
    """The sample's environment as the store holds it: the seed as the agent's calls left it."""
    seed = Seed(seed_id=task.seed_id, clock=task.clock, domain=task.domain, state=store().get(STATE_KEY))
    environment = domain.environment(seed)
    environment.calls = [ToolCall.model_validate(call) for call in store().get(CALLS_KEY, [])]
    return environment


def _save(environment: Any) -> None:
    store().set(STATE_KEY, environment.state)
    store().set(CALLS_KEY, [call.model_dump(mode="json") for call in environment.calls])


def domain_tools(domain: Domain, task: DraftTask) -> list[ToolDef]:
    """Each of the domain's tools as an Inspect tool: its environment method's signature and docstring."""
    probe = domain.environment(Seed(seed_id=task.seed_id, clock=task.clock, domain=task.domain, state={}))
    tools = []
    for name in domain.tools:
        handler = getattr(probe, f"_tool_{name}")

        def bind(name: str = name) -> Any:
            async def execute(**arguments: Any) -> str:
                environment = _environment(domain, task)
                result = environment.call(name, **arguments)
                _save(environment)
                if environment.calls[-1].status == "error":
                    raise ToolError(environment.calls[-1].error or f"{name} failed")
                return json.dumps(result, sort_keys=True, default=str)

            return execute

        execute = bind()
        hints = typing.get_type_hints(handler)
        execute.__signature__ = pyinspect.signature(handler).replace(return_annotation=str)
        execute.__annotations__ = {**{key: value for key, value in hints.items() if key != "return"}, "return": str}
        execute.__doc__ = handler.__doc__
        tools.append(ToolDef(execute, name=name))
    return tools


async def _replay(state: TaskState, calls: list[ToolCall], tools: list[ToolDef], reply: str) -> None:
    """A scripted behaviour's calls, one assistant message each, through Inspect's own tool execution."""
    for number, call in enumerate(calls, start=1):
        message = ChatMessageAssistant(
            content="", tool_calls=[InspectToolCall(id=f"call-{number}", function=call.name, arguments=call.arguments)]
        )
        state.messages.append(message)
        state.messages.extend((await execute_tools(state.messages, tools)).messages)
    state.output = ModelOutput.from_content(model="trace2task/behaviour", content=reply)
    state.messages.append(state.output.message)


@solver
def run_behaviour(behaviour: str = "model", policy_path: str | None = None) -> Solver:
    """Seed the sample's environment, then let the behaviour act; the budget bounds the model."""
    if behaviour not in BEHAVIOURS:
        raise ValueError(f"unknown behaviour {behaviour!r}; choose one of {', '.join(BEHAVIOURS)}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        task = _task(state)
        domain = get_domain(task.domain, Path(policy_path) if policy_path else None)
        store().set(STATE_KEY, state.metadata["seed"]["state"])
        store().set(CALLS_KEY, [])
        tools = domain_tools(domain, task)
        state.tools = list(tools)
        if behaviour == "do_nothing":
            await _replay(state, [], tools, "")
        elif behaviour == "reference":
            scratch = domain.environment(Seed.model_validate(state.metadata["seed"]))
            view = AgentView(prompt=task.prompt, intent=task.intent, actor=task.actor, clock=task.clock)
            domain.agents()["reference"](view, scratch)
            await _replay(state, scratch.calls, tools, "")
        else:
            await _model_loop(state, task, domain, tools)
        return state

    return solve


async def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _offline_token_counts(model: Any) -> None:
    """Inspect's test model `mockllm` counts the tokens of an output without usage with tiktoken's
    o200k_base file, which tiktoken downloads: for that model only, count them from the characters
    (ModelAPI.count_text_tokens is Inspect's place for a model's own tokenizer), so nothing is fetched."""
    if str(model).startswith("mockllm/"):
        model.api.count_text_tokens = _estimate_tokens


async def _model_loop(state: TaskState, task: DraftTask, domain: Domain, tools: list[ToolDef]) -> None:
    policy = json.dumps(domain.policy.model_dump(mode="json"), indent=2, sort_keys=True)
    state.messages.insert(0, ChatMessageSystem(content=SYSTEM_PROMPT.format(
        domain=task.domain, actor=json.dumps(task.actor, sort_keys=True), clock=task.clock, policy=policy)))
    budget = task.budget
    _offline_token_counts(get_model())
    try:
        with turn_limit(budget.turns), token_limit(budget.tokens), working_limit(budget.latency_ms / 1000):
            while True:
                state.output = await get_model().generate(state.messages, tools)
                state.messages.append(state.output.message)
                if not state.output.message.tool_calls:
                    break
                state.messages.extend((await execute_tools(state.messages, tools)).messages)
    except LimitExceededError as exceeded:
        store().set(BUDGET_KEY, f"{exceeded.type} over the budget of {exceeded.limit:g}")


@scorer(metrics=[accuracy(), stderr()])
def end_state() -> Scorer:
    """The domain's grader on the final state and calls; a budget overrun fails too. Rubric items go
    to the score's metadata for a judge, unscored."""

    async def score(state: TaskState, target: Target) -> Score:
        task = _task(state)
        domain = get_domain(task.domain)
        calls = [ToolCall.model_validate(call) for call in store().get(CALLS_KEY, [])]
        verdict = domain.grade(task, store().get(STATE_KEY, {}), calls)
        reasons = list(verdict.reasons)
        if store().get(BUDGET_KEY):
            reasons.append(f"budget exceeded: {store().get(BUDGET_KEY)}")
        return Score(
            value=INCORRECT if reasons else CORRECT,
            answer=state.output.completion if state.output else None,
            explanation="; ".join(reasons) or "every code check holds",
            metadata={
                "code_checks": {"passed": not reasons, "reasons": reasons, "calls": [call.name for call in calls]},
                "rubric": {"judged": False, "items": state.metadata.get("rubric", [])},
                "polarity": task.polarity,
                "pair_id": task.pair_id,
            },
        )

    return score


def release_task(folder: Path, behaviour: str = "model") -> Task:
    """The Inspect task of an exported folder (its samples.jsonl and policy.yaml)."""
    folder = Path(folder)
    return Task(
        dataset=json_dataset(str(folder / "samples.jsonl")),
        solver=run_behaviour(behaviour, str(folder / "policy.yaml")),
        scorer=end_state(),
    )
