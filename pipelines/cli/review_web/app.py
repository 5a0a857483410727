"""The review page (`trace2task review serve`): the task list with filters and one pair on one screen.

Server-rendered (Starlette + Jinja2, no script on the page). Every decision goes through the
functions the review CLI calls (pipelines.cli.review.decide / record_edits, which call
taskgen.review and mirror taskgen.decisions.events in the store), under the reviewer's name.

It reads only scrubbed data: the task files and seeds under the output folder, and from the store
the scrubbed sessions and the task_run table; never the raw zone. It answers only requests whose
Host is the bound 127.0.0.1:PORT (a page on another site, or a DNS-rebound name, gets 403), and a
form post whose Origin is another site is refused too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from taskgen import decisions, review
from taskgen.classify import OUTCOMES
from taskgen.domains import get_domain
from taskgen.health import check_set
from taskgen.output import load_seed, load_tasks
from taskgen.task import DraftTask, Expectation, ReviewEdit

from pipelines.cli.review import PairNeedsForce, Workspace, _now, decide, decide_all, record_edits
from pipelines.cli.review_web.view import pair_view, seed_difference, transcript_and_provenance

TEMPLATES = Path(__file__).with_name("templates")
HOST = "127.0.0.1"
STATUSES = ("draft", "approved", "rejected", "retired")
SETS = ("capability", "regression")
YES_NO = ("yes", "no")
DONE = {"approved", "rejected", "retired", "edited"}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


class BoundHostOnly:
    """403 for a request whose Host is not the bound host:port, and for a post from another origin."""

    def __init__(self, app: ASGIApp, authority: str) -> None:
        self.app = app
        self.authority = authority

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if headers.get("host") != self.authority:
                reason = f"this page answers only at http://{self.authority}/"
            elif scope["method"] not in ("GET", "HEAD") and origin is not None and origin != f"http://{self.authority}":
                reason = "forms are accepted only from this page"
            else:
                reason = None
            if reason is not None:
                await PlainTextResponse(f"forbidden: {reason}\n", status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class FilterError(ValueError):
    """An unknown filter name or value in the list's query string."""


@dataclass
class ReviewSite:
    workspace: Workspace
    reviewer: str
    port: int
    dagster_url: str

    def __post_init__(self) -> None:
        self.env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                               trim_blocks=True, lstrip_blocks=True)
        self.env.filters["compact"] = lambda value: json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)

    # ------------------------------------------------------------------ rendering

    def page(self, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        html = self.env.get_template(template).render(
            reviewer=self.reviewer, version=review.current_version(self.workspace.out), **context
        )
        return HTMLResponse(html, status_code=status_code, headers=SECURITY_HEADERS)

    def tasks(self) -> list[DraftTask]:
        return load_tasks(self.workspace.out / "tasks")

    def known_intents(self, tasks: list[DraftTask]) -> list[str]:
        taxonomy = self.workspace.config.taskgen.load_taxonomy() if self.workspace.config is not None else None
        named = [*taxonomy.intent_names, taxonomy.fallback_intent] if taxonomy is not None else []
        return sorted(set(named) | {task.intent for task in tasks})

    # ------------------------------------------------------------------ the list

    def filters(self, request: Request, tasks: list[DraftTask]) -> dict[str, str]:
        allowed = {
            "set": SETS, "intent": self.known_intents(tasks), "outcome": OUTCOMES, "status": STATUSES,
            "changed": YES_NO, "issues": YES_NO,
        }
        chosen: dict[str, str] = {}
        for name, value in request.query_params.multi_items():
            if name not in allowed:
                raise FilterError(f"unknown filter {name!r}; filters: {', '.join(allowed)}")
            if value == "":
                continue
            if value not in allowed[name]:
                raise FilterError(f"unknown {name} {value!r}; one of: {', '.join(allowed[name])}")
            chosen[name] = value
        return chosen

    async def task_list(self, request: Request) -> Response:
        tasks = self.tasks()
        try:
            chosen = self.filters(request, tasks)
        except FilterError as error:
            return self.page("list.html", 400, error=str(error), rows=[], chosen={}, options=self.options(tasks), total=len(tasks))
        rows = []
        for task in tasks:
            if any(chosen.get(name) not in (None, value) for name, value in
                   (("set", task.set), ("intent", task.intent), ("outcome", task.outcome), ("status", task.status))):
                continue
            if "changed" in chosen and (chosen["changed"] == "yes") != bool(task.changed_since_review):
                continue
            issues = self.issue_codes(task)
            if "issues" in chosen and (chosen["issues"] == "yes") != bool(issues):
                continue
            rows.append({"task": task, "issues": issues, "open": len(decisions.open_questions(task)),
                         "verdicts": decisions.verdicts_by_reviewer(task)})
        return self.page("list.html", rows=rows, chosen=chosen, options=self.options(tasks), total=len(tasks), error=None)

    def options(self, tasks: list[DraftTask]) -> dict[str, tuple[str, ...] | list[str]]:
        return {"set": SETS, "intent": self.known_intents(tasks), "outcome": OUTCOMES, "status": STATUSES,
                "changed": YES_NO, "issues": YES_NO}

    def issue_codes(self, task: DraftTask) -> list[str]:
        from taskgen.validate import validate_task

        seed = load_seed(self.workspace.out, task.seed_id)
        return sorted({issue.code for issue in validate_task(task, seed, get_domain(task.domain))})

    # ------------------------------------------------------------------ one pair

    def pair_of(self, task_or_pair: str) -> list[DraftTask]:
        tasks = self.tasks()
        found = [task for task in tasks if task_or_pair in (task.task_id, task.pair_id)]
        if not found:
            return []
        pair_id = found[0].pair_id
        return sorted((task for task in tasks if task.pair_id == pair_id), key=lambda task: task.polarity != "positive")

    def render_pair(self, pair: list[DraftTask], request: Request, status_code: int = 200, error: str | None = None,
                    needs_force: dict[str, list[str]] | None = None) -> HTMLResponse:
        out = self.workspace.out
        seeds = {task.seed_id: load_seed(out, task.seed_id) for task in pair}
        domain = get_domain(pair[0].domain)
        health = dict(zip([task.task_id for task in pair], check_set(pair, seeds, domain)))
        members = [pair_view(task, seeds[task.seed_id], health[task.task_id], domain,
                             review.approval_blockers(out, task)) for task in pair]
        difference = seed_difference(seeds[pair[0].seed_id], seeds[pair[-1].seed_id]) if len(pair) == 2 else None
        story = transcript_and_provenance(self.workspace.store(), pair, self.dagster_url)
        done = request.query_params.get("done")
        done_task = request.query_params.get("task")
        notice = f"{done_task}: {done}" if done in DONE and any(task.task_id == done_task for task in pair) else None
        if done in DONE and done_task == pair[0].pair_id:
            notice = f"pair {done_task}: {done}"
        pair_blockers = [f"{m['task'].polarity}: {blocker}" for m in members for blocker in m["blockers"]]
        return self.page("pair.html", status_code, pair_id=pair[0].pair_id, members=members, difference=difference,
                         pair_blockers=pair_blockers,
                         story=story, error=error, notice=notice, needs_force=needs_force or {})

    async def pair_page(self, request: Request) -> Response:
        wanted = request.path_params["pair_id"]
        pair = self.pair_of(wanted)
        if not pair:
            return self.page("missing.html", 404, wanted=wanted)
        if wanted != pair[0].pair_id:
            return RedirectResponse(f"/pair/{pair[0].pair_id}#{wanted}", status_code=303)
        return self.render_pair(pair, request)

    # ------------------------------------------------------------------ decisions

    async def act_on_pair(self, request: Request) -> Response:
        """Approve, reject or retire the positive and its negative with one click (`decide_all`, as
        `trace2task review approve PAIR_ID` does): an approval either of them could not take
        without the confirmation changes neither."""
        pair_id, action = request.path_params["pair_id"], request.path_params["action"]
        pair = self.pair_of(pair_id)
        status = {"approve": "approved", "reject": "rejected", "retire": "retired"}.get(action)
        if not pair or pair[0].pair_id != pair_id or status is None:
            return self.page("missing.html", 404, wanted=f"{pair_id}/{action}")
        form = await request.form()
        reason = str(form.get("reason") or "").strip() or None
        if status == "rejected" and reason is None:
            return self.render_pair(pair, request, 400, error=f"pair {pair_id}: a rejection needs a reason")
        try:
            decide_all(self.workspace, pair, status, reason if status != "approved" else None, self.reviewer,
                       force=form.get("force") == "yes")
        except PairNeedsForce as blocked:
            return self.render_pair(pair, request, 409, error=str(blocked), needs_force={"pair": blocked.reasons, **blocked.blocked})
        except review.ReviewError as error:
            return self.render_pair(self.pair_of(pair_id), request, 409, error=str(error))
        return RedirectResponse(f"/pair/{pair_id}?{urlencode({'done': status, 'task': pair_id})}#pair", status_code=303)

    async def act(self, request: Request) -> Response:
        task_id, action = request.path_params["task_id"], request.path_params["action"]
        pair = self.pair_of(task_id)
        if not pair or task_id not in {task.task_id for task in pair}:
            return self.page("missing.html", 404, wanted=task_id)
        form = await request.form()
        task = next(task for task in pair if task.task_id == task_id)
        try:
            if action == "approve":
                decide(self.workspace, task_id, "approved", None, self.reviewer, force=form.get("force") == "yes")
            elif action in ("reject", "retire"):
                reason = str(form.get("reason") or "").strip()
                if action == "reject" and not reason:
                    raise BadForm("a rejection needs a reason")
                decide(self.workspace, task_id, "rejected" if action == "reject" else "retired", reason or None, self.reviewer)
            elif action == "expectations":
                record_edits(self.workspace, task_id, [self.expectations_edit(task, form)])
            elif action == "answer":
                record_edits(self.workspace, task_id, [self.answer_edit(task, form)])
            elif action == "tools":
                record_edits(self.workspace, task_id, self.tool_edits(task, form))
            else:
                return self.page("missing.html", 404, wanted=f"{task_id}/{action}")
        except review.NeedsForce as blocked:
            return self.render_pair(self.pair_of(task_id), request, 409, error=str(blocked),
                                    needs_force={task_id: blocked.reasons})
        except review.ReviewError as error:
            return self.render_pair(self.pair_of(task_id), request, 409, error=str(error))
        except BadForm as error:
            return self.render_pair(pair, request, 400, error=f"{task_id}: {error}")
        done = {"approve": "approved", "reject": "rejected", "retire": "retired"}.get(action, "edited")
        return RedirectResponse(f"/pair/{task.pair_id}?{urlencode({'done': done, 'task': task_id})}#{task_id}", status_code=303)

    def expectations_edit(self, task: DraftTask, form) -> ReviewEdit:
        if form.get("confirm") == "yes":
            value = task.expectations
        else:
            try:
                items = json.loads(str(form.get("expectations") or ""))
                value = [Expectation.model_validate(item) for item in (items if isinstance(items, list) else [items])]
            except ValueError as error:
                raise BadForm(f"expectations must be a JSON list of {{\"check\": ..., \"args\": {{...}}}} ({type(error).__name__})") from None
        return ReviewEdit(field="expectations", value=value, reviewer=self.reviewer, at=_now())

    def answer_edit(self, task: DraftTask, form) -> ReviewEdit:
        number, answer = str(form.get("question") or ""), str(form.get("answer") or "").strip()
        if not number.isdigit() or not 1 <= int(number) <= len(task.review_questions):
            raise BadForm(f"the task has {len(task.review_questions)} review question(s); {number!r} names none")
        if not answer:
            raise BadForm("an answer cannot be empty")
        return ReviewEdit(field="answer", value=answer, question=task.review_questions[int(number) - 1],
                          reviewer=self.reviewer, at=_now())

    def tool_edits(self, task: DraftTask, form) -> list[ReviewEdit]:
        """An edit for each tool rule the form changes (comma-separated names, as in the CLI)."""
        edits = []
        for field in ("required_tools", "forbidden_tools"):
            tools = sorted({name.strip() for name in str(form.get(field) or "").split(",") if name.strip()})
            if tools != sorted(getattr(task, field)):
                edits.append(ReviewEdit(field=field, value=tools, reviewer=self.reviewer, at=_now()))
        if not edits:
            raise BadForm("the tool rules are unchanged")
        return edits


class BadForm(ValueError):
    """A form the page cannot act on (an empty reason, expectations that are not JSON)."""


def create_app(workspace: Workspace, *, reviewer: str, port: int, dagster_url: str = "http://127.0.0.1:3000") -> ASGIApp:
    """The review page for `workspace`, answering at http://127.0.0.1:PORT only."""
    site = ReviewSite(workspace, reviewer, port, dagster_url.rstrip("/"))
    app = Starlette(routes=[
        Route("/", site.task_list, methods=["GET"]),
        Route("/pair/{pair_id}", site.pair_page, methods=["GET"]),
        Route("/task/{task_id}/{action}", site.act, methods=["POST"]),
        Route("/pair/{pair_id}/{action}", site.act_on_pair, methods=["POST"]),
    ])
    return BoundHostOnly(app, f"{HOST}:{port}")
