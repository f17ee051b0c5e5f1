"""Snapshots of emitted request bodies: a regression net, never the verdict.

One file per case × column at ``<root>/<target>/<column>/<case>.json``, serialized by
syrupy's JSON extension, so the pytest plugin (through syrupy) and the command line
(``--snapshots``) read and write the very same bytes.  Key order is kept as the target
emitted it: it is part of what a prompt cache sees.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

from conformance.transcript import Transcript
from conformance.verdict import SnapshotState


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


def serialize(data: Any) -> str:
    """The snapshot text of ``data`` (syrupy's JSON serialization)."""
    from syrupy.extensions.json import JSONSnapshotExtension

    return str(JSONSnapshotExtension().serialize(data))


def snapshot_path(root: Path, target: str, column: str, case_id: str) -> Path:
    """``<root>/<target>/<column>/<case>.json``; a dialect column's ``:`` becomes ``+``
    (``openai-chat+deepseek``) so the path is valid on every file system."""
    return root / target / column.replace(":", "+") / f"{case_id}.json"


class SnapshotStore:
    """Compare (and optionally update) snapshots under ``root`` for one target."""

    def __init__(self, root: Path, target: str, update: bool = False) -> None:
        self.root = root
        self.target = target
        self.update = update

    def check(self, wire: str, case_id: str, transcript: Transcript) -> SnapshotState:
        """Compare the emitted bodies with the stored snapshot (order-sensitive: the
        stored JSON is read back with its key order, and OrderedDicts compare in order);
        write it when updating and it differs."""
        path = snapshot_path(self.root, self.target, wire, case_id)
        bodies = emitted_bodies(transcript)
        try:
            stored: Any = json.loads(path.read_bytes(), object_pairs_hook=OrderedDict)
        except FileNotFoundError:
            state: SnapshotState = "new"
        except ValueError:
            state = "changed"
        else:
            state = "match" if stored == bodies else "changed"
        if self.update and state != "match":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(serialize(bodies), encoding="utf-8")
        return state
