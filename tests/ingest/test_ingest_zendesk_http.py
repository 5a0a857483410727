import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import ingest_builders as b
import pytest

from ingest.config import IngestConfig
from ingest.readers import list_source_files, read_file
from ingest.zendesk_http import ZendeskError, ZendeskHttpConfig, fetch_incremental_tickets, resume_point


COMMENTS = [
    {"id": 1, "author_id": 501, "body": "Still waiting for my refund.", "public": True, "created_at": "2026-11-20T10:41:00Z"},
    {"id": 2, "author_id": 9001, "body": "Refund issued.", "public": True, "created_at": "2026-11-20T11:00:00Z"},
    {"id": 3, "author_id": 502, "body": "Where is my parcel?", "public": True, "created_at": "2026-11-20T10:42:00Z"},
]


@pytest.fixture
def server():
    seen: list[tuple[str, str]] = []
    state = {"throttled": False, "comments_throttled": False}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append((self.path, self.headers.get("Authorization", "")))
            host = f"http://127.0.0.1:{self.server.server_address[1]}"
            if "/comments.json" in self.path:
                return self.comments(host)
            if "cursor=2" in self.path and not state["throttled"]:
                state["throttled"] = True
                self.send_response(429)
                self.send_header("Retry-After", "7")
                self.end_headers()
                return
            if "cursor=2" in self.path:
                body = {"tickets": [b.ticket(102, external_id="sess-2", requester_id=502)],
                        "users": [b.user(502, "Ken Ito", "ken@example.org", None)], "after_url": None, "end_of_stream": True,
                        "end_time": 1795000100}
            else:
                body = {"tickets": [b.ticket(101, external_id="sess-1", requester_id=501)],
                        "users": [b.user(501, "Maria Lopez", "maria@example.com", "+1 415 555 0134")],
                        "after_url": f"{host}/api/v2/incremental/tickets/cursor.json?cursor=2", "end_of_stream": False,
                        "end_time": 1795000050}
            self.answer(body)

        def comments(self, host):
            """Ticket 101: two pages (cursor pagination); 102: one page, after a 503 without Retry-After."""
            if "/tickets/102/" in self.path and not state["comments_throttled"]:
                state["comments_throttled"] = True
                self.send_response(503)
                self.end_headers()
                return
            if "/tickets/101/" in self.path and "page%5Bafter%5D=c2" not in self.path:
                body = {"comments": [COMMENTS[0]], "meta": {"has_more": True},
                        "links": {"next": f"{host}/api/v2/tickets/101/comments.json?page%5Bsize%5D=100&page%5Bafter%5D=c2"}}
            elif "/tickets/101/" in self.path:
                body = {"comments": [COMMENTS[1]], "meta": {"has_more": False}, "links": {"next": None}}
            else:
                body = {"comments": [COMMENTS[2]], "next_page": None, "count": 1}
            self.answer(body)

        def answer(self, body):
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    httpd.shutdown()
    httpd.server_close()


def test_export_follows_cursor_honours_retry_after_and_writes_readable_pages(server, tmp_path, monkeypatch):
    base, seen = server
    monkeypatch.setenv("ZD_EMAIL_TEST", "bot@example.com")
    monkeypatch.setenv("ZD_TOKEN_TEST", "tok")
    sleeps: list[float] = []
    config = ZendeskHttpConfig(base_url=base, email_env="ZD_EMAIL_TEST", token_env="ZD_TOKEN_TEST")
    report = fetch_incremental_tickets(config, tmp_path, start_time=1795000000, sleep=sleeps.append)
    assert (report.pages, report.tickets, report.retries) == (2, 2, 2)
    assert (report.comment_pages, report.comments, report.comments_kept) == (3, 3, 0)
    assert sleeps == [7.0, 1.0]  # Retry-After when given, else back-off
    assert seen[0][0] == "/api/v2/incremental/tickets/cursor.json?start_time=1795000000&include=users"
    assert all(auth.startswith("Basic ") for _, auth in seen)
    records = [r for path in list_source_files(tmp_path, "tickets") for r, _ in read_file("tickets", path, tmp_path, IngestConfig())]
    assert [(r.kind, r.external_id) for r in records if r.kind == "comment"] == [("comment", "1"), ("comment", "2"), ("comment", "3")]
    assert [(r.external_id, r.session_id) for r in records if r.kind == "ticket"] == [("101", "sess-1"), ("102", "sess-2")]
    assert all("start_time" not in path for path, _ in seen if "comments" in path)

    start_time, next_page = resume_point(tmp_path)
    last_page = json.loads((tmp_path / "tickets" / "page-00002.json").read_text())
    assert (start_time, next_page) == (last_page["end_time"], 3) == (1795000100, 3)
    fetch_incremental_tickets(config, tmp_path, start_time=start_time, first_page=next_page, sleep=sleeps.append)
    assert sorted(p.name for p in (tmp_path / "tickets").glob("page-*.json")) == [
        "page-00001.json", "page-00002.json", "page-00003.json", "page-00004.json"
    ]
    assert any(path.endswith(f"start_time={start_time}&include=users") for path, _ in seen)


def test_missing_credentials_name_the_variables(tmp_path, monkeypatch):
    monkeypatch.delenv("ZD_EMAIL_ABSENT", raising=False)
    config = ZendeskHttpConfig(base_url="http://127.0.0.1:9", email_env="ZD_EMAIL_ABSENT", token_env="ZD_TOKEN_ABSENT")
    with pytest.raises(ZendeskError, match="ZD_EMAIL_ABSENT"):
        fetch_incremental_tickets(config, tmp_path, start_time=0, sleep=lambda _: None)


def test_a_stopped_export_resumes_without_fetching_comments_again(server, tmp_path, monkeypatch):
    base, seen = server
    monkeypatch.setenv("ZD_EMAIL_TEST", "bot@example.com")
    monkeypatch.setenv("ZD_TOKEN_TEST", "tok")
    config = ZendeskHttpConfig(base_url=base, email_env="ZD_EMAIL_TEST", token_env="ZD_TOKEN_TEST")
    fetch_incremental_tickets(config, tmp_path, start_time=1795000000, sleep=lambda _: None)
    (tmp_path / "tickets" / "page-00002.json").unlink()  # stopped after 102's comments, before its page
    start_time, next_page = resume_point(tmp_path)
    asked = len(seen)
    report = fetch_incremental_tickets(config, tmp_path, start_time=start_time, first_page=next_page, sleep=lambda _: None)
    assert (report.comments, report.comments_kept) == (0, report.tickets) and report.tickets >= 1
    assert not any("comments" in path for path, _ in seen[asked:])
    assert (tmp_path / "tickets" / f"page-{next_page:05d}.json").exists()
    assert not list((tmp_path / "tickets").rglob(".*.tmp"))
