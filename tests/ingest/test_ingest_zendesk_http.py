import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import ingest_builders as b
import pytest

from ingest.config import IngestConfig
from ingest.readers import list_source_files, read_file
from ingest.zendesk_http import ZendeskError, ZendeskHttpConfig, fetch_incremental_tickets, resume_point


@pytest.fixture
def server():
    seen: list[tuple[str, str]] = []
    state = {"throttled": False}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append((self.path, self.headers.get("Authorization", "")))
            host = f"http://127.0.0.1:{self.server.server_address[1]}"
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
    assert (report.pages, report.tickets, report.retries) == (2, 2, 1)
    assert sleeps == [7.0]
    assert seen[0][0] == "/api/v2/incremental/tickets/cursor.json?start_time=1795000000&include=users"
    assert all(auth.startswith("Basic ") for _, auth in seen)
    records = [r for path in list_source_files(tmp_path, "tickets") for r, _ in read_file("tickets", path, tmp_path, IngestConfig())]
    assert [(r.external_id, r.session_id) for r in records] == [("101", "sess-1"), ("102", "sess-2")]

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
