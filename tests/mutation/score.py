"""`make mutation`: mutmut over the judging modules, then the score per module.

    python tests/mutation/score.py [--no-run]

Runs `mutmut run` (configured in pyproject.toml, [tool.mutmut]: the modules mutated and the tests
that cover them), then reads mutmut's results (mutants/<module>.meta) and prints, per module,
mutants killed / mutants tested. Survivors listed in tests/mutation/equivalent.yaml (the mutant's
name and why no test can tell it apart) are counted apart; every other survivor is printed.
Exit 1 when a module scores below the goal (90%) counting equivalents as killed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
GOAL = 0.90
KILLED = {1, 3, 36, 37, -24, 24, 152, 255}  # a failing test, an internal pytest error, a timeout, a type check
SURVIVED = {0, 5, 33}  # every test passed, or no test covers the mutated line
NOT_TESTED = {None, 34}  # not run yet, skipped


def modules() -> list[str]:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    return list(config["only_mutate"])


def equivalents() -> dict[str, str]:
    path = Path(__file__).with_name("equivalent.yaml")
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {} if path.is_file() else {}


def results(module: str) -> dict[str, int | None]:
    meta = ROOT / "mutants" / f"{module}.meta"
    if not meta.is_file():
        return {}
    return json.loads(meta.read_text(encoding="utf-8")).get("exit_code_by_key", {})


def link_shared_data() -> None:
    """The tests read the public data from ../shared beside the repository; mutmut runs them inside mutants/, one
    level deeper, where they would find nothing and skip (every mutant only those tests judge surviving)."""
    shared, link = ROOT.parent / "shared", ROOT / "shared"
    if shared.is_dir() and not link.exists():
        link.symlink_to(shared)


def forget_survivors() -> None:
    """mutmut keeps a survivor's result until its function changes: forget it so new tests try it again."""
    for module in modules():
        meta = ROOT / "mutants" / f"{module}.meta"
        if meta.is_file():
            data = json.loads(meta.read_text(encoding="utf-8"))
            codes = data.get("exit_code_by_key", {})
            data["exit_code_by_key"] = {name: None if code in SURVIVED else code for name, code in codes.items()}
            meta.write_text(json.dumps(data), encoding="utf-8")


def table() -> tuple[list[str], bool]:
    known = equivalents()
    lines = ["| module | mutants | killed | equivalent | survived | not tested | score | score with equivalents |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    survivors, below = [], False
    for module in modules():
        codes = results(module)
        killed = sum(code in KILLED for code in codes.values())
        lived = sorted(name for name, code in codes.items() if code in SURVIVED)
        equivalent = [name for name in lived if name in known]
        untested = sum(code in NOT_TESTED for code in codes.values())
        tested = killed + len(lived)
        score = killed / tested if tested else 0.0
        with_equivalents = (killed + len(equivalent)) / tested if tested else 0.0
        below |= with_equivalents < GOAL
        lines.append(f"| {module} | {len(codes)} | {killed} | {len(equivalent)} | {len(lived) - len(equivalent)} | {untested} | "
                     f"{score:.0%} | {with_equivalents:.0%} |")
        survivors += [name for name in lived if name not in known]
    return lines + [""] + [f"survived: {name}" for name in survivors], below


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-run", action="store_true", help="only read the results of the last run")
    parser.add_argument("--retest-survivors", action="store_true", help="forget the survivors' results first (after new tests)")
    args = parser.parse_args()
    if args.retest_survivors:
        forget_survivors()
    if not args.no_run:
        link_shared_data()
        subprocess.run([str(Path(sys.executable).with_name("mutmut")), "run"], cwd=ROOT, check=False)
    lines, below = table()
    print("\n".join(lines))
    for name, reason in sorted(equivalents().items()):
        print(f"equivalent: {name}: {reason}")
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
