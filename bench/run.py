"""`make bench` (`python -m bench.run`): the figures in bench/README.md, printed and written as JSON.

Every pipeline run is `trace2task` in a fresh subprocess, as production runs it; the floor and the
scrub stage are timed in this process over the items the first nightly run's scrub stage saw.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from datetime import date, datetime, timezone
from pathlib import Path

from bench.drop import BenchDrop, append_held_day, make_drop
from bench.measure import Measured, run_measured
from bench.texts import load_workload, time_every_session_floor, time_floor_and_scrub
from pipelines.config import load_config
from pipelines.stages.context import RunContext
from pipelines.store.rows import LedgerRow, QuarantineRow
from pipelines.store.repository import Store

RESULTS = Path(__file__).resolve().parent / "results"
TRACE2TASK = str(Path(sys.executable).with_name("trace2task"))
SECRET = "bench-secret-of-32-bytes-or-more-000000"
WORKERS = 2
"""Partitions the end-to-end runs spread over (the CLI's default), and processes of the parallel floor."""
REPEATS = 3
"""The no-op rerun is timed this many times and the end-to-end run twice (a fresh store each);
each figure is its fastest, as for the floor and the scrub stage."""
START = date(2026, 11, 16)
TARGETS = {
    "scrub_over_floor": (">=", 0.8),
    "e2e_over_floor": (">=", 0.6),
    "noop_rerun_over_full_run": ("<", 0.05),
    "peak_memory_4n_over_n": ("<=", 1.2),
}


def _write_config(folder: Path, drop: Path, name: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(
        f"drop: {drop}\n"
        f"state:\n  location: sqlite:///{drop}/state/shop.db\n  mapping: {drop}/state/mapping.yaml\n"
        f"store:\n  url: sqlite:///{name}/store.db\n  raw_url: sqlite:///{name}/raw.db\n"
        f"output: {name}/out\n"
        f"dagster_home: {name}/dagster_home\n",
        encoding="utf-8",
    )
    return path


def _trace2task(env: dict[str, str], cwd: Path, *args: str) -> Measured:
    measured = run_measured([TRACE2TASK, *args], cwd=cwd, env=env)
    if measured.returncode != 0:
        raise SystemExit(f"trace2task {' '.join(args)} failed ({measured.returncode}): {measured.stderr_tail}")
    return measured


def _records(config_path: Path) -> int:
    """Source records the store has read: accepted (ledger) and quarantined at ingest."""
    config = load_config(config_path)
    store = Store(config.sqlalchemy_url(config.store.url), config.sqlalchemy_url(config.store.raw_url))
    try:
        return store.count(LedgerRow) + store.count(QuarantineRow, QuarantineRow.stage == "ingest")
    finally:
        store.dispose()


def _first_escalation_id(bench_drop: BenchDrop) -> str:
    first_file = sorted((bench_drop.drop / "escalations").glob("*.jsonl"))[0]
    return json.loads(first_file.read_text(encoding="utf-8").splitlines()[0])["id"]


def _ratio(numerator: float, denominator: float) -> float:
    return round(numerator / denominator, 3) if denominator else 0.0


def _rate(records: int, seconds: float) -> float:
    return round(records / seconds, 1) if seconds else 0.0


def measure(root: Path, *, sessions: int, days: int, seed: int, scale: int) -> dict:
    env = dict(os.environ, TRACE2TASK_SECRET=SECRET)
    os.environ["TRACE2TASK_SECRET"] = SECRET  # the in-process scrubber reads the same secret
    base = make_drop(root / "n", sessions=sessions, days=days, seed=seed, start=START)
    nightly = _write_config(root / "n", base.drop, "nightly")
    nightly_again = _write_config(root / "n", base.drop, "nightly_again")
    one_worker = _write_config(root / "n", base.drop, "one_worker")
    run_all = ("run", "--all", "--config")

    print(f"end-to-end run, {sessions} sessions over {days} days, 2 workers, twice ...", flush=True)
    full = _trace2task(env, root, *run_all, str(nightly), "--workers", str(WORKERS))
    again = _trace2task(env, root, *run_all, str(nightly_again), "--workers", str(WORKERS))
    full_seconds = min(full.seconds, again.seconds)
    records = _records(nightly)
    print(f"no-op rerun, {REPEATS} times ...", flush=True)
    noop_seconds = min(
        _trace2task(env, root, *run_all, str(nightly), "--workers", str(WORKERS)).seconds for _ in range(REPEATS)
    )
    print("end-to-end run, 1 worker ...", flush=True)
    single = _trace2task(env, root, *run_all, str(one_worker), "--workers", "1")

    print("floor (spaCy NER alone) and scrub stage over the sampled sessions ...", flush=True)
    timings = time_floor_and_scrub(RunContext(load_config(nightly)), load_workload(load_config(nightly)), WORKERS)
    print("floor over every session, sampled or not (2 processes) ...", flush=True)
    all_sessions, every_session_floor = time_every_session_floor(RunContext(load_config(nightly)), WORKERS)

    print(f"rerun after appending {base.held_day} ...", flush=True)
    append_held_day(base)
    appended = _trace2task(env, root, *run_all, str(nightly), "--workers", str(WORKERS))
    appended_records = _records(nightly) - records
    incident_id = _first_escalation_id(base)
    print(f"on-call path, incident {incident_id}, cold process ...", flush=True)
    incident = _trace2task(env, root, "incident", incident_id, "--config", str(nightly))

    print(f"end-to-end run, {scale * sessions} sessions, 2 workers (memory) ...", flush=True)
    big = make_drop(root / "scaled", sessions=scale * sessions, days=days, seed=seed, start=START)
    big_config = _write_config(root / "scaled", big.drop, "nightly")
    scaled = _trace2task(env, root, *run_all, str(big_config), "--workers", str(WORKERS))
    scaled_records = _records(big_config)

    ratios = {
        "scrub_over_floor": _ratio(timings.floor_seconds, timings.scrub_seconds),
        "e2e_over_floor": _ratio(timings.parallel_floor_seconds, full_seconds),
        "e2e_over_every_session_floor": _ratio(every_session_floor, full_seconds),
        "noop_rerun_over_full_run": _ratio(noop_seconds, full_seconds),
        "peak_memory_4n_over_n": _ratio(scaled.peak_rss_mb, full.peak_rss_mb),
        "workers_2_over_1_throughput": _ratio(single.seconds, full_seconds),
    }
    return {
        "params": {"sessions": sessions, "days": days, "seed": seed, "scale": scale, "cpus": os.cpu_count()},
        "workload": {
            "records": records, "appended_records": appended_records, "scaled_records": scaled_records,
            "sessions": all_sessions, "scrubbed_sessions": timings.sessions,
            "texts": timings.texts, "ner_texts": timings.ner_texts,
            "characters": timings.characters,
        },
        "seconds": {
            "floor": round(timings.floor_seconds, 3), "scrub": round(timings.scrub_seconds, 3),
            "floor_workers_2": round(timings.parallel_floor_seconds, 3),
            "every_session_floor_workers_2": round(every_session_floor, 3),
            "e2e_workers_2": round(full_seconds, 3), "e2e_workers_1": round(single.seconds, 3),
            "noop_rerun": round(noop_seconds, 3), "append_rerun": round(appended.seconds, 3),
            "incident_cold": round(incident.seconds, 3), "e2e_scaled": round(scaled.seconds, 3),
        },
        "records_per_second": {
            "floor": _rate(records, timings.floor_seconds), "scrub": _rate(records, timings.scrub_seconds),
            "floor_workers_2": _rate(records, timings.parallel_floor_seconds),
            "every_session_floor_workers_2": _rate(records, every_session_floor),
            "e2e_workers_2": _rate(records, full_seconds), "e2e_workers_1": _rate(records, single.seconds),
            "append_rerun": _rate(appended_records, appended.seconds),
            "e2e_scaled": _rate(scaled_records, scaled.seconds),
        },
        "texts_per_second": {
            "floor": _rate(timings.texts, timings.floor_seconds), "scrub": _rate(timings.texts, timings.scrub_seconds),
        },
        "peak_rss_mb": {"n": round(full.peak_rss_mb, 1), "scaled": round(scaled.peak_rss_mb, 1)},
        "ratios": ratios,
        "targets_met": {name: _meets(ratios[name], *TARGETS[name]) for name in TARGETS},
    }


def _meets(value: float, op: str, bound: float) -> bool:
    return {">=": value >= bound, "<": value < bound, "<=": value <= bound}[op]


def table(result: dict) -> str:
    rows = [("figure", "seconds", "records/s")]
    for name, seconds in result["seconds"].items():
        rate = result["records_per_second"].get(name)
        rows.append((name, f"{seconds:.2f}", "" if rate is None else f"{rate:.1f}"))
    rows.append(("", "", ""))
    rows.append(("ratio", "value", "target"))
    for name, value in result["ratios"].items():
        target = " ".join(map(str, TARGETS[name])) if name in TARGETS else ""
        met = "" if name not in TARGETS else (" met" if result["targets_met"][name] else " NOT met")
        rows.append((name, f"{value:.3f}", target + met))
    rows.append(("peak RSS MB (N, 4N)", f"{result['peak_rss_mb']['n']:.0f}", f"{result['peak_rss_mb']['scaled']:.0f}"))
    width = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join(f"{a:<{width[0]}}  {b:>{width[1]}}  {c:>{width[2]}}".rstrip() for a, b, c in rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000, help="sessions in the drop (N)")
    parser.add_argument("--days", type=int, default=3, help="days the N sessions spread over")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--scale", type=int, default=4, help="the memory run uses scale x N sessions")
    parser.add_argument("--workdir", type=Path, help="keep the drops, stores and outputs here")
    args = parser.parse_args(argv)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="trace2task-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        result = measure(root.resolve(), sessions=args.sessions, days=args.days, seed=args.seed, scale=args.scale)
    finally:
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    print(table(result))
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{datetime.now(timezone.utc):%Y-%m-%d}-n{args.sessions}.json"
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"written: {path}")


if __name__ == "__main__":
    main()
