"""Write ``harness/targets/REPORT.md``: per real library and version, the verdict of
every case x wire, the triage of every cell that is not a plain pass or ``n/a``, the
A/B tables and the timings.

``python -m harness.targets.report`` renders from ``harness/targets/results/`` (the JSON
reports the tox envs leave there); ``--run`` first runs every library's tox env (or the
ones named with ``--only``). The triage is written by hand, per library, in
``harness/targets/<library>/triage.toml`` keyed ``case[column]``; a red cell without a
triage entry is listed as UNTRIAGED, so a new failure cannot hide.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

from harness.targets.libraries import LIBRARIES

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
REPORT = HERE / "REPORT.md"
SHORT = {"pass": "pass", "fail": "FAIL", "error": "ERROR", "pinned": "pinned",
         "xfail": "xfail (pin)", "n/a": "n/a"}  # fmt: skip
KINDS = {
    "defect": "real library defect (pinned in the manifest)",
    "wrapper": "wrapper problem (fixed in the wrapper)",
    "false-positive": "false positive of the suite (fixed in the suite)",
    "not-real": "the library's reaction is accepted; nothing to fix",
    "open": "open: not settled yet (preliminary note)",
}


def _load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _notes(path: Path) -> dict[str, dict[str, str]]:
    if not path.is_file():
        return {}
    return {key: dict(value) for key, value in tomllib.loads(path.read_text("utf-8")).items()}


def triage_for(library: str) -> dict[str, dict[str, str]]:
    """The library's notes over the ones every library shares (``triage-common.toml``)."""
    return _notes(HERE / "triage-common.toml") | _notes(HERE / library / "triage.toml")


def _cell_key(result: dict[str, Any]) -> str:
    return f"{result['case']}[{result['wire']}]"


def manifest_pins(library: str) -> set[str]:
    path = HERE / library / "target.toml"
    if not path.is_file():
        return set()
    return set(tomllib.loads(path.read_text(encoding="utf-8")).get("pins", {}))


def matrix(report: dict[str, Any]) -> list[str]:
    """The verdict of every case x column; a red cell the manifest pins since the run was
    made says so (the next run of the tox env shows it as an xfail)."""
    columns = sorted({r["wire"] for r in report["results"]})
    pins = manifest_pins(report["target"])
    rows: dict[str, dict[str, str]] = {}
    for result in report["results"]:
        shown = SHORT[result["verdict"]]
        if result["verdict"] in ("fail", "error") and _cell_key(result) in pins:
            shown += " (pinned since)"
        rows.setdefault(result["case"], {})[result["wire"]] = shown
    lines = ["| case | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for case in sorted(rows):
        cells = [rows[case].get(column, "") for column in columns]
        lines.append(f"| {case} | " + " | ".join(cells) + " |")
    return lines


def triage_section(report: dict[str, Any], notes: dict[str, dict[str, str]]) -> list[str]:
    lines: list[str] = []
    for result in report["results"]:
        if result["verdict"] in ("pass", "n/a"):
            continue
        key = _cell_key(result)
        note = notes.get(key) or notes.get(f"{result['case']}[*]")
        lines.append(f"#### `{key}`: {result['verdict']}")
        lines.append("")
        if result.get("reason"):
            lines.append(f"Verdict reason: {result['reason']}")
            lines.append("")
        for violation in result.get("violations") or []:
            lines.append(f"- `{violation['check']}` ({violation['severity']}): "
                         f"{violation['message'][:400]}")  # fmt: skip
        if not note:
            lines += ["", "**UNTRIAGED**", ""]
            continue
        lines += ["", f"**{KINDS.get(note.get('kind', ''), note.get('kind', '?'))}.** "
                  f"{note.get('summary', '')}"]  # fmt: skip
        for field in ("bytes", "rule", "provider", "issue", "fix"):
            if note.get(field):
                lines.append(f"- {field}: {note[field]}")
        lines.append("")
    return lines


def library_section(path: Path) -> list[str]:
    report = _load_json(path)
    stem = path.stem
    library = report["target"]
    notes = triage_for(library)
    timing_path = path.with_suffix(".timing.json")
    lines = [f"## {stem}", ""]
    counts = Counter(r["verdict"] for r in report["results"])
    lines.append("Verdicts: " + ", ".join(f"{counts[v]} {v}" for v in SHORT if counts[v]) + ".")
    if timing_path.is_file():
        timing = _load_json(timing_path)
        lines.append(
            f"Wall time {timing['wall_seconds']} s for {timing['cells_run']} cells run "
            f"(-j {timing['jobs']}): {timing['seconds_per_cell']} s per cell."
        )
    lines += ["", "### Matrix", "", *matrix(report), "", "### Triage", ""]
    lines += triage_section(report, notes) or ["Nothing to triage.", ""]
    for ab in sorted(path.parent.glob(f"{stem}-vs-*.json")):
        table = _load_json(ab)
        lines += [f"### A/B: {table['target']} against {table['baseline']} ({ab.stem})", ""]
        lines.append("Summary: " + ", ".join(f"{n} {k}" for k, n in table["summary"].items()))
        lines += ["", "| case | column | now | baseline | flip |", "|---|---|---|---|---|"]
        for cell in table["cells"]:
            if cell["flip"] != "same":
                lines.append(f"| {cell['case']} | {cell['wire']} | {cell['target']} | "
                             f"{cell['baseline']} | {cell['flip']} |")  # fmt: skip
        lines.append("")
    return lines


def summary_table(reports: list[Path]) -> list[str]:
    """One row per library and version: the verdict counts and what the run cost."""
    lines = [
        "| library | version | pass | fail | xfail (pinned defect) | error | n/a | wall s "
        "| s per cell |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for path in reports:
        report = _load_json(path)
        counts = report["summary"]
        timing_path = path.with_suffix(".timing.json")
        timing = _load_json(timing_path) if timing_path.is_file() else {}
        version = path.stem.removeprefix(f"{report['target']}-")
        lines.append(
            f"| {report['target']} | {version} | {counts['pass']} | {counts['fail']} | "
            f"{counts['xfail']} | {counts['error']} | {counts['n/a']} | "
            f"{timing.get('wall_seconds', '?')} | {timing.get('seconds_per_cell', '?')} |"
        )
    return [*lines, ""]


def render() -> str:
    lines = [
        "# The suite on real client libraries",
        "",
        "Generated by `python -m harness.targets.report` from the JSON reports in",
        "`harness/targets/results/` (`--run` reruns the tox envs first). Each library is",
        "driven black-box over HTTP by its wrapper in `harness/targets/<library>/` against",
        "the loopback scripted provider; its manifest declares the wires and capabilities it",
        "honours and pins the real defects below. Every cell that is not a plain pass or",
        "`n/a` is triaged in `harness/targets/<library>/triage.toml`.",
        "",
    ]
    reports = sorted(p for p in RESULTS.glob("*.json")
                     if not p.name.endswith(".timing.json") and "-vs-" not in p.name)  # fmt: skip
    lines += summary_table(reports)
    fixes = HERE / "suite-fixes.md"
    if fixes.is_file():
        lines += [fixes.read_text(encoding="utf-8").rstrip(), ""]
    for name in LIBRARIES:
        found = [p for p in reports if _load_json(p)["target"] == name]
        if not found:
            lines += [f"## {name}", "", "Not run yet: `tox -e " + name + "`.", ""]
        notes = HERE / name / "NOTES.md"
        if notes.is_file():
            lines += [notes.read_text(encoding="utf-8").rstrip(), ""]
        for path in found:
            lines += library_section(path)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run the tox envs first")
    parser.add_argument("--only", nargs="*", choices=sorted(LIBRARIES), help="these envs")
    options = parser.parse_args(argv)
    if options.run:
        for name in options.only or list(LIBRARIES):
            subprocess.run([sys.executable, "-m", "tox", "-e", name], check=False)
    REPORT.write_text(render(), encoding="utf-8")
    print(f"wrote {REPORT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
