"""The compatibility page: every real library of ``harness/targets/`` against every cell
of the suite, read the way test262 results and caniuse are read.

One row per case and column, one column per library and version (each cell as the
version's latest run left it, ``report.combined``), coloured by verdict; a pinned
defect shows its severity and links to the library's upstream report of it; a pin of a
case the library leaves to its application says ``scope``.  Filters
(verdict, library, wire, family) live in the page's address, as in the run report's
page.  ``python -m harness.targets.report --html [PATH]`` writes it
(``harness/targets/REPORT.html`` by default) from the same results and triage as
REPORT.md; it is self-contained and needs no network.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance._cases.library import load_library
from conformance._report.html import template_environment
from harness.targets.report import (
    RESULTS,
    SEVERITIES,
    case_columns,
    combined,
    grouped,
    note_for,
    result_paths,
    triage_for,
    upstream_reports,
)

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "compat.html.j2"


@dataclass(frozen=True)
class Shown:
    """One library's verdict on one cell, with what a reader needs to act on it."""

    verdict: str
    kind: str  # the triage kind (``defect``, ``scope``, …), "" when untriaged
    severity: str
    summary: str
    defect: str  # the anchor of the upstream report that names the cell, or ""


@dataclass(frozen=True)
class Row:
    case: str
    column: str
    family: str
    title: str
    by_library: dict[str, Shown]


@dataclass(frozen=True)
class Defect:
    anchor: str
    library: str
    title: str
    minimal: str
    fields: tuple[tuple[str, str], ...]
    cells: tuple[str, ...]


def _families() -> dict[str, tuple[str, str]]:
    """Each case's family (its folder under ``cases/``) and title."""
    found: dict[str, tuple[str, str]] = {}
    for entry in load_library().cases:
        parts = Path(entry.shown).parts
        found[entry.case.id] = (parts[-2] if len(parts) >= 2 else "", entry.case.title)
    return found


def _defects(library: str) -> tuple[list[Defect], dict[str, str]]:
    """The library's upstream reports, and the report anchor of every cell they name."""
    defects: list[Defect] = []
    named: dict[str, str] = {}
    for key, report in upstream_reports(library).items():
        anchor = f"defect-{library}-{key}"
        cells = tuple(str(cell) for cell in report.get("cells", []))
        minimal = str(report.get("minimal", ""))
        for cell in (minimal, *cells):
            named.setdefault(cell, anchor)
        fields = tuple(
            (name, str(report[name]))
            for name in ("bytes", "rule", "provider", "issue", "fix")
            if report.get(name)
        )
        defects.append(
            Defect(anchor, library, str(report.get("title", key)), minimal, fields, cells)
        )
    return defects, named


def page_data(results: Path = RESULTS) -> dict[str, Any]:
    """What the page shows: the libraries (name and version), the rows, the defects."""
    families = _families()
    libraries: list[str] = []
    rows: dict[tuple[str, str], Row] = {}
    defects: list[Defect] = []
    for (library, version), runs in grouped(result_paths(results)).items():
        label = f"{library} {version}"
        libraries.append(label)
        notes = triage_for(library)
        found, named = _defects(library)
        defects += found
        for key, result in combined(runs, case_columns()).items():
            case, column = result["case"], result["wire"]
            if case not in families:  # a case since removed from the library
                continue
            family, title = families[case]
            row = rows.setdefault((case, column), Row(case, column, family, title, {}))
            note = note_for(notes, key) or {}
            row.by_library[label] = Shown(
                verdict=result["verdict"],
                kind=note.get("kind", ""),
                severity=note.get("severity", ""),
                summary=note.get("summary", "") or (result.get("reason") or ""),
                defect=named.get(key, ""),
            )
    return {
        "libraries": libraries,
        "rows": [rows[key] for key in sorted(rows)],
        "families": sorted({row.family for row in rows.values()}),
        "columns": sorted({row.column for row in rows.values()}),
        "defects": defects,
        "severities": SEVERITIES,
    }


def render_page(results: Path = RESULTS) -> str:
    template = template_environment().from_string(TEMPLATE.read_text(encoding="utf-8"))
    return template.render(**page_data(results))
