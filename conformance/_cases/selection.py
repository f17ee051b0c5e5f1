"""Is the selection a run was given one that can select anything?

A ``--case`` glob that matches no case id, a ``--cases`` directory that does not exist
or holds no case file, or a target that speaks none of the selected wires used to run
nothing and exit 0: a green run that tested nothing; so did a ``--wire`` that no
selected case runs on.  Each is a one-line reason here, which the CLI and the pytest
plugin turn into a usage error.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path

from conformance._cases.discover import SUFFIX, case_files
from conformance._cases.loader import CaseOutline
from conformance._cases.schema import Case


def case_dir_problems(directories: Sequence[Path], option: str = "--cases") -> list[str]:
    """Why each added case directory cannot add a case (missing, not a directory, empty)."""
    problems = []
    for directory in directories:
        if not directory.exists():
            problems.append(f"{option} {directory}: no such directory")
        elif not directory.is_dir():
            problems.append(f"{option} {directory}: not a directory")
        else:
            found = case_files(directory)
            if not found.files and not found.errors:
                problems.append(f"{option} {directory}: holds no case file (*{SUFFIX})")
    return problems


def unmatched_patterns(
    ids: Iterable[str], patterns: Collection[str], option: str = "--case"
) -> list[str]:
    """The case globs that match no case id, each with a line saying so."""
    known = list(ids)
    return [
        f"{option} {pattern!r} matches no case (list them with `wire-conformance cases`)"
        for pattern in patterns
        if not any(fnmatch.fnmatchcase(case_id, pattern) for case_id in known)
    ]


def unspoken_selection(
    columns: Collection[str], speaks: Callable[[str], bool], target: str, declared: Iterable[str]
) -> str | None:
    """Why the target can run none of the selected columns (``None`` when it can run
    one, or when nothing was selected)."""
    if not columns or any(speaks(column) for column in columns):
        return None
    return (
        f"the target {target} declares {', '.join(sorted(declared)) or 'no wire'}; "
        f"the selection has only {', '.join(sorted(columns))}"
    )


def empty_plan(
    cases: Sequence[Case | CaseOutline],
    wires: Collection[str],
    patterns: Collection[str],
    wire_option: str = "--wire",
    case_option: str = "--case",
) -> str | None:
    """Why a selection holds no cell at all (``None`` when it holds one): which filter
    emptied it.  Each ``--case`` glob matched a case (``unmatched_patterns`` ran first),
    so it is the ``--wire`` filter that left nothing, on those cases or on the library."""
    chosen = [
        case
        for case in cases
        if not patterns or any(fnmatch.fnmatchcase(case.id, p) for p in patterns)
    ]
    if not chosen:
        return "the case library holds no case"

    def selected(column: str) -> bool:
        return not wires or column in wires or column.partition(":")[0] in wires

    if any(selected(column) for case in chosen for column in case.wires):
        return None
    wire = " ".join(f"{wire_option} {w}" for w in sorted(wires))
    if not patterns:
        return f"{wire}: no case runs on it (list them with `wire-conformance cases`)"
    where = sorted({column for case in chosen for column in case.wires})
    glob = " ".join(f"{case_option} {p!r}" for p in patterns)
    noun = "case" if len(chosen) == 1 else f"{len(chosen)} cases"
    return (
        f"{wire} leaves no cell: the {noun} {glob} selects "
        f"{'runs' if len(chosen) == 1 else 'run'} only on {', '.join(where)}"
    )
