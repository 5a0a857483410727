"""Reviewers' decisions survive the on-call path, a rerun after a settings change, and a kill and rerun.

The first on-call run, the killed run and the rerun after it go through the installed command (the
processes a person starts and kills); the other reruns run the same stages in this process
(`run_stages`, byte for byte the command's output), which keeps the test to a few minutes."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from sqlalchemy import create_engine, text

from demo_world import first_escalation, run_stages



def _tasks(out) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((out / "tasks").rglob("*.json"))}


def _settings(ws, min_turns: int) -> None:
    """A settings change that redrafts every task: the minimum turn budget."""
    text_ = ws.config.read_text().split("taskgen:")[0]
    ws.config.write_text(text_ + f"taskgen:\n  budget:\n    min_turns: {min_turns}\n")


def _kill_when_budget_appears(process, out, turns: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the run ended (exit {process.returncode}) before any task was redrafted to kill it")
        for path in (out / "tasks").rglob("*.json"):
            try:
                if json.loads(path.read_text())["budget"]["turns"] == turns:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
                    return
            except (ValueError, OSError):
                continue
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    pytest.fail("no task was redrafted within the timeout")


def _review(ws, *args: str):
    """A review command, through the command's entry point in this process (it launches no run)."""
    result = ws.cli_in_process("review", *args, "--config", str(ws.config))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result


def test_approve_reject_retire_survive_incident_settings_change_and_kill(workspace):
    ws = workspace
    run_stages(ws.config).store.dispose()  # the first nightly, as `run --all` writes it (the decisions are the subject)
    escalation = first_escalation(ws.drop)
    assert ws.cli("incident", escalation, "--config", str(ws.config)).returncode == 0
    listed = _review(ws, "list", "--incident", escalation).stdout
    before = _tasks(ws.out)
    mine = [tid for tid in sorted(before) if tid in listed]
    assert mine, "the incident drafted no task"
    approved = next(tid for tid in mine if tid.endswith("-pos"))
    others = [tid for tid in sorted(before) if tid not in mine]
    rejected, retired = others[0], others[1]
    _review(ws, "approve", approved, "--force", "--reviewer", "ana")
    _review(ws, "reject", rejected, "--reason", "expected outcome unclear", "--reviewer", "ana")
    _review(ws, "retire", retired, "--reviewer", "ben")
    decided = {tid: t for tid, t in _tasks(ws.out).items() if tid in (approved, rejected, retired)}

    def rerun_incident() -> None:
        run_stages(ws.config, incident_id=escalation).store.dispose()

    def still_decided(changed: bool) -> None:
        now = _tasks(ws.out)
        for tid, then in decided.items():
            assert now[tid]["status"] == then["status"] and now[tid]["reviews"] == then["reviews"], tid
            assert bool(now[tid]["changed_since_review"]) is changed, tid
        assert now[rejected]["reviews"][-1]["reason"] == "expected outcome unclear"

    rerun_incident()
    still_decided(changed=False)

    _settings(ws, min_turns=40)
    run_stages(ws.config).store.dispose()  # the nightly after the settings change redrafts every task
    rerun_incident()
    still_decided(changed=True)
    assert _tasks(ws.out)[approved]["version"] == decided[approved]["version"] + 1
    assert approved in _review(ws, "list", "--changed").stdout

    _settings(ws, min_turns=41)
    process = ws.popen("run", "--all", "--config", str(ws.config), "--workers", "2")
    _kill_when_budget_appears(process, ws.out, 41)
    assert ws.run_all().returncode == 0
    rerun_incident()
    still_decided(changed=True)
    final = _tasks(ws.out)
    assert {t["budget"]["turns"] for t in final.values()} >= {41}
    assert final[approved]["version"] == decided[approved]["version"] + 2

    url = next(line.split(": ", 1)[1] for line in ws.config.read_text().splitlines() if line.strip().startswith("url:"))
    with create_engine(url).connect() as conn:
        mirrored = {(row.task_id, row.kind) for row in conn.execute(text("select task_id, kind from review_event"))}
    assert {(approved, "verdict"), (rejected, "verdict"), (retired, "verdict")} <= mirrored
