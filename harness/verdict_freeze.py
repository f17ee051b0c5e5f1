"""Freeze every verdict and report byte of the suite, and compare a later tree with it.

A refactor of the judge (one rule source, wires as packages, the cause of a verdict as
data, one option model) must not move a single verdict. This writes, for each target
the repository knows (the reference, every broken and accepted variant, the threaded
and chained clients, and the reference as a command on a slice of the library), the
JSON report and every saved exchange, with the timing fields removed; ``compare``
names every file that differs.

    python -m harness.verdict_freeze write DIR
    python -m harness.verdict_freeze compare DIR      # exit 1 and the differences

A report-version bump is the one difference allowed: ``--ignore-version`` drops
``report_version`` from both sides.  A field the refactor adds (the results' ``cause``
of report version 3) is dropped from both sides with ``--ignore-field NAME``
(repeatable), so that what remains must be byte for byte what the freeze holds:

    python -m harness.verdict_freeze compare DIR --ignore-version --ignore-field cause
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

#: Fields that measure the machine, not the suite.
TIMING_FIELDS = frozenset({"seconds", "elapsed", "duration", "wall_seconds"})

#: The command-kind slice: one case per family a command target exercises, kept small
#: because each cell is a process.
COMMAND_CASES = (
    "interleaved-episodes-across-tool-loop",
    "claude-empty-thinking-fragment-before-signature",
    "gemini-text-signature-in-trailing-empty-part",
    "responses-two-reasoning-items-before-one-function-call",
    "gemini-thought-after-call-stays-after-it",
    "empty-content-*",
)


def _targets() -> Iterator[tuple[str, list[str]]]:
    from harness.accepted import ACCEPTED_ADAPTERS
    from harness.broken import BROKEN_ADAPTERS

    yield "reference", ["--target", "reference"]
    for adapter in (*BROKEN_ADAPTERS, *ACCEPTED_ADAPTERS):
        spec = f"{adapter.__module__}:{adapter.__name__}"
        yield adapter.__name__, ["--target", spec, "--target-name", adapter.__name__]
    yield (
        "threaded",
        ["--target", "harness.threaded:ThreadedReference", "--target-name", "threaded"],
    )
    yield "chained", ["--target", "harness.chained:ChainedReference", "--target-name", "chained"]
    cases = [arg for case in COMMAND_CASES for arg in ("--case", case)]
    yield "reference-command", ["--target", "reference-command", "-j", "2", *cases]


def _strip(value: Any, dropped: frozenset[str]) -> Any:
    """``value`` without the timing fields nor the ``dropped`` keys, at any depth."""
    if isinstance(value, dict):
        return {
            key: _strip(item, dropped)
            for key, item in value.items()
            if key not in TIMING_FIELDS and key not in dropped
        }
    if isinstance(value, list):
        return [_strip(item, dropped) for item in value]
    return value


def _normalised(path: Path, dropped: frozenset[str] = frozenset()) -> str:
    data = json.loads(path.read_text(encoding="utf-8"))
    return json.dumps(_strip(data, dropped), indent=1, sort_keys=True) + "\n"


def dropped_keys(ignore_version: bool, ignore_fields: Sequence[str] = ()) -> frozenset[str]:
    """The keys a comparison leaves out on both sides: ``report_version`` when asked,
    and every ``--ignore-field``."""
    return frozenset(ignore_fields) | ({"report_version"} if ignore_version else set())


def write(out: Path) -> int:
    """Run every target and write its normalised report and exchanges under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    for name, args in _targets():
        with tempfile.TemporaryDirectory() as scratch:
            report = Path(scratch) / "report.json"
            exchanges = Path(scratch) / "exchanges"
            command = [sys.executable, "-m", "conformance", "run", "-q", "--progress", "off"]
            command += [*args, "--json", str(report), "--save-exchanges", str(exchanges)]
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if not report.exists():
                print(f"{name}: no report (exit {done.returncode})\n{done.stderr}", file=sys.stderr)
                return 2
            (out / f"{name}.report.json").write_text(_normalised(report), encoding="utf-8")
            for saved in sorted(exchanges.rglob("*.json")):
                flat = "__".join(saved.relative_to(exchanges).parts)
                target = out / "exchanges" / name / flat
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(_normalised(saved), encoding="utf-8")
            lines = done.stdout.strip().splitlines()
            print(f"{name}: {lines[-1] if lines else done.returncode}")
    return 0


def compare(frozen: Path, ignore_version: bool, ignore_fields: Sequence[str] = ()) -> int:
    """Write the current tree's freeze beside ``frozen`` and list every difference,
    leaving out ``report_version`` (``ignore_version``) and ``ignore_fields`` on both
    sides."""
    dropped = dropped_keys(ignore_version, ignore_fields)
    with tempfile.TemporaryDirectory() as scratch:
        now = Path(scratch) / "now"
        if write(now) != 0:
            return 2
        before = {p.relative_to(frozen) for p in frozen.rglob("*.json")}
        after = {p.relative_to(now) for p in now.rglob("*.json")}
        problems = [f"only in the freeze: {p}" for p in sorted(before - after)]
        problems += [f"only now: {p}" for p in sorted(after - before)]
        for rel in sorted(before & after):
            old = _normalised(frozen / rel, dropped)
            new = _normalised(now / rel, dropped)
            if old != new:
                diff = difflib.unified_diff(
                    old.splitlines(), new.splitlines(), str(rel), str(rel), lineterm="", n=2
                )
                problems.append("\n".join(list(diff)[:40]))
    for problem in problems:
        print(problem)
    print(f"{len(problems)} difference(s) against {frozen}")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.verdict_freeze")
    parser.add_argument("action", choices=("write", "compare"))
    parser.add_argument("directory", type=Path)
    parser.add_argument("--ignore-version", action="store_true", help="drop report_version")
    parser.add_argument(
        "--ignore-field",
        action="append",
        default=[],
        metavar="NAME",
        help="drop this key (at any depth) from both sides: a field the refactor adds",
    )
    options = parser.parse_args(argv)
    if options.action == "write":
        return write(options.directory)
    return compare(options.directory, options.ignore_version, options.ignore_field)


if __name__ == "__main__":
    raise SystemExit(main())
