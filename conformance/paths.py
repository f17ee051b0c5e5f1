"""Names that become paths, writes that must stay under their root, and reports
written whole or not at all.

A target's name is a directory under the snapshot and saved-exchange roots, a case id
and a column are names under it.  One check serves every name a user gives
(``--target-name``, ``--conformance-target-name``, ``target_name``, a manifest's
``name``, an adapter's ``name``): a single path segment of letters, digits, ``.``, ``_``
and ``-`` that is not ``.`` or ``..``.  Every delete and write then proves its path is
inside its root, so no name, link or later change can reach a file outside it.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from conformance.errors import UnsafePath

#: A name that is one safe path segment (``.`` and ``..`` are refused separately).
SEGMENT = re.compile(r"^[A-Za-z0-9._+-]+$")


def segment(name: str, what: str) -> str:
    """``name`` when it is one safe path segment, else ``UnsafePath`` saying why."""
    if name in (".", "..") or not SEGMENT.fullmatch(name):
        raise UnsafePath(
            f"{what} {name!r} is not a name the suite can use as a directory: use letters, "
            "digits, '.', '_', '+' and '-' only (no '/', not '.' or '..')"
        )
    return name


def cell_file(root: Path, target: str, column: str, case: str, extension: str) -> Path:
    """``<root>/<target>/<column>/<case>.<extension>``: where every artefact of one cell
    lives (its snapshot, its saved exchanges), so each kind of artefact finds its cell the
    same way.  A dialect column's ``:`` becomes ``+`` (``openai-chat+deepseek``), a valid
    name on every file system; the target name is checked as one segment."""
    home = root / segment(target, "the target name")
    return home / column.replace(":", "+") / f"{case}.{extension}"


def printable(name: str) -> str:
    """A file name as the suite prints it: every character that is not printable (a
    newline, an escape sequence, a bidi control) escaped as Python writes it, so a name
    can neither break a report's line into two nor restyle a terminal."""
    if name.isprintable():
        return name
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in name)


def inside(root: Path, path: Path) -> Path:
    """``path`` when it resolves to a place under ``root`` (links followed), else
    ``UnsafePath``: what every write and delete under a root asks first."""
    base = root.resolve()
    where = path.resolve()
    if where != base and base not in where.parents:
        raise UnsafePath(f"{path} is outside {root}: refused")
    return path


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
