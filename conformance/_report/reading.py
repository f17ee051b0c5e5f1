"""The one reader of the JSON documents the suite wrote earlier: run reports (``report
html``, ``report merge``, ``--durations``), the cells' verdicts of a run or a replay
report (``report diff``) and A/B tables.  Each reads its file the same way: a file that
cannot be read, is not JSON, or nests deeper than the parser can go is one
``ReportFileError`` naming the file, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from conformance._report.ab import ABTable
from conformance._report.report_schema import Report
from conformance.errors import ReportFileError
from conformance.wires._nesting import too_deep

#: What ``read_report`` expects, as its errors name it.
RUN_REPORT = "a run report (`run --json`)"


def read_json(path: Path, kind: str) -> Any:
    """The JSON document at ``path``; ``kind`` names what it should be in the error."""
    try:
        text = path.read_text(encoding="utf-8")
        deep = too_deep(text)
        if deep is not None:  # the parser would end in a RecursionError
            raise ReportFileError(f"{path}: {deep}")
        return json.loads(text)
    except OSError as error:
        raise ReportFileError(f"{path}: {error.strerror or error}") from None
    except ValueError as error:
        raise ReportFileError(f"{path}: not {kind}: {error}") from None


def read_report(path: Path) -> Report:
    """The run report at ``path``; ``ReportFileError`` says why it cannot be read."""
    try:
        return Report.model_validate(read_json(path, RUN_REPORT))
    except ValidationError as error:
        raise ReportFileError(f"{path}: not {RUN_REPORT}: {_first(error)}") from None


def read_ab(path: Path) -> ABTable:
    """The A/B table at ``path`` (``run --baseline … --ab-json``)."""
    data = read_json(path, "an A/B table (`--ab-json`)")
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k != "summary"}  # derived on write
    try:
        return ABTable.model_validate(data)
    except ValidationError as error:
        raise ReportFileError(f"{path}: not an A/B table: {_first(error)}") from None


def cell_verdicts(path: Path) -> dict[str, str]:
    """``cell -> verdict`` of a run report (``case [column]``) or a replay report (its
    recordings' files and statuses): only the fields a diff compares, so a report of an
    older version still diffs."""
    data = read_json(path, "a JSON report")
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        return {f"{r['case']} [{r['wire']}]": str(r["verdict"]) for r in data["results"]}
    if isinstance(data, dict) and isinstance(data.get("recordings"), list):
        return {str(r["file"]): str(r["status"]) for r in data["recordings"]}
    raise ReportFileError(f"{path}: neither a run report nor a replay report")


def _first(error: ValidationError) -> str:
    problem = error.errors()[0]
    where = ".".join(str(step) for step in problem["loc"]) or "the document"
    return f"{where}: {problem['msg']}"
