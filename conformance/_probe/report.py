"""The probe run's reports: the terminal matrix (mutant -> killers), JSON (versioned)
and Markdown.  No timings: the same run gives the same bytes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from conformance._probe.verdicts import MUTANT_VERDICTS, MutantResult
from conformance.verdict import Result

#: The JSON report's format name and version (2: each errored cell's ``cause``).
REPORT_FORMAT = "wire-conformance-probes"
REPORT_VERSION = 2
#: Killers shown per mutant in the terminal and Markdown before "+N more".
SHOWN_KILLERS = 3


class ControlSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    cells: int
    killable: int
    #: Cells left out of probing (pinned, xfail, n/a), as ``case[wire] verdict``.
    excluded: tuple[str, ...] = ()
    #: Cells the unmutated target failed (the run stopped), as ``case[wire] verdict``.
    failing: tuple[str, ...] = ()


class ProbeReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    format: str = REPORT_FORMAT
    version: int = REPORT_VERSION
    target: str
    catalogues: tuple[str, ...]
    strict: bool
    all_killers: bool
    control: ControlSummary
    mutants: tuple[MutantResult, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        seen = Counter(m.verdict for m in self.mutants)
        return {v: seen[v] for v in MUTANT_VERDICTS}

    @property
    def problems(self) -> list[str]:
        return [f"{m.id}: {m.problem}" for m in self.mutants if m.problem]

    @property
    def ok(self) -> bool:
        return not self.control.failing and not self.problems

    def to_json(self) -> str:
        data = self.model_dump(mode="json")
        data["summary"] = {**self.counts, "ok": self.ok, "problems": self.problems}
        return json.dumps(data, indent=2, sort_keys=True) + "\n"


def control_summary(results: Sequence[Result]) -> ControlSummary:
    def cell(r: Result) -> str:
        return f"{r.case}[{r.wire}] {r.verdict}"

    return ControlSummary(
        cells=len(results),
        killable=sum(r.verdict == "pass" for r in results),
        excluded=tuple(cell(r) for r in results if r.verdict in ("pinned", "xfail")),
        failing=tuple(cell(r) for r in results if r.verdict in ("fail", "error")),
    )


def _killed_by(mutant: MutantResult) -> str:
    if mutant.verdict == "invalid":
        return mutant.reason or ""
    shown = mutant.killers or mutant.errors
    cells = [k.cell for k in shown[:SHOWN_KILLERS]]
    if len(shown) > SHOWN_KILLERS:
        cells.append(f"+{len(shown) - SHOWN_KILLERS} more")
    text = ", ".join(cells) or "-"
    return f"{text} ({len(shown)}/{mutant.cells_run} cells)"


def _expected(mutant: MutantResult) -> str:
    met = mutant.expectation_met
    if met is None:
        return ""
    return "met" if met else "UNMET: " + ", ".join(mutant.unmet)


def terminal(report: ProbeReport) -> str:
    """The mutant -> killers matrix and the summary line."""
    lines = []
    if report.control.failing:
        lines.append("the unmutated target fails; no mutant was run. Failing cells:")
        lines.extend(f"  {cell}" for cell in report.control.failing)
        return "\n".join(lines) + "\n"
    width = max((len(m.id) for m in report.mutants), default=6)
    for m in report.mutants:
        verdict = m.verdict if m.accepted is None or m.verdict != "survived" else "accepted"
        expected = _expected(m)
        tail = f"  [expected {expected}]" if expected else ""
        lines.append(f"{m.id:<{width}}  {verdict:<8}  {_killed_by(m)}{tail}")
    counts = ", ".join(f"{n} {v}" for v, n in report.counts.items() if n)
    lines.append(
        f"{len(report.mutants)} mutants on {report.control.killable} passing cells: {counts}"
    )
    lines.extend(f"PROBLEM {p}" for p in report.problems)
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(report: ProbeReport) -> str:
    """One row per mutant: verdict, the cases that kill it, expectation, note."""
    rows = [
        "| probe | mutates | verdict | killed by (first) | expected | what it removes |",
        "|---|---|---|---|---|---|",
    ]
    for m in report.mutants:
        shown = m.killers or m.errors
        killed = ", ".join(f"`{k.cell}`" for k in shown[:SHOWN_KILLERS]) or m.reason or "-"
        rows.append(
            f"| `{m.id}` | `{m.where}` | {m.verdict} | {_md(killed)} | "
            f"{_md(_expected(m))} | {_md(m.note)} |"
        )
    return "\n".join(rows) + "\n"


def markdown(report: ProbeReport) -> str:
    counts = ", ".join(f"{n} {v}" for v, n in report.counts.items() if n)
    head = (
        f"# Probe run: {report.target}\n\n"
        f"{len(report.mutants)} mutants on {report.control.killable} passing cells "
        f"({'strict' if report.strict else 'default'} checks): {counts}.\n\n"
    )
    if report.control.failing:
        failing = "\n".join(f"- `{c}`" for c in report.control.failing)
        return head + f"The unmutated target fails; no mutant was run:\n\n{failing}\n"
    return head + markdown_table(report)


def junit(report: ProbeReport) -> str:
    """JUnit XML for CI dashboards: one testcase per mutant (a failing control is one
    errored testcase); a mutant that fails the run is a failure, an accepted survivor
    is skipped with its reason."""
    suite = ET.Element(
        "testsuite",
        name=f"wire-conformance-probes[{report.target}]",
        tests=str(len(report.mutants) or 1),
        failures=str(len(report.problems)),
        errors=str(int(bool(report.control.failing))),
    )
    if report.control.failing:
        case = ET.SubElement(suite, "testcase", classname="control", name="unmutated target")
        failing = "\n".join(report.control.failing)
        ET.SubElement(case, "error", message="the unmutated target fails").text = failing
    for mutant in report.mutants:
        case = ET.SubElement(suite, "testcase", classname=mutant.where, name=mutant.id)
        detail = f"{mutant.verdict}: {_killed_by(mutant)}\n{mutant.note}"
        if mutant.problem:
            ET.SubElement(case, "failure", message=mutant.problem).text = detail
        elif mutant.verdict == "survived":
            ET.SubElement(case, "skipped", message=f"accepted: {mutant.accepted}")
        else:
            ET.SubElement(case, "system-out").text = detail
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
