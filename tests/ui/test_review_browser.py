"""The review page in headless Chromium: a person approves a task and rejects its negative with clicks.

A 20-session, 1-day demo drop goes through the stages (what `trace2task run --all` writes, without
Dagster); `trace2task review serve` serves its outputs on a free loopback port. Chromium opens the
task list, follows a pair's link, ticks the "approve over its open review questions" confirmation,
clicks Approve on the positive, types a reason and clicks Reject on the negative; then approves
another pair's positive and negative together with the pair's one button. After each click the task
files and the store's review_event mirror hold the decisions under the reviewer's name. The page
requests nothing outside this machine. The screenshot is kept as tests/artifacts/review-page.png.
"""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from headless_chromium import HeadlessChromium, chromium_executable, is_outside, wait_until
from demo_world import ARTIFACTS, TRACE2TASK, make_world, run_stages, write_drop
from webserver_process import free_port, stop

CHROMIUM = chromium_executable()
REVIEWER = "bob"
REASON = "the negative's seed does not cross the boundary"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.xdist_group("ui_browser"),
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)"),
]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _centre(browser: HeadlessChromium, selector: str) -> list[float] | None:
    """The element scrolled into view and its on-screen centre, or None when it is absent."""
    return browser.evaluate(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
        " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
        " return r.width && r.height ? [r.x + r.width / 2, r.y + r.height / 2] : null; })()"
    )


def _click(browser: HeadlessChromium, selector: str) -> None:
    point = wait_until(lambda: _centre(browser, selector), timeout=30)
    assert point, f"nothing to click: {selector}"
    browser.click_at(*point)


def _text(browser: HeadlessChromium, selector: str) -> str | None:
    return browser.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); return e && e.innerText; }})()")


def _decided(run_folder: Path, task_id: str) -> tuple[dict, list[dict]]:
    """The task file's decisions and the store's mirrored verdicts for `task_id`."""
    from pipelines.cli.review import Workspace
    from pipelines.store.rows import ReviewEventRow
    from taskgen.output import find_task_file

    workspace = Workspace(run_folder / "trace2task.yaml", None)
    document = json.loads(find_task_file(workspace.out, task_id).read_text(encoding="utf-8"))
    rows = workspace.store().rows(ReviewEventRow, ReviewEventRow.task_id == task_id)
    verdicts = [json.loads(row.body) for row in sorted(rows, key=lambda r: r.seq) if row.kind == "verdict"]
    workspace.store().dispose()
    return document, verdicts


def _other_pair(out: Path, taken: str) -> tuple[str, list[str]]:
    """Another whole pair, both tasks still drafts: (pair id, [positive id, negative id])."""
    tasks = [json.loads(path.read_text(encoding="utf-8")) for path in sorted((out / "tasks").rglob("*.json"))]
    by_pair: dict[str, dict[str, str]] = {}
    for task in tasks:
        if task["pair_id"] != taken and task["status"] == "draft":
            by_pair.setdefault(task["pair_id"], {})[task["polarity"]] = task["task_id"]
    pair_id, members = next((p, m) for p, m in sorted(by_pair.items()) if len(m) == 2)
    return pair_id, [members["positive"], members["negative"]]


def _pair(out: Path) -> tuple[str, str, str]:
    """A pair whose positive has open review questions (approving it asks for the confirmation):
    (pair id, positive id, negative id)."""
    tasks = [json.loads(path.read_text(encoding="utf-8")) for path in sorted((out / "tasks").rglob("*.json"))]
    by_pair: dict[str, dict[str, dict]] = {}
    for task in tasks:
        by_pair.setdefault(task["pair_id"], {})[task["polarity"]] = task
    pair_id, members = next((p, m) for p, m in sorted(by_pair.items())
                            if len(m) == 2 and m["positive"]["review_questions"])
    return pair_id, members["positive"]["task_id"], members["negative"]["task_id"]


def test_a_reviewer_approves_and_rejects_with_clicks(tmp_path):
    run = make_world(tmp_path / "run", drop=write_drop(tmp_path, sessions=20, days=1))
    run_stages(run.config).store.dispose()  # what `trace2task run --all` writes, without Dagster
    pair_id, positive, negative = _pair(run.out)
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "review-serve.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [TRACE2TASK, "review", "serve", "--config", str(run.config), "--port", str(port), "--reviewer", REVIEWER],
            cwd=run.root, stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            up = wait_until(lambda: server.poll() is not None or _answers(base_url + "/"), timeout=60)
            assert up and server.poll() is None, f"review serve did not start; see {log_path}"
            with HeadlessChromium(CHROMIUM, tmp_path / "chromium-profile") as browser:
                browser.navigate(base_url + "/")
                assert wait_until(lambda: _centre(browser, f'a[href^="/pair/{pair_id}"]'), timeout=30), "no task list"
                _click(browser, f'a[href^="/pair/{pair_id}"]')
                assert wait_until(lambda: _centre(browser, f"#approve-button-{positive}"), timeout=30), "no pair page"

                _click(browser, f"#force-{positive}")  # "approve over 1 open review question(s) (recorded)"
                assert browser.evaluate(f"document.querySelector('#force-{positive}').checked")
                _click(browser, f"#approve-button-{positive}")
                assert wait_until(lambda: (_text(browser, "#notice") or "").endswith(f"{positive}: approved"), timeout=30), \
                    _text(browser, "#error")
                document, verdicts = _decided(run.root, positive)
                assert document["status"] == "approved" and document["reviews"][-1]["reviewer"] == REVIEWER
                assert [(v["status"], v["reviewer"]) for v in verdicts] == [("approved", REVIEWER)]
                assert verdicts[0]["forced"] == document["reviews"][-1]["forced"]
                assert any("open review question" in item for item in verdicts[0]["forced"])

                _click(browser, f"#reason-{negative}")
                browser.send("Input.insertText", {"text": REASON})
                _click(browser, f"#reject-button-{negative}")
                assert wait_until(lambda: (_text(browser, "#notice") or "").endswith(f"{negative}: rejected"), timeout=30), \
                    _text(browser, "#error")
                document, verdicts = _decided(run.root, negative)
                assert (document["status"], document["reviews"][-1]["reason"]) == ("rejected", REASON)
                assert [(v["status"], v["reviewer"], v["reason"]) for v in verdicts] == [("rejected", REVIEWER, REASON)]
                assert _text(browser, f'[data-status="{positive}"]') == "approved"
                browser.screenshot(ARTIFACTS / "review-page.png")

                # the positive and its negative of another pair, approved together with one click
                other, both = _other_pair(run.out, pair_id)
                browser.navigate(f"{base_url}/pair/{other}")
                assert wait_until(lambda: _centre(browser, "#approve-pair-button"), timeout=30), "no pair buttons"
                if _centre(browser, "#force-pair"):  # one of them has open questions or validation issues
                    _click(browser, "#force-pair")
                _click(browser, "#approve-pair-button")
                assert wait_until(lambda: (_text(browser, "#notice") or "").endswith(f"pair {other}: approved"), timeout=30), \
                    _text(browser, "#error")
                for task_id in both:
                    document, verdicts = _decided(run.root, task_id)
                    assert (document["status"], document["reviews"][-1]["reviewer"]) == ("approved", REVIEWER)
                    assert [(v["status"], v["reviewer"]) for v in verdicts] == [("approved", REVIEWER)]
                    assert _text(browser, f'[data-status="{task_id}"]') == "approved"
                requested = browser.requested_urls
        finally:
            stop(server)
    assert any(url.startswith(f"{base_url}/pair/{pair_id}") for url in requested)
    assert [url for url in requested if is_outside(url)] == []
