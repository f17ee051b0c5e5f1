"""Names that become paths, writes that must stay under their root, and reports
written whole or not at all.

A target's name is a directory under the snapshot and saved-exchange roots, a case id
and a column are names under it; a recording lives under its wire's directory.  One
check serves every name a user gives (``--target-name``, ``--conformance-target-name``,
``target_name``, a manifest's ``name``, an adapter's ``name``): a single path segment of
letters, digits, ``.``, ``_``, ``+`` and ``-`` that is not ``.`` or ``..``.  One store
(``ArtefactStore``) places every per-cell artefact (snapshots, saved exchanges) and every
recording: each name it is given must be one such segment and the file it names must
resolve inside its root, so no name, link or later change can reach a file outside it,
whichever of the three writes.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from conformance.errors import UnsafePath

#: A name that is one safe path segment (``.`` and ``..`` are refused separately).
SEGMENT = re.compile(r"^[A-Za-z0-9._+-]+$")
#: The characters a file name the suite derives from someone else's (an imported
#: cassette's path) keeps; the others become ``_`` (``file_name``).  Wider than a
#: target name's: a pytest-recording cassette is named ``test_x[param=1]``.
FILE_NAME = re.compile(r"^[A-Za-z0-9._=+,\[\]-]+$")
_NOT_FILE_NAME = re.compile(r"[^A-Za-z0-9._=+,\[\]-]+")


def segment(name: str, what: str, allowed: re.Pattern[str] = SEGMENT) -> str:
    """``name`` when it is one safe path segment, else ``UnsafePath`` saying why."""
    if name in (".", "..") or not allowed.fullmatch(name):
        shown = "letters, digits, '.', '_', '+' and '-'"
        if allowed is FILE_NAME:
            shown = "letters, digits and '._=+,[]-'"
        raise UnsafePath(
            f"{what} {name!r} is not a name the suite can use as a directory: use {shown} "
            "only (no '/', not '.' or '..')"
        )
    return name


def file_name(text: str, fallback: str) -> str:
    """``text`` as one file name ``ArtefactStore.file`` accepts: every run of other
    characters becomes ``_``; ``fallback`` when nothing (or only ``.``/``..``) is left."""
    name = _NOT_FILE_NAME.sub("_", text)
    return fallback if name in ("", ".", "..") else name


@dataclass(frozen=True)
class ArtefactStore:
    """The one place a per-cell artefact or a recording gets its path under ``root``.

    Snapshots and saved exchanges sit at ``<root>/<target>/<column>/<case>.<extension>``
    (``cell``), recordings at ``<root>/<wire>/.../<name>.json`` (``file``).  Every name is
    checked as one path segment and the path it makes must resolve inside ``root``
    (``inside``: a link under the root that points out is refused), before anything is
    read, written or deleted there; ``write`` writes whole or not at all."""

    root: Path

    def cell(self, target: str, column: str, case: str, extension: str) -> Path:
        """Where every artefact of one cell lives (its snapshot, its saved exchanges), so
        each kind of artefact finds its cell the same way.  A dialect column's ``:``
        becomes ``+`` (``openai-chat+deepseek``), a valid name on every file system."""
        home = segment(target, "the target name")
        column = segment(column.replace(":", "+"), "the column")
        case = segment(case, "the case id")
        name = segment(f"{case}.{extension}", "the file name")
        return inside(self.root, self.root / home / column / name)

    def file(self, *names: str) -> Path:
        """``<root>/<names...>``: each name one file-name segment (``FILE_NAME``)."""
        checked = [segment(name, "the recording's path part", FILE_NAME) for name in names]
        return inside(self.root, self.root.joinpath(*checked))

    def write(self, path: Path, text: str) -> None:
        """Write ``text`` to ``path`` (a path this store gave) whole: beside it, then
        renamed over, so a reader never sees half a file; refused outside the root."""
        inside(self.root, path).parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, (text,))


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


def write_report(path: Path, text: str | Iterable[str]) -> str | None:
    """Write ``text`` to ``path`` whole or not at all, and say why not (``None`` when it
    was written): a regular file as ``write_whole`` writes it, so a full disk never leaves
    a truncated report where a complete one was; a device or a pipe (``/dev/stdout``,
    ``/dev/full``) directly.  ``text`` may come in pieces, each written as it comes, so a
    report of many cells is never one string in memory."""
    pieces = (text,) if isinstance(text, str) else text
    try:
        if path.exists() and not path.is_file():
            with path.open("wb") as stream:
                _write_pieces(stream, pieces)
        else:
            write_whole(path, pieces)
    except OSError as error:
        return f"cannot write report {path}: {error.strerror or error}"
    return None


def write_whole(path: Path, pieces: Iterable[str]) -> None:
    """Write the ``pieces`` of a text to the regular file ``path`` whole or not at all:
    beside it, then renamed over, so a reader never sees half a file; a failed write
    leaves nothing beside it.  The file keeps its mode (a new one gets the umask's)."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            _write_pieces(stream, pieces)
        os.chmod(temporary, mode)  # as a plain write would have left it
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _write_pieces(stream: BinaryIO, pieces: Iterable[str]) -> None:
    for piece in pieces:
        stream.write(piece.encode("utf-8"))


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
