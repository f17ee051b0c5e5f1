"""Stale snapshots under pytest: found after collection, removed once at the end.

A snapshot directory and target (a *group*) is swept only when the session holds the
whole of it: no ``--conformance-case``/``--conformance-wire``, every case file loaded,
and every cell pytest parametrized for it still selected (no ``-k``, ``-m``, node id
or ``--lf`` left one out).  A filtered run never deletes a snapshot.

Stale means outside the target's *unfiltered* plan, so a suite's own ``case_patterns``
or ``wires`` never make another suite's snapshots in the same directory look stale.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conformance._snapshots import remove_snapshots, slot_of, stale_snapshots

GroupKey = tuple[Path, str]


@dataclass
class SnapshotGroup:
    """What the session parametrized for one snapshot root and target."""

    #: ``(column, case)`` of every applicable cell in the target's unfiltered plan.
    planned: set[tuple[str, str]] = field(default_factory=set)
    #: Snapshot-bearing cells parametrized (all suites sharing the group).
    cells: int = 0
    #: No command-line filter, and every case file loaded.
    whole: bool = True


class Sweep:
    """The session's stale snapshots, from this process or from xdist workers."""

    def __init__(self) -> None:
        self.groups: dict[GroupKey, SnapshotGroup] = {}
        self.stale: dict[GroupKey, set[Path]] = {}
        self.removed = False

    def add_suite(
        self,
        root: Path,
        target: str,
        planned: Iterable[tuple[str, str]],
        cells: int,
        whole: bool,
    ) -> None:
        group = self.groups.setdefault((root, target), SnapshotGroup())
        group.planned.update(planned)
        group.cells += cells
        group.whole = group.whole and whole

    def find_stale(self, items: Sequence[pytest.Item]) -> None:
        """Sweep every group whose cells were all selected."""
        selected = Counter(
            (slot.root, slot.target) for slot in map(slot_of, items) if slot is not None
        )
        for (root, target), group in self.groups.items():
            if group.whole and selected[root, target] == group.cells:
                found = stale_snapshots(root, target, group.planned)
                self.stale.setdefault((root, target), set()).update(found)

    def found(self) -> list[list[str]]:
        """``[root, target, file]`` of every stale file, for the xdist controller."""
        return [
            [str(root), target, str(path)]
            for (root, target), paths in sorted(self.stale.items())
            for path in sorted(paths)
        ]

    def take(self, found: Iterable[Sequence[str]]) -> None:
        """Add what a worker found (every worker finds the same)."""
        for root, target, path in found:
            self.stale.setdefault((Path(root), target), set()).add(Path(path))

    def finish(self, update: bool) -> None:
        """Remove the stale files when updating; once, in the process that reports."""
        if not update:
            return
        for (root, target), paths in self.stale.items():
            remove_snapshots(root, target, paths)
            self.removed = self.removed or bool(paths)

    def summary(self, rootpath: Path) -> list[str]:
        paths = sorted(path for group in self.stale.values() for path in group)
        if not paths:
            return []
        noun = "snapshot" if len(paths) == 1 else "snapshots"
        head = (
            f"{len(paths)} unused {noun} deleted."
            if self.removed
            else f"{len(paths)} unused {noun}: re-run with --snapshot-update to delete them."
        )
        verb = "Deleted" if self.removed else "Unused"
        return [head, *(f"{verb} {_shown(path, rootpath)}" for path in paths)]


def _shown(path: Path, rootpath: Path) -> str:
    try:
        return str(path.relative_to(rootpath))
    except ValueError:
        return str(path)
