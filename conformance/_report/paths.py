"""Where reports and snapshots will be written, checked before the run.

A run can take minutes; a report path whose folder is missing or not writable must
not lose its results at the end.  Missing parent folders are created; a path that
cannot be written is refused up front, as a usage error.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from conformance.errors import OutputPathError


def _writable_folder(folder: Path, what: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputPathError(f"{what} {folder}: cannot create it: {error.strerror}") from None
    if not folder.is_dir():
        raise OutputPathError(f"{what} {folder}: not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputPathError(f"{what} {folder}: not writable")


def prepare_outputs(reports: Sequence[Path], snapshots: Path | None) -> None:
    """Create the parents of ``reports`` and the ``snapshots`` folder; raise
    ``OutputPathError`` naming the first path that cannot be written."""
    for path in reports:
        if path.is_dir():
            raise OutputPathError(f"report {path}: is a folder, not a file")
        if path.exists() and not os.access(path, os.W_OK):
            raise OutputPathError(f"report {path}: not writable")
        _writable_folder(path.parent, f"report {path}: folder")
    if snapshots is not None:
        _writable_folder(snapshots, "snapshots folder")
