"""`make bench-scale` (`python -m bench.scale`): one day of N sessions, and of N/10, end to end.

Each size is a drop of one day (`trace2task demo-data --days 1`), run as production runs it:
`trace2task run --all` in a fresh subprocess with a fresh store, the whole process tree's
memory sampled from /proc (bench/measure.py). The pipeline's own telemetry (`telemetry.exporter:
file`) gives the seconds of each stage: every stage is a span, and the landing span says how
much of its time went to parsing the files and how much to writing the raw zone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import date, datetime, timezone
from pathlib import Path

from bench.measure import run_measured
from ingest.demo import generate_drop

RESULTS = Path(__file__).resolve().parent / "results"
TRACE2TASK = str(Path(sys.executable).with_name("trace2task"))
SECRET = "bench-secret-of-32-bytes-or-more-000000"
START = date(2026, 11, 16)
DEFAULT_SESSIONS = 100_000
STAGES = {
    # report name: the pipeline spans (trace2task.<stage>) it sums
    "parsing": (), "landing": (),  # from the `land` spans' attributes
    "assembly": ("assemble",), "classification": ("classify",), "sampling": ("sample",),
    "scrubbing": ("scrub", "residue_check"), "freezing": ("freeze",), "drafting": ("draft",),
    "validation": ("validate",),
}


def _write_config(folder: Path, drop: Path) -> Path:
    path = folder / "trace2task.yaml"
    path.write_text(
        f"drop: {drop}\n"
        f"state:\n  location: sqlite:///{drop}/state/shop.db\n  mapping: {drop}/state/mapping.yaml\n"
        "store:\n  url: sqlite:///store/store.db\n  raw_url: sqlite:///store/raw.db\n"
        "output: out\n"
        "dagster_home: dagster_home\n"
        "telemetry:\n  exporter: file\n  path: spans.jsonl\n",
        encoding="utf-8",
    )
    return path


def _seconds(span: dict) -> float:
    start = datetime.fromisoformat(span["start_time"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(span["end_time"].replace("Z", "+00:00"))
    return (end - start).total_seconds()


def _interval(span: dict) -> tuple[datetime, datetime]:
    parse = lambda text: datetime.fromisoformat(text.replace("Z", "+00:00"))  # noqa: E731
    return parse(span["start_time"]), parse(span["end_time"])


def stage_seconds(spans_path: Path) -> tuple[dict[str, float], dict[str, float]]:
    """Seconds per stage, summed over the day's partitions, from the run's span file; and where
    the rest of the time went: Dagster's own share of the runs (run spans less their stages) and
    the time outside the runs (the CLI's start and landing, the summary)."""
    spans = [json.loads(line) for line in spans_path.read_text(encoding="utf-8").splitlines()]
    by_span: dict[str, float] = defaultdict(float)
    parse = 0.0
    for span in spans:
        name = span["name"].removeprefix("trace2task.")
        by_span[name] += _seconds(span)
        if name == "land":
            parse += float(span["attributes"].get("trace2task.parse_seconds", 0.0))
    figures = {"parsing": parse, "landing": by_span["land"] - parse}
    for stage, names in STAGES.items():
        if names:
            figures[stage] = sum(by_span[name] for name in names)
    runs = [_interval(span) for span in spans if span["name"] == "trace2task.run"]
    in_runs = sum(by_span[name] for names in STAGES.values() for name in names) + by_span["ingest"]
    rest = {
        "runs": by_span["run"],
        "dagster_in_runs": by_span["run"] - in_runs,
        "runs_wall": (max(end for _, end in runs) - min(start for start, _ in runs)).total_seconds() if runs else 0.0,
    }
    return ({stage: round(seconds, 3) for stage, seconds in figures.items()},
            {name: round(seconds, 3) for name, seconds in rest.items()})


def _records(folder: Path) -> int:
    """Source records the store read: accepted (ledger) plus quarantined at ingest."""
    import sqlite3

    with sqlite3.connect(folder / "store" / "store.db") as db:
        ledger = db.execute("select count(*) from ledger").fetchone()[0]
        quarantined = db.execute("select count(*) from quarantine where stage = 'ingest'").fetchone()[0]
    return ledger + quarantined


def run_day(root: Path, sessions: int, *, seed: int, workers: int) -> dict:
    folder = root / f"n{sessions}-seed{seed}"
    drop = folder / "drop"
    for made in ("store", "out", "dagster_home", "spans.jsonl"):  # a fresh run, whatever ran here before
        path = folder / made
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    generated = None
    if not (folder / "drop.complete").exists():  # a drop generated into --workdir before is used again
        shutil.rmtree(drop, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        print(f"generating one day of {sessions} sessions ...", flush=True)
        started = time.perf_counter()
        generate_drop(drop, sessions=sessions, days=1, seed=seed, start=START)
        generated = round(time.perf_counter() - started, 3)
        (folder / "drop.complete").write_text(f"{generated}\n", encoding="utf-8")
    config = _write_config(folder, drop)
    env = dict(os.environ, TRACE2TASK_SECRET=SECRET)
    print(f"trace2task run --all, {sessions} sessions, {workers} workers ...", flush=True)
    measured = run_measured(
        [TRACE2TASK, "run", "--all", "--config", str(config), "--workers", str(workers)], cwd=folder, env=env
    )
    if measured.returncode not in (0, 1):  # 1: a check failed; the figures still stand, and say so
        raise SystemExit(f"trace2task run failed ({measured.returncode}): {measured.stderr_tail}")
    records = _records(folder)
    stages, rest = stage_seconds(folder / "spans.jsonl")
    return {
        "sessions_per_day": sessions,
        "records": records,
        "seconds": round(measured.seconds, 3),
        "peak_rss_mb": round(measured.peak_rss_mb, 1),
        "seconds_per_thousand_sessions": round(1000 * measured.seconds / sessions, 3),
        "stage_seconds": stages,
        "stage_shares": {k: round(v / measured.seconds, 3) for k, v in stages.items()},
        "runs_seconds": rest["runs"],  # the day's partitions' runs, summed (they run two at a time)
        "dagster_in_runs_seconds": rest["dagster_in_runs"],  # the runs less their stages: Dagster's steps
        "outside_runs_seconds": round(measured.seconds - rest["runs_wall"], 3),  # the CLI: start, landing, summary
        "exit_code": measured.returncode,
        "generate_seconds": generated,  # None: the drop was generated by an earlier run in --workdir
    }


def _load() -> dict:
    """The machine's load when the run ended (`uptime`): the figures are from a shared machine."""
    uptime = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    return {"uptime": uptime, "cpus": os.cpu_count()}


def measure(root: Path, *, sessions: int, seed: int, workers: int) -> dict:
    small = run_day(root, max(2, sessions // 10), seed=seed, workers=workers)
    small["load"] = _load()
    large = run_day(root, sessions, seed=seed, workers=workers)
    large["load"] = _load()
    return {
        "params": {"sessions": sessions, "seed": seed, "workers": workers, "days": 1},
        **{k: large[k] for k in ("sessions_per_day", "records", "seconds", "peak_rss_mb", "stage_seconds")},
        "n": large,
        "n_over_10": small,
        "linearity": {
            "seconds_per_thousand_n": large["seconds_per_thousand_sessions"],
            "seconds_per_thousand_n_over_10": small["seconds_per_thousand_sessions"],
            "ratio": round(large["seconds_per_thousand_sessions"] / small["seconds_per_thousand_sessions"], 3),
            # per stage: its seconds per session at N over the same at N/10 (1.0 is linear)
            "stage_ratio": {
                stage: round((seconds / large["sessions_per_day"]) / (small["stage_seconds"][stage] / small["sessions_per_day"]), 3)
                for stage, seconds in large["stage_seconds"].items() if small["stage_seconds"][stage]
            },
        },
        "peak_rss_n_over_n_over_10": round(large["peak_rss_mb"] / small["peak_rss_mb"], 3),
    }


def table(result: dict) -> str:
    small, large = result["n_over_10"], result["n"]
    rows = [("", f"N/10 = {small['sessions_per_day']}", f"N = {large['sessions_per_day']}")]
    for label, key in (("records", "records"), ("seconds", "seconds"), ("peak RSS MB", "peak_rss_mb"),
                       ("s per 1000 sessions", "seconds_per_thousand_sessions")):
        rows.append((label, str(small[key]), str(large[key])))
    for stage in large["stage_seconds"]:
        rows.append((f"  {stage} s (share)", f"{small['stage_seconds'][stage]} ({small['stage_shares'][stage]:.0%})",
                     f"{large['stage_seconds'][stage]} ({large['stage_shares'][stage]:.0%})"))
    for label, key in (("runs s (summed)", "runs_seconds"), ("  Dagster in runs s", "dagster_in_runs_seconds"),
                       ("outside runs s (CLI)", "outside_runs_seconds")):
        rows.append((label, str(small[key]), str(large[key])))
    width = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join(f"{a:<{width[0]}}  {b:>{width[1]}}  {c:>{width[2]}}" for a, b, c in rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=DEFAULT_SESSIONS, help="sessions in the day (N); N/10 runs too")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--workers", type=int, default=2, help="the CLI's --workers")
    parser.add_argument("--workdir", type=Path, help="keep the drops, stores and outputs here (its drops are used again)")
    args = parser.parse_args(argv)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="trace2task-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        result = measure(root.resolve(), sessions=args.sessions, seed=args.seed, workers=args.workers)
    finally:
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    print(table(result))
    print(f"load: {result['n']['load']['uptime']}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = "" if args.sessions == DEFAULT_SESSIONS else f"-n{args.sessions}"
    path = RESULTS / f"{datetime.now(timezone.utc):%Y-%m-%d}-scale{suffix}.json"
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"written: {path}")


if __name__ == "__main__":
    main()
