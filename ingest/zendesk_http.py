"""Zendesk incremental ticket export over HTTP, written into a drop's tickets/ folder in the
same page format the reader expects, each ticket's comments beside it (tickets/comments/<id>.json).
Credentials come from environment variables whose names are configured, read at call time.

Rate limits are respected: a 429 or 503 waits for its Retry-After (else backs off 1, 2, 4 s ...).
Resumable: a page is written only once every ticket on it has its comments, and a ticket
whose comments were fetched at its current `updated_at` is not fetched again, so a run
stopped anywhere goes on from `resume_point` without losing or repeating a ticket."""

from __future__ import annotations

import base64
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ZendeskError(RuntimeError):
    """The export failed; the message carries a status or cause, never credentials or content."""


class ZendeskHttpConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(description="https://<subdomain>.zendesk.com")
    email_env: str = "ZENDESK_EMAIL"
    token_env: str = "ZENDESK_API_TOKEN"
    timeout_s: float = 30.0
    max_retries: int = 5
    max_pages: int = 10_000


class ZendeskFetchReport(BaseModel):
    pages: int = 0
    tickets: int = 0
    retries: int = 0
    comment_pages: int = 0
    comments: int = 0
    comments_kept: int = Field(default=0, description="tickets whose comments were already fetched at their update")


def resume_point(drop: Path) -> tuple[int, int]:
    """(start_time, next page number) after the pages already fetched into `drop`/tickets."""
    start_time, last_page = 0, 0
    for path in sorted((drop / "tickets").glob("page-*.json")):
        last_page = max(last_page, int(path.stem.split("-")[1]))
        try:
            end_time = json.loads(path.read_text(encoding="utf-8")).get("end_time")
        except (OSError, ValueError):
            continue
        if isinstance(end_time, int):
            start_time = max(start_time, end_time)
    return start_time, last_page + 1


def fetch_incremental_tickets(
    config: ZendeskHttpConfig,
    drop: Path,
    *,
    start_time: int,
    first_page: int = 1,
    sleep: Callable[[float], None] = time.sleep,
) -> ZendeskFetchReport:
    """Follow `after_url` from `start_time` until `end_of_stream`, writing tickets/page-NNNNN.json
    numbered from `first_page` (so an incremental fetch never overwrites an earlier page)."""
    email, token = os.environ.get(config.email_env), os.environ.get(config.token_env)
    if not email or not token:
        raise ZendeskError(f"environment variables {config.email_env} and {config.token_env} must be set")
    auth = "Basic " + base64.b64encode(f"{email}/token:{token}".encode()).decode()
    base = config.base_url.rstrip("/")
    url: str | None = f"{base}/api/v2/incremental/tickets/cursor.json?" + urllib.parse.urlencode(
        {"start_time": start_time, "include": "users"})
    folder = drop / "tickets"
    folder.mkdir(parents=True, exist_ok=True)
    report = ZendeskFetchReport()
    while url is not None and report.pages < config.max_pages:
        _same_host(url, base)
        page = _get_json(url, auth, config, sleep, report)
        tickets = page.get("tickets") or []
        end_of_stream = bool(page.get("end_of_stream"))
        for ticket in tickets:
            if isinstance(ticket, dict) and ticket.get("id") is not None:
                _fetch_comments(ticket, base, folder / "comments", auth, config, sleep, report)
        report.pages += 1
        report.tickets += len(tickets)
        document = {"tickets": tickets, "users": page.get("users") or [], "end_time": page.get("end_time"),
                    "next_page": None if end_of_stream else page.get("after_url"), "count": len(tickets),
                    "end_of_stream": end_of_stream}
        _write_atomically(folder / f"page-{first_page + report.pages - 1:05d}.json", document)
        url = None if end_of_stream else page.get("after_url")
    return report


def _same_host(url: str, base: str) -> None:
    if urllib.parse.urlsplit(url).netloc != urllib.parse.urlsplit(base).netloc:
        raise ZendeskError("next page is on another host; refusing to send credentials there")


def _fetch_comments(ticket: dict[str, Any], base: str, folder: Path, auth: str, config: ZendeskHttpConfig,
                    sleep: Callable[[float], None], report: ZendeskFetchReport) -> None:
    """Every page of the ticket's comments (cursor pagination, or the older next_page), written
    in one file once all are in; skipped when the file is from the ticket's current update."""
    ticket_id = str(ticket["id"])
    target = folder / f"{urllib.parse.quote(ticket_id, safe='')}.json"
    updated_at = ticket.get("updated_at")
    if target.exists():
        try:
            if json.loads(target.read_text(encoding="utf-8")).get("ticket_updated_at") == updated_at:
                report.comments_kept += 1
                return
        except (OSError, ValueError):
            pass
    comments: list[Any] = []
    url: str | None = f"{base}/api/v2/tickets/{urllib.parse.quote(ticket_id, safe='')}/comments.json?" + urllib.parse.urlencode(
        {"page[size]": 100})
    pages = 0
    while url is not None:
        _same_host(url, base)
        page = _get_json(url, auth, config, sleep, report)
        pages += 1
        report.comment_pages += 1
        found = page.get("comments") or []
        comments.extend(found)
        report.comments += len(found)
        links = page.get("links") if isinstance(page.get("links"), dict) else {}
        meta = page.get("meta") if isinstance(page.get("meta"), dict) else {}
        if meta.get("has_more") and links.get("next"):
            url = links["next"]
        elif "meta" not in page and page.get("next_page"):
            url = page["next_page"]
        else:
            url = None
        if pages >= config.max_pages and url is not None:
            raise ZendeskError("a ticket has more comment pages than max_pages")
    _write_atomically(target, {"comments": comments, "ticket_id": ticket["id"], "ticket_updated_at": updated_at})


def _write_atomically(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    os.replace(temporary, path)


def _get_json(url: str, auth: str, config: ZendeskHttpConfig, sleep: Callable[[float], None], report: ZendeskFetchReport) -> dict[str, Any]:
    request = urllib.request.Request(url, headers={"Authorization": auth, "Accept": "application/json"})
    for attempt in range(config.max_retries + 1):
        try:
            with urllib.request.urlopen(request, timeout=config.timeout_s) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            if error.code not in (429, 503) or attempt == config.max_retries:
                raise ZendeskError(f"Zendesk answered HTTP {error.code}") from None
            wait = _retry_after(error.headers.get("Retry-After"), attempt)
        except (urllib.error.URLError, TimeoutError) as error:
            if attempt == config.max_retries:
                raise ZendeskError(f"Zendesk did not answer ({type(error).__name__})") from None
            wait = float(2 ** attempt)
        except ValueError:
            raise ZendeskError("Zendesk answered with invalid JSON") from None
        report.retries += 1
        sleep(wait)
    raise ZendeskError("Zendesk retries exhausted")


def _retry_after(header: str | None, attempt: int) -> float:
    try:
        return max(0.0, float(header)) if header else float(2 ** attempt)
    except ValueError:
        return float(2 ** attempt)
