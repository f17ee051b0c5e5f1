"""``report diff``: the verdicts that changed between two JSON reports (of ``run`` or
of ``replay``), for a nightly job's trend; the reports are read by the one report reader
(``report.reading.cell_verdicts``)."""

from __future__ import annotations

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
