"""Where reports and snapshots will be written, checked before the run.

A run can take minutes; a report path whose folder is missing or not writable must
not lose its results at the end.  Missing parent folders are created; a path that
cannot be written is refused up front, as a usage error.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from conformance.errors import ConformanceError


class OutputPathError(ConformanceError, ValueError):
    """A report or snapshot path the suite could not write."""


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


def write_report(path: Path, text: str) -> str | None:
    """Write ``text`` to ``path`` whole or not at all, and say why not (``None`` when it
    was written): a regular file is written beside itself and renamed over, so a full
    disk never leaves a truncated report where a complete one was; a device or a pipe
    (``/dev/stdout``, ``/dev/full``) is written directly."""
    data = text.encode("utf-8")
    try:
        if path.exists() and not path.is_file():
            path.write_bytes(data)
            return None
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.chmod(temporary, mode)  # as a plain write would have left it
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        return f"cannot write report {path}: {error.strerror or error}"
    return None


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
