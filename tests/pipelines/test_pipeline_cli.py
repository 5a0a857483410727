"""Errors for people: one line, a useful exit code, no traceback.

The command's entry point is called in this process (`demo_world.cli_in_process`); one test runs
the installed command, and the end-to-end tests elsewhere run it on whole days."""

import subprocess

import pytest
from demo_world import SECRET, TRACE2TASK, cli_env, cli_in_process


def _cli(tmp_path, *args, env_secret=True):
    return cli_in_process(args, cwd=tmp_path, secret=SECRET if env_secret else None)


@pytest.mark.parametrize(
    "args, message",
    [
        (("run", "--date", "yesterday"), "must be a date"),
        (("run", "--from", "2026-11-20"), "needs both --from and --to"),
        (("run", "--from", "2026-11-20", "--to", "2026-11-10"), "--to is before --from"),
        (("run", "--date", "2024-12-31"), "2024-12-31 is before the first partition 2026-11-16"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(world, args, message):
    result = world.cli_in_process(*args, "--config", str(world.config))
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_missing_config_file(tmp_path):
    result = _cli(tmp_path, "run", "--config", str(tmp_path / "nope.yaml"))
    assert result.returncode == 2 and "configuration file not found" in result.stderr
    assert "trace2task init" not in result.stderr  # no such command: the message names what exists


def test_bad_config_key_is_named(tmp_path):
    (tmp_path / "c.yaml").write_text("drop: d\nstate: {location: x, mapping: m.yaml}\nstore: {urll: x}\n")
    result = _cli(tmp_path, "run", "--config", str(tmp_path / "c.yaml"))
    assert result.returncode == 2 and "store.urll" in result.stderr


def test_missing_sources_folder(tmp_path):
    (tmp_path / "c.yaml").write_text("drop: nowhere\nstate: {location: x, mapping: m.yaml}\n")
    result = _cli(tmp_path, "run", "--config", str(tmp_path / "c.yaml"))
    assert result.returncode == 2 and "sources folder not found" in result.stderr


def test_missing_secret_is_explained(world):
    result = world.cli_in_process("run", "--config", str(world.config), "--date", "2026-11-16", secret=None)
    assert result.returncode == 2 and "no pseudonym secret" in result.stderr


def test_validate_missing_folder(tmp_path):
    result = _cli(tmp_path, "validate", str(tmp_path / "none"))
    assert result.returncode == 2 and "not a folder" in result.stderr


def test_the_installed_command_answers_an_unknown_command_with_a_usage_error(tmp_path):
    result = subprocess.run([TRACE2TASK, "frobnicate"], cwd=tmp_path, env=cli_env(SECRET), capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "frobnicate" in result.stderr


def test_scrub_a_file_and_standard_input(world, tmp_path):
    text = "Hi, this is Margaret Oyelaran, call me on +44 20 7946 0958 or mail m.oyelaran@gmail.com about #W1234567.\n"
    source = tmp_path / "note.txt"
    source.write_text(text)
    result = world.cli_in_process("scrub", str(source), "--out", str(tmp_path / "clean.txt"), "--config", str(world.config))
    assert result.returncode == 0, result.stderr
    cleaned = (tmp_path / "clean.txt").read_text()
    assert "Oyelaran" not in cleaned and "7946" not in cleaned and "gmail.com" not in cleaned
    assert "#W1234567" in cleaned
    assert "EMAIL_ADDRESS" in result.stdout

    piped = world.cli_in_process("scrub", "-", "--config", str(world.config), stdin=text)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == cleaned  # same engine, same secret: the same stand-ins
    assert "Oyelaran" not in piped.stderr


def test_ingest_check_json_shows_roles_and_tools_not_words_and_stores_nothing(tmp_path):
    """A dry run on a drop of real producer output: one JSON object, no text unless asked."""
    import json
    import shutil
    from pathlib import Path

    sample = Path(__file__).resolve().parents[1] / "conformance" / "samples" / "openllmetry-0.40"
    shutil.copytree(sample, tmp_path / "drop" / "traces")
    (tmp_path / "drop" / "error_logs").mkdir()
    (tmp_path / "drop" / "error_logs" / "app.log").write_text("not a log line\n")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    result = _cli(tmp_path, "ingest-check", "drop", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["sources"]["traces"]["accepted"] == 6
    assert report["sources"]["error_logs"]["reasons"] == {"line does not match the text log pattern": 1}
    [session] = report["sessions"]
    assert [t["role"] for t in session["turns"]] == ["system", "user", "agent", "user", "agent"]
    assert [(c["name"], c["status"]) for c in session["tool_calls"]] == [("get_order_details", "ok"), ("refund_order", "ok")]
    assert "W2611340" not in result.stdout and all("text" not in t for t in session["turns"])
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_ingest_check_of_a_drop_without_sessions_fails(tmp_path):
    (tmp_path / "drop" / "traces").mkdir(parents=True)
    result = _cli(tmp_path, "ingest-check", "drop")
    assert result.returncode == 1 and "no session" in result.stderr
