"""Write ``harness/targets/REPORT.md``: per real library and version, the verdict of
every case x wire, the triage of every cell that is not a plain pass or ``n/a``, the
A/B tables and the timings.

``python -m harness.targets.report`` renders from ``harness/targets/results/`` (the JSON
reports the tox envs leave there); ``--run`` first runs every library's tox env (or the
ones named with ``--only``). The triage is written by hand, per library, in
``harness/targets/<library>/triage.toml`` keyed ``case[column]``; a red cell without a
triage entry is listed as UNTRIAGED, so a new failure cannot hide. A library's real
defects, one report each ready to file upstream, are written in
``harness/targets/<library>/upstream.toml`` (see ``upstream_section``).  ``--html``
also writes the compatibility page (``harness.targets.compat``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from conformance._cases.library import load_library
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
    "scope": "the case asks for what the library leaves to its application (repairing a "
    "saved history, choosing a model's thinking mode); pinned, not a defect",
}
#: The triage kinds a pin may rest on.
PINNABLE = ("defect", "scope")
#: What a pinned defect costs, the ``severity`` every ``kind = "defect"`` entry states;
#: it matches the entry's ``provider`` text (what the provider does with the bytes).
SEVERITIES = {
    "rejected": "the provider answers 4xx: the session breaks",
    "degraded": "accepted, but continuity, a signature or the prompt cache is lost",
    "unsafe": "accepted, but the agent does something wrong (runs a cut call, loses the "
    "user's turn, duplicates an action)",
    "cosmetic": "accepted, nothing the model or user would notice",
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


def note_for(notes: dict[str, dict[str, str]], key: str) -> dict[str, str] | None:
    """A cell's triage entry: its own (``case[column]``), else its case's (``case[*]``)."""
    return notes.get(key) or notes.get(f"{key.partition('[')[0]}[*]")


def triage_problems(library: str) -> list[str]:
    """What keeps the library's triage from standing behind its pins: a pin without a
    ``defect`` (or ``scope``) entry, a defect without a valid ``severity``, a
    ``rejected`` one whose ``provider`` names no 4xx, a provider text that says
    ``accepted`` beside ``rejected``, a ``scope`` entry that does not say whose job it is."""
    notes = triage_for(library)
    problems = [
        f"{library}: pin {key} has no `defect` or `scope` triage entry"
        for key in sorted(manifest_pins(library))
        if (note_for(notes, key) or {}).get("kind") not in PINNABLE
    ]
    problems += [
        f"{library}: {key}: a `scope` entry needs a summary saying whose job the case asks for"
        for key, note in sorted(notes.items())
        if note.get("kind") == "scope" and len(note.get("summary", "")) < 20
    ]
    for key, note in sorted(notes.items()):
        if note.get("kind") != "defect":
            continue
        severity, provider = note.get("severity", ""), note.get("provider", "")
        if severity not in SEVERITIES:
            problems.append(f"{library}: {key}: severity {severity!r} is not one of "
                            f"{', '.join(SEVERITIES)}")  # fmt: skip
        elif severity == "rejected" and not re.search(r"\b4(\d\d|xx)\b", provider):
            problems.append(f"{library}: {key}: `rejected`, but its provider text names no 4xx")
        elif severity != "rejected" and provider.lower().startswith(("400", "4xx")):
            problems.append(f"{library}: {key}: its provider text says 4xx, severity {severity}")
        if severity == "rejected" and provider.lower().startswith("accepted"):
            problems.append(f"{library}: {key}: `rejected`, but its provider text says accepted")
    return problems


def severity_counts(library: str) -> Counter[str]:
    """The library's pinned cells by the severity of their triage entries."""
    notes = triage_for(library)
    return Counter(
        (note_for(notes, key) or {}).get("severity", "none") for key in manifest_pins(library)
    )


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
        note = note_for(notes, key)
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
        if note.get("severity"):
            meaning = SEVERITIES.get(note["severity"], "not a known severity")
            lines.append(f"- severity: **{note['severity']}** ({meaning})")
        for field in ("bytes", "rule", "provider", "issue", "fix"):
            if note.get(field):
                lines.append(f"- {field}: {note[field]}")
        lines.append("")
    return lines


#: What an upstream report holds, in the order it is rendered; ``title`` and ``minimal``
#: are required, ``cells`` (the other cells of the defect) is a list.
UPSTREAM_FIELDS = ("minimal", "bytes", "rule", "provider", "issue", "fix")


def upstream_reports(library: str) -> dict[str, dict[str, Any]]:
    """The library's real defects written as reports to file upstream, by key:
    ``harness/targets/<library>/upstream.toml``, one table per defect."""
    path = HERE / library / "upstream.toml"
    if not path.is_file():
        return {}
    return {key: dict(value) for key, value in tomllib.loads(path.read_text("utf-8")).items()}


def upstream_section(library: str, cells: dict[str, dict[str, Any]]) -> list[str]:
    """One section per real defect, ready to file upstream: its minimal case (the cell to
    run), the bytes the library sent or received there, the rule with its source, what
    the provider does, and the public issue (or that none was found).  A report whose
    minimal cell no run has, or is a plain pass, says so: it is stale."""
    reports = upstream_reports(library)
    if not reports:
        return []
    lines = ["### Upstream reports", "",
             "One per real defect (`upstream.toml`), each with the smallest cell that "
             "shows it; the other cells the defect fails are listed with it.", ""]  # fmt: skip
    for key, report in reports.items():
        lines += [f"#### {report.get('title', key)}", ""]
        minimal = str(report.get("minimal", ""))
        shown = cells.get(minimal, {}).get("verdict")
        case, _, column = minimal.partition("[")
        lines.append(f"- minimal case: `{minimal}` ({shown or 'in no run'}; "
                     f"`wire-conformance run --target harness/targets/{library}/target.toml "
                     f"--case {case} --wire {column.rstrip(']')}`)")  # fmt: skip
        if shown in ("pass", "n/a"):
            lines.append(f"- **stale**: the minimal cell is now `{shown}`")
        others = [str(cell) for cell in report.get("cells", [])]
        if others:
            lines.append("- also: " + ", ".join(f"`{cell}`" for cell in others))
        for field in UPSTREAM_FIELDS[1:]:
            if report.get(field):
                lines.append(f"- {field}: {report[field]}")
        lines.append("")
    return lines


@dataclass(frozen=True)
class Run:
    """One JSON report under ``results/``: a whole run, or a labelled run of part of the
    plan (``run_library.py --label``: a part of a long run, a re-check of the pins)."""

    path: Path
    library: str
    version: str
    label: str
    report: dict[str, Any]
    timing: dict[str, Any]


def load_run(path: Path) -> Run:
    report = _load_json(path)
    library = report["target"]
    timing_path = path.with_suffix(".timing.json")
    timing = _load_json(timing_path) if timing_path.is_file() else {}
    version, _, label = path.stem.removeprefix(f"{library}-").partition("-")
    return Run(path, library, str(timing.get("version", version)), label, report, timing)


def run_order(run: Run) -> tuple[str, bool, str]:
    """When the run finished (runs kept before that was recorded first), then the whole
    run before the labelled ones, then the label."""
    return (str(run.timing.get("finished", "")), run.label != "", run.label)


def combined(
    runs: list[Run], columns: Mapping[str, frozenset[str]] | None = None
) -> dict[str, dict[str, Any]]:
    """The latest verdict of every cell: runs in ``run_order``, each cell's result from
    the last run that has it.  A run holds only the cells it planned (``--case`` and
    ``--wire`` leave the others out), so its ``n/a`` is a judgement too: the case now
    needs a capability the target lacks, or the target no longer speaks the column.
    ``columns`` (each case of the current library and the columns it runs on) turns a
    verdict an older run left on a column its case no longer runs on into ``n/a``: no
    later run can replace it."""
    cells: dict[str, dict[str, Any]] = {}
    for run in sorted(runs, key=run_order):
        for result in run.report["results"]:
            cells[_cell_key(result)] = {**result, "run": run.label or "full run"}
    for key, result in cells.items():
        runs_on = (columns or {}).get(result["case"])
        if runs_on is not None and result["wire"] not in runs_on and result["verdict"] != "n/a":
            gone = {"verdict": "n/a", "reason": "the case no longer runs here"}
            cells[key] = {**result, **gone, "cause": "not-applicable"}
    return cells


@cache
def case_columns() -> Mapping[str, frozenset[str]]:
    """Each case of the current library and the columns its file names."""
    return {entry.case.id: frozenset(entry.case.wires) for entry in load_library().cases}


def _counts(cells: dict[str, dict[str, Any]]) -> Counter[str]:
    return Counter(result["verdict"] for result in cells.values())


def _wall(runs: list[Run]) -> str:
    """Wall seconds of all the runs whose timing was kept (what the version has cost)."""
    timed = [run.timing for run in runs if run.timing]
    return f"{sum(float(t['wall_seconds']) for t in timed):.1f}" if timed else "?"


def whole_run(runs: list[Run], library_cases: set[str]) -> Run | None:
    """The latest run of every case of the current library in one go (the tox env's own
    run): the one whose wall time and cost per cell are the library's figures.  An A/B
    run's wall covers its baseline's run as well, so it is not one."""
    whole = [
        run for run in runs
        if run.timing and "baseline" not in run.timing
        and library_cases <= {r["case"] for r in run.report["results"]}
    ]  # fmt: skip
    return max(whole, key=run_order, default=None)


def not_run(cells: dict[str, dict[str, Any]], library_cases: set[str]) -> list[str]:
    """Cases of the current library that no run of this version has seen (newer cases)."""
    return sorted(library_cases - {result["case"] for result in cells.values()})


def library_section(runs: list[Run], library_cases: set[str]) -> list[str]:
    library, version = runs[0].library, runs[0].version
    cells = combined(runs, case_columns())
    results = [cells[key] for key in sorted(cells)]
    lines = [f"## {library}-{version}", ""]
    counts = _counts(cells)
    lines.append("Verdicts: " + ", ".join(f"{counts[v]} {v}" for v in SHORT if counts[v]) + ".")
    severities = severity_counts(library)
    if severities:
        named = [*SEVERITIES, *sorted(set(severities) - set(SEVERITIES))]
        counted = ", ".join(f"{severities[s]} {s}" for s in named if severities[s])
        lines += ["", f"Pins by severity ({sum(severities.values())} pinned cells): {counted}."]
    lines += ["", "| run | cells | wall s | s per cell | -j |", "|---|---|---|---|---|"]
    for run in sorted(runs, key=run_order):
        t = run.timing
        lines.append(f"| {run.label or 'full run'} | {len(run.report['results'])} | "
                     f"{t.get('wall_seconds', '?')} | {t.get('seconds_per_cell', '?')} | "
                     f"{t.get('jobs', '?')} |")  # fmt: skip
    missing = not_run(cells, library_cases)
    if missing:
        lines += ["", f"In no run of this version ({len(missing)} cases: newer than its runs, "
            "or only on columns it was not run on): "
                  + ", ".join(f"`{case}`" for case in missing) + "."]  # fmt: skip
    report = {"target": library, "results": results}
    lines += ["", "### Matrix", "", *matrix(report), "", "### Triage", ""]
    lines += triage_section(report, triage_for(library)) or ["Nothing to triage.", ""]
    lines += upstream_section(library, cells)
    for run in runs:
        for ab in sorted(run.path.parent.glob(f"{run.path.stem}-vs-*.json")):
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


def result_paths(folder: Path) -> list[Path]:
    """The run reports in ``folder``: not the timing files, not the A/B tables."""
    return sorted(
        p for p in folder.glob("*.json")
        if not p.name.endswith(".timing.json") and "-vs-" not in p.name
    )  # fmt: skip


def grouped(reports: list[Path]) -> dict[tuple[str, str], list[Run]]:
    """The runs of each library and version, in the order of LIBRARIES, then version."""
    groups: dict[tuple[str, str], list[Run]] = {}
    for run in map(load_run, reports):
        groups.setdefault((run.library, run.version), []).append(run)
    order = list(LIBRARIES)
    return dict(
        sorted(
            groups.items(),
            key=lambda kv: (order.index(kv[0][0]) if kv[0][0] in order else len(order), kv[0]),
        )
    )


def summary_table(groups: dict[tuple[str, str], list[Run]], library_cases: set[str]) -> list[str]:
    """One row per library and version: the latest verdict of every cell, what it cost."""
    lines = [
        "| library | version | pass | fail | xfail (pinned defect) | error | n/a "
        "| cases in no run | whole run: wall s | cells run | s per cell | -j "
        "| wall s (all runs) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (library, version), runs in groups.items():
        cells = combined(runs, case_columns())
        counts = _counts(cells)
        wall = _wall(runs)
        whole = whole_run(runs, library_cases)
        t = whole.timing if whole else {}
        figures = [str(t.get(k, "none")) for k in ("wall_seconds", "cells_run")]
        figures += [str(t.get(k, "")) for k in ("seconds_per_cell", "jobs")]
        lines.append(
            f"| {library} | {version} | {counts['pass']} | {counts['fail']} | "
            f"{counts['xfail']} | {counts['error']} | {counts['n/a']} | "
            f"{len(not_run(cells, library_cases))} | {' | '.join(figures)} | {wall} |"
        )
    return [*lines, ""]


def render(library_cases: set[str] | None = None) -> str:
    if library_cases is None:
        library_cases = {entry.case.id for entry in load_library().cases}
    lines = [
        "# The suite on real client libraries",
        "",
        "Generated by `python -m harness.targets.report` from the JSON reports in",
        "`harness/targets/results/` (`--run` reruns the tox envs first). Each library is",
        "driven black-box over HTTP by its wrapper in `harness/targets/<library>/` against",
        "the loopback scripted provider; its manifest declares the wires and capabilities it",
        "honours and pins the real defects below. Every cell that is not a plain pass or",
        "`n/a` is triaged in `harness/targets/<library>/triage.toml`. A version's verdicts",
        "combine its runs: each cell as its latest run left it (a whole run, then the runs of",
        "part of the plan and the re-checks, by when they finished). The figures are those",
        "of the version's latest whole run (every case of the library in one run, what",
        "`tox -e <library>` does): its wall time, the cells it ran (the rest are `n/a`) and",
        "the cost per cell; `wall s (all runs)` adds up every run kept.",
        "",
    ]
    groups = grouped(result_paths(RESULTS))
    lines += summary_table(groups, library_cases)
    # The suite's own findings, then how both modes of the command contract compare.
    for name in ("suite-fixes.md", "session-modes.md"):
        if (HERE / name).is_file():
            lines += [(HERE / name).read_text(encoding="utf-8").rstrip(), ""]
    for name in LIBRARIES:
        found = [runs for (library, _), runs in groups.items() if library == name]
        if not found:
            lines += [f"## {name}", "", "Not run yet: `tox -e " + name + "`.", ""]
        notes = HERE / name / "NOTES.md"
        if notes.is_file():
            lines += [notes.read_text(encoding="utf-8").rstrip(), ""]
        for runs in found:
            lines += library_section(runs, library_cases)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run the tox envs first")
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="with --run: run N tox envs at once (tox run-parallel schedules them)",
    )
    parser.add_argument("--only", nargs="*", choices=sorted(LIBRARIES), help="these envs")
    parser.add_argument(
        "--html",
        nargs="?",
        const=REPORT.with_suffix(".html"),
        type=Path,
        metavar="PATH",
        help="also write the compatibility page (libraries x cells, defects linked), "
        "REPORT.html by default",
    )
    options = parser.parse_args(argv)
    if options.run:
        names = options.only or list(LIBRARIES)
        if options.jobs > 1:  # tox's own scheduler: nothing home-made
            envs = ",".join(names)
            tox = [sys.executable, "-m", "tox", "run-parallel", "-e", envs, "-p", str(options.jobs)]
            subprocess.run(tox, check=False)
        else:
            for name in names:
                subprocess.run([sys.executable, "-m", "tox", "-e", name], check=False)
    problems = [p for name in LIBRARIES for p in triage_problems(name)]
    if problems:
        print("the triage does not stand behind the pins:", *problems, sep="\n  ", file=sys.stderr)
        return 1
    REPORT.write_text(render(), encoding="utf-8")
    print(f"wrote {REPORT}")
    if options.html is not None:
        from harness.targets.compat import render_page

        options.html.write_text(render_page(), encoding="utf-8")
        print(f"wrote {options.html}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
