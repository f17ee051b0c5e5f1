"""``report diff``: the verdicts that changed between two JSON reports (of ``run`` or
of ``replay``), for a nightly job's trend."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance.errors import ReportFileError
from conformance.wires.nesting import too_deep


def verdicts(path: Path) -> dict[str, str]:
    """``cell -> verdict`` of a run report (``case [wire]``) or a replay report (file)."""
    try:
        text = path.read_text(encoding="utf-8")
        deep = too_deep(text)
        if deep is not None:  # the parser would end in a RecursionError
            raise ReportFileError(f"{path}: {deep}")
        data: Any = json.loads(text)
    except OSError as error:
        raise ReportFileError(f"{path}: {error.strerror}") from None
    except ValueError as error:
        raise ReportFileError(f"{path}: not a JSON report ({error})") from None
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        return {f"{r['case']} [{r['wire']}]": str(r["verdict"]) for r in data["results"]}
    if isinstance(data, dict) and isinstance(data.get("recordings"), list):
        return {str(r["file"]): str(r["status"]) for r in data["recordings"]}
    raise ReportFileError(f"{path}: neither a run report nor a replay report")


#: Verdicts (and replay statuses) a cell may regress from, and to: a cell that passed
#: (or showed its pinned limitation, or only drifted) and now fails or errors.
GOOD = frozenset({"pass", "pinned", "drift"})
BAD = frozenset({"fail", "error"})


def changed(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """One line per cell in both reports whose verdict changed, sorted; a regression
    (``regressed``) is marked.  Cells in one report only are not changes: a narrower
    or wider selection says nothing about them (``absent`` counts them)."""
    lines: list[str] = []
    for key in sorted(set(old) & set(new)):
        before, after = old[key], new[key]
        if before != after:
            mark = "  (regression)" if regressed(before, after) else ""
            lines.append(f"{key}: {before} -> {after}{mark}")
    return lines


def regressed(before: str, after: str) -> bool:
    """Whether a cell went from passing to failing (pass -> fail, pinned -> error, …)."""
    return before in GOOD and after in BAD


def regressions(old: dict[str, str], new: dict[str, str]) -> int:
    """How many cells in both reports regressed."""
    return sum(regressed(old[key], new[key]) for key in set(old) & set(new))


def absent(old: dict[str, str], new: dict[str, str]) -> str | None:
    """One line counting the cells only one report holds, or ``None``."""
    gone, added = len(set(old) - set(new)), len(set(new) - set(old))
    if not (gone or added):
        return None
    return f"not compared: {gone} cell(s) only in the old report, {added} only in the new one"
