"""The HTML report: one self-contained page a person would rather read than a log.

It holds the case × column matrix (coloured, filtered by verdict, column and family from
controls or from the page's address: ``report.html#verdict=fail&column=gemini``), each
judged cell's violations with their evidence and the rule's statement and source, the
requests the cell sent with each violation's JSON path marked, the snapshot diff where
one changed, and the A/B table when there is one.  No network: styles and script are
inline; the page works from a file.  Deterministic: the same report and exchanges give
the same bytes.  The template is Jinja2's (autoescaped), so no value reaches the page
unescaped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, select_autoescape
from markupsafe import Markup, escape

from conformance._checks.registry import all_checks
from conformance._exchanges import exchanges_path
from conformance._report.ab import ABTable
from conformance._report.reading import read_json
from conformance._report.report_schema import Report
from conformance.errors import ReportFileError
from conformance.verdict import VERDICTS, Result, Violation

#: Cells shown in detail: the ones a reader acts on (and any with a warning).
_DETAILED = frozenset({"fail", "error", "xfail", "pinned"})
_PATH_PART = re.compile(r"[^.\[\]]+|\[(\d+)\]")


@dataclass(frozen=True)
class SentRequest:
    """One request a cell sent: its number, endpoint and body with the marked paths."""

    number: int
    endpoint: str
    status: int | None
    body: Markup


@dataclass(frozen=True)
class Cell:
    result: Result
    column: str
    family: str
    anchor: str
    violations: tuple[tuple[Violation, str, str], ...]  # each with its statement, source
    warnings: tuple[tuple[Violation, str, str], ...]
    requests: tuple[SentRequest, ...] = field(default=())

    @property
    def detailed(self) -> bool:
        return self.result.verdict in _DETAILED or bool(self.result.warnings)


def family_of(result: Result) -> str:
    """The case's folder under its library (``cases/<family>/<id>.yaml``)."""
    parts = Path(result.file or "").parts
    return parts[-2] if len(parts) >= 2 else "(no family)"


def json_path(at: str | None) -> tuple[str | int, ...] | None:
    """``messages.1.content.0`` or ``contents[1].parts[0]`` as path steps; ``None``
    when ``at`` names no place in a body."""
    if not at:
        return None
    steps: list[str | int] = []
    for match in _PATH_PART.finditer(at):
        text = match.group(1) or match.group(0)
        steps.append(int(text) if text.isdigit() else text)
    return tuple(steps) or None


def marked_json(value: Any, marks: frozenset[tuple[str | int, ...]]) -> Markup:
    """``value`` pretty-printed and escaped, each subtree at a path of ``marks`` in a
    ``<mark>``: the place a violation names, shown where it sits in the body."""
    out: list[str] = []
    _write(value, (), 0, marks, out)
    return Markup("".join(out))


def _write(
    value: Any,
    path: tuple[str | int, ...],
    depth: int,
    marks: frozenset[tuple[str | int, ...]],
    out: list[str],
) -> None:
    marked = path in marks
    if marked:
        out.append('<mark class="at">')
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict) and value:
        out.append("{\n")
        for i, (key, item) in enumerate(value.items()):
            out.append(f"{inner}{escape(json.dumps(key, ensure_ascii=False))}: ")
            _write(item, (*path, key), depth + 1, marks, out)
            out.append(",\n" if i < len(value) - 1 else "\n")
        out.append(pad + "}")
    elif isinstance(value, list) and value:
        out.append("[\n")
        for i, item in enumerate(value):
            out.append(inner)
            _write(item, (*path, i), depth + 1, marks, out)
            out.append(",\n" if i < len(value) - 1 else "\n")
        out.append(pad + "]")
    else:
        out.append(str(escape(json.dumps(value, ensure_ascii=False))))
    if marked:
        out.append("</mark>")


def _explained(violations: Sequence[Violation]) -> tuple[tuple[Violation, str, str], ...]:
    checks = {check.id: check for check in all_checks()}
    found = []
    for violation in violations:
        check = checks.get(violation.check)
        statement = check.statement if check is not None else ""
        source = check.source if check is not None else ""
        found.append((violation, statement, source))
    return tuple(found)


def _requests(document: Mapping[str, Any], violations: Sequence[Violation]) -> list[SentRequest]:
    """The requests of a saved cell (``--save-exchanges``), each body with the paths its
    violations name marked."""
    sent: list[SentRequest] = []
    for exchange in document.get("exchanges", []):
        number = exchange.get("number")
        request = exchange.get("request", {})
        marks = frozenset(
            path
            for v in violations
            if v.request == number and (path := json_path(v.at)) is not None
        )
        body = request.get("body")
        shown = marked_json(body, marks) if isinstance(body, (dict, list)) else escape(body or "")
        sent.append(
            SentRequest(
                number=number,
                endpoint=f"{request.get('method', '')} {request.get('path', '')}",
                status=exchange.get("response", {}).get("status"),
                body=Markup(shown),
            )
        )
    return sent


def _saved(root: Path | None, target: str, column: str, case: str) -> Mapping[str, Any]:
    if root is None:
        return {}
    path = exchanges_path(root, target, column, case)
    if not path.is_file():
        return {}
    try:  # read as every saved document is: a file nested past the parser is refused
        loaded = read_json(path, "saved exchanges (`--save-exchanges`)")
    except ReportFileError:
        return {}  # the cell is shown without its exchanges, as one never saved
    return loaded if isinstance(loaded, dict) else {}


def cells(report: Report, exchanges: Path | None = None) -> list[Cell]:
    """Every cell of ``report``, with the saved requests of each detailed one."""
    found: list[Cell] = []
    for result in report.results:
        column = result.wire  # the column: a wire, or wire:dialect
        cell = Cell(
            result=result,
            column=column,
            family=family_of(result),
            anchor=re.sub(r"[^A-Za-z0-9_-]", "-", f"cell-{result.case}-{column}"),
            violations=_explained(result.violations),
            warnings=_explained(result.warnings),
        )
        if cell.detailed:
            document = _saved(exchanges, report.target, column, result.case)
            shown = (*result.violations, *result.warnings)
            cell = replace(cell, requests=tuple(_requests(document, shown)))
        found.append(cell)
    return found


def template_environment() -> Environment:
    """The one way the suite's pages are templated: every value autoescaped (a message,
    a body or a case title never reaches a page as markup), blocks trimmed."""
    return Environment(
        autoescape=select_autoescape(default=True, default_for_string=True),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def to_html(report: Report, exchanges: Path | None = None, ab: ABTable | None = None) -> str:
    """The page for ``report``; ``exchanges``: the folder ``--save-exchanges`` wrote,
    whose request bodies the detailed cells show; ``ab``: an A/B table to add."""
    template_text = (
        resources.files("conformance._report").joinpath("report.html.j2").read_text("utf-8")
    )
    template = template_environment().from_string(template_text)
    shown = cells(report, exchanges)
    columns = sorted({c.column for c in shown})
    families = sorted({c.family for c in shown})
    rows: dict[str, dict[str, Cell]] = {}
    for cell in shown:
        rows.setdefault(cell.result.case, {})[cell.column] = cell
    return template.render(
        report=report,
        verdicts=[v for v in VERDICTS if report.summary.get(v)],
        summary=report.summary,
        columns=columns,
        families=families,
        rows=sorted(rows.items()),
        detailed=[c for c in shown if c.detailed],
        ab=ab,
        ab_counts=ab.counts if ab is not None else {},
    )
