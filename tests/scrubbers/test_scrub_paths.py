import io
import json
from pathlib import Path

import pytest

from scrubbers import Scrubber, scrub_path


def write_tree(root: Path) -> None:
    (root / "tickets").mkdir(parents=True)
    (root / "tickets" / "t1.json").write_text(
        json.dumps({"id": "ZD-1", "requester": {"email": "jane.gonzalez@gmail.com"}, "body": "Jane Gonzalez says #W1234567 is late"}, indent=2)
    )
    (root / "traces.jsonl").write_text(
        json.dumps({"msg": "lookup jane.gonzalez@gmail.com"}) + "\nnot json, call (415) 555-0132\n"
    )
    (root / "notes.txt").write_text("Customer Jane Gonzalez, card 4111-1111-1111-1111, refund $12.34\n")
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00jane")


def test_folder_is_copied_scrubbed_in_the_same_shape(tmp_path: Path, scrubber: Scrubber) -> None:
    write_tree(tmp_path / "drop")
    result = scrub_path(tmp_path / "drop", tmp_path / "out", scrubber)
    assert result.output == str(tmp_path / "out") and result.files_written == 3 and result.files_skipped == 1
    ticket_text = (tmp_path / "out" / "tickets" / "t1.json").read_text()
    ticket = json.loads(ticket_text)
    assert ticket_text == json.dumps(ticket, indent=2)
    assert ticket["id"] == "ZD-1" and "#W1234567 is late" in ticket["body"]
    lines = (tmp_path / "out" / "traces.jsonl").read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["msg"].startswith("lookup ")
    notes = (tmp_path / "out" / "notes.txt").read_text()
    assert "$12.34" in notes
    everything = ticket_text + "\n".join(lines) + notes
    for original in ("gonzalez", "4111", "555-0132"):
        assert original not in everything.lower()
    assert not (tmp_path / "out" / "blob.bin").exists()
    assert result.counts["PERSON"] >= 2 and result.counts["EMAIL_ADDRESS"] == 2
    assert ticket["requester"]["email"] in lines[0]


def test_single_file_defaults_to_a_scrubbed_sibling(tmp_path: Path, scrubber: Scrubber) -> None:
    source = tmp_path / "note.txt"
    source.write_text("ping @rosey_w")
    result = scrub_path(source, None, scrubber)
    assert result.output == str(tmp_path / "note.scrubbed.txt")
    assert "rosey_w" not in Path(result.output).read_text() and source.read_text() == "ping @rosey_w"


def test_dash_reads_stdin_and_writes_stdout(monkeypatch: pytest.MonkeyPatch, capsys, scrubber: Scrubber) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Call Jane Gonzalez at (415) 555-0132"))
    result = scrub_path("-", None, scrubber)
    out = capsys.readouterr().out
    assert result.output == "-" and "Gonzalez" not in out and "555-0132" not in out and out.startswith("Call ")
