"""Snapshots of emitted request bodies: a regression net, never the verdict.

One engine for both faces: ``RequestBodies``, a syrupy JSON extension, names, reads,
compares and writes every snapshot, whether the pytest plugin asserts a cell through
syrupy's ``snapshot`` fixture or the command line checks one with ``--snapshots``; so
both read and write the very same bytes.  One file per cell at
``<root>/<target>/<column>/<case>.json``.  Key order is kept as the target emitted it:
it is part of what a prompt cache sees.

A snapshot is stale when no cell of the target's unfiltered plan owns it any more (the
case was deleted, the wire dropped, the target stopped speaking it, the cell became
n/a); ``stale_snapshots`` finds them in one directory walk and one set difference.
"""

from __future__ import annotations

import difflib
import json
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from syrupy.data import Snapshot, SnapshotCollection, SnapshotCollections
from syrupy.extensions.json import JSONSnapshotExtension

from conformance._paths import ArtefactStore, inside, segment

if TYPE_CHECKING:
    from syrupy.location import PyTestLocation

    from conformance._transcript import Transcript
    from conformance.verdict import SnapshotState

#: The parametrized argument of ``ConformanceSuite`` tests; its value carries the cell's
#: ``SnapshotSlot`` as ``.snapshot``.
CELL_PARAMETER = "wire_conformance_case"


@dataclass(frozen=True)
class SnapshotSlot:
    """Where one cell's snapshot lives: ``<root>/<target>/<column>/<case>.json``."""

    root: Path
    target: str
    column: str
    case: str

    @property
    def directory(self) -> Path:
        return self.path.parent

    @property
    def path(self) -> Path:
        extension = RequestBodies.file_extension
        return ArtefactStore(self.root).cell(self.target, self.column, self.case, extension)


def slot_of(item: object) -> SnapshotSlot | None:
    """The snapshot slot of a pytest item's cell, if it is a cell with one."""
    callspec = getattr(item, "callspec", None)
    cell = callspec.params.get(CELL_PARAMETER) if callspec is not None else None
    slot = getattr(cell, "snapshot", None)
    return slot if isinstance(slot, SnapshotSlot) else None


class RequestBodies(JSONSnapshotExtension):
    """The one snapshot extension of the suite.

    Under pytest, syrupy hands it a test location; the cell comes from that test's
    ``wire_conformance_case`` parameter, so one class serves every test.  Syrupy keeps
    its own name for the snapshot (the test's), which it can relate to the test; only
    the file is the cell's.  The command line calls ``recall``/``store`` with a slot.

    Syrupy's own unused-snapshot discovery is switched off for these files: it relates
    files to test modules, and a cell's file lives under the snapshot root, not beside
    its test.  The suite finds stale files against the plan instead (``stale_snapshots``).
    """

    @staticmethod
    def slot(test_location: PyTestLocation) -> SnapshotSlot:
        slot = slot_of(test_location.item)
        if slot is None:
            raise LookupError(f"{test_location.nodeid} is not a wire-conformance cell")
        return slot

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(cls.slot(test_location).directory)

    @classmethod
    def get_file_basename(cls, *, test_location: PyTestLocation, index: Any) -> str:
        return cls.slot(test_location).case

    @classmethod
    def matches_test_location(
        cls, *, test_location: PyTestLocation, snapshot_location: str
    ) -> bool:
        """The file belongs to the test whose cell names it."""
        return Path(snapshot_location) == cls.slot(test_location).path

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        # Asked for every collected test module, cell or not; nothing is discovered there.
        return str(Path(test_location.filepath).parent)

    def discover_snapshots(
        self, *, test_location: PyTestLocation, ignore_extensions: list[str] | None = None
    ) -> SnapshotCollections:
        return SnapshotCollections()

    def recall(self, slot: SnapshotSlot) -> str | None:
        """The stored text of the slot's snapshot, ``None`` when there is none."""
        data = self.read_snapshot_data_from_location(
            snapshot_location=str(slot.path), snapshot_name=slot.case, session_id=""
        )
        return None if data is None else str(data)

    def store(self, slot: SnapshotSlot, serialized: str) -> None:
        collection = SnapshotCollection(location=str(slot.path))
        collection.add(Snapshot(name=slot.case, data=serialized))
        self.write_snapshot_collection(snapshot_collection=collection)

    @classmethod
    def write_snapshot_collection(
        cls,
        *,
        snapshot_collection: SnapshotCollection,
        name_order: dict[str, int] | None = None,
    ) -> None:
        """Every snapshot file, from the command line or from syrupy under pytest, is
        written as the store writes artefacts: whole or not at all, so a run interrupted
        mid-write leaves the old snapshot or the new one, never half of one.  (The path
        was checked when the slot made it; the one snapshot in the collection is the
        file's text, as syrupy's single-file extensions write it.)"""
        path = Path(snapshot_collection.location)
        data = next(iter(snapshot_collection)).data
        if not isinstance(data, str):
            raise TypeError(f"a snapshot is text, not {type(data).__name__}")
        ArtefactStore(path.parent).write(path, data)


def emitted_bodies(transcript: Transcript) -> list[Any]:
    """Every request body the target sent, parsed with key order kept."""
    bodies: list[Any] = []
    for exchange in transcript.exchanges:
        raw = exchange.request.body
        try:
            bodies.append(json.loads(raw, object_pairs_hook=OrderedDict))
        except ValueError:
            bodies.append(OrderedDict(unparsed=raw.decode("utf-8", errors="replace")))
    return bodies


def stale_snapshots(root: Path, target: str, planned: Iterable[tuple[str, str]]) -> list[Path]:
    """The snapshot files under ``<root>/<target>/`` that no planned ``(column, case)``
    owns, sorted: one directory walk and one set difference."""
    segment(target, "the target name")
    owned = {SnapshotSlot(root, target, column, case).path for column, case in planned}
    found = (root / target).rglob(f"*.{RequestBodies.file_extension}")
    return sorted(path for path in found if path not in owned and path.is_file())


def remove_snapshots(root: Path, target: str, paths: Iterable[Path]) -> None:
    """Delete the files, then the column directories they leave empty; each path must
    lie under ``<root>/<target>/`` (``_paths.inside``), or nothing is deleted."""
    home = root / segment(target, "the target name")
    chosen = [inside(home, path) for path in paths]
    emptied: set[Path] = set()
    for path in chosen:
        path.unlink(missing_ok=True)
        emptied.add(path.parent)
    for directory in sorted(emptied, reverse=True):
        if directory != home and not any(directory.iterdir()):
            directory.rmdir()


#: The most lines of a snapshot diff a report carries.
DIFF_LINES = 40


def bounded_diff(stored: str, emitted: str) -> str:
    """A unified diff of a drifted snapshot, its first ``DIFF_LINES`` lines."""
    lines = list(
        difflib.unified_diff(
            stored.splitlines(), emitted.splitlines(), "snapshot", "emitted", n=2, lineterm=""
        )
    )
    shown = lines[:DIFF_LINES]
    if len(lines) > DIFF_LINES:
        shown.append(f"... {len(lines) - DIFF_LINES} more lines")
    return "\n".join(shown)


def corruption(stored: str) -> str | None:
    """What is wrong with a stored snapshot's text that no target could have caused, or
    ``None``: an empty file or one cut short (an interrupted write, a full disk) is a
    corrupt file, and a drift diff against it would blame the target."""
    if not stored.strip():
        return f"is empty ({len(stored.encode())} bytes)"
    try:
        json.loads(stored)
    except (ValueError, RecursionError) as error:
        return f"is not JSON ({str(error)[:80]})"
    return None


class SnapshotStore:
    """The command line's face of ``RequestBodies``: compare (and optionally update) the
    snapshots under ``root`` for one target."""

    def __init__(self, root: Path, target: str, update: bool = False) -> None:
        self.root = root
        self.target = target
        self.update = update
        self.extension = RequestBodies()

    def check(self, wire: str, case_id: str, transcript: Transcript) -> SnapshotState:
        """Compare the emitted bodies, serialized, with the stored snapshot text (as the
        plugin's syrupy assertion does); write it when updating and it differs."""
        return self.compare(wire, case_id, transcript)[0]

    def compare(
        self, wire: str, case_id: str, transcript: Transcript
    ) -> tuple[SnapshotState, str | None]:
        """``check``, with the diff of a changed snapshot (stored -> emitted, bounded)."""
        slot = SnapshotSlot(self.root, self.target, wire, case_id)
        serialized = str(self.extension.serialize(emitted_bodies(transcript)))
        problem: str | None = None  # why the stored file is corrupt
        try:
            stored = self.extension.recall(slot)
        except ValueError:  # not text: a corrupt snapshot, rewritten when updating
            stored, problem = "", "is not UTF-8 text"
        except OSError as error:  # unreadable: the cell's verdict stands, the drift says why
            return "changed", f"cannot read the snapshot {slot.path}: {error.strerror or error}"
        else:
            problem = None if stored is None else corruption(stored)
        state: SnapshotState
        if stored is None:
            state = "new"
        elif self.extension.matches(serialized_data=serialized, snapshot_data=stored):
            state = "match"
        else:
            state = "changed"
        diff = bounded_diff(stored or "", serialized) if state == "changed" else None
        if problem is not None:  # a corrupt file, not a drift: no diff that blames the target
            rewrite = "" if self.update else "; --update-snapshots rewrites it"
            diff = f"the snapshot {slot.path} {problem}: a corrupt file, not a drift{rewrite}"
        if self.update and state != "match":
            try:
                self.extension.store(slot, serialized)
            except OSError as error:
                why = f"cannot write the snapshot {slot.path}: {error.strerror or error}"
                return "changed", why if diff is None else f"{why}\n{diff}"
        return state, diff

    def sweep(self, planned: Iterable[tuple[str, str]]) -> list[Path]:
        """The stale snapshots of the target, removed when updating."""
        stale = stale_snapshots(self.root, self.target, planned)
        if self.update:
            remove_snapshots(self.root, self.target, stale)
        return stale
