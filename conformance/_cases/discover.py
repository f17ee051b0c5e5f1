"""Find the case files of a directory, and name every entry that cannot be one.

A folder walk that skips what it cannot use hides cases: an unreadable subfolder, a
``*.yaml`` link that dangles or loops, a FIFO (opening one would block the suite), a
linked family folder.  Each becomes a ``LoadProblem`` naming the entry and why; nothing
here opens a file.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from conformance._cases.load_problem import LoadProblem

SUFFIX = ".yaml"


@dataclass(frozen=True)
class Found:
    """The case files under a directory, sorted, and the entries that cannot be read."""

    files: tuple[Path, ...]
    errors: tuple[LoadProblem, ...]


def _error(path: Path, message: str) -> LoadProblem:
    return LoadProblem(file=str(path), line=None, field=None, message=message)


def _link_problem(path: Path) -> str | None:
    """Why a symbolic link cannot be followed (dangling, looping), or ``None``."""
    try:
        path.stat()
    except FileNotFoundError:
        return f"a dangling link (to {os.readlink(path)}, which does not exist)"
    except OSError as error:
        return f"a link that cannot be followed: {error.strerror}"
    return None


def _file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _entry(entry: os.DirEntry[str], folders: list[Path], found: list[Path]) -> str | None:
    """Sort one directory entry; return why it cannot be used, if it cannot.  A plain
    file or folder is told by the type the listing gave (no ``stat`` per file)."""
    if entry.is_symlink():
        path = Path(entry.path)
        problem = _link_problem(path)
        if problem is not None:
            return problem if path.suffix == SUFFIX else None
        if path.is_dir():
            return "a linked folder: links to folders are not followed (add it with --cases)"
    elif entry.is_dir(follow_symlinks=False):
        folders.append(Path(entry.path))
        return None
    name = entry.name
    if not name.endswith(SUFFIX) or name == SUFFIX:  # as ``Path.suffix`` reads it
        return None
    path = Path(entry.path)
    if entry.is_file():  # a link's target is looked at; a plain file's listed type
        found.append(path)
        return None
    return f"{_file_kind(path.stat().st_mode)}, not a case file"


def _order(path: Path) -> tuple[str, ...]:
    """The order of ``sorted`` on paths (part by part), computed once per path."""
    return path.parts


def case_files(directory: Path) -> Found:
    """Every ``*.yaml`` regular file under ``directory`` (links to files followed), and
    an error for each entry that hides or blocks one."""
    found: list[Path] = []
    errors: list[LoadProblem] = []
    folders = [directory]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError as error:
            errors.append(_error(folder, f"cannot list this folder: {error.strerror}"))
            continue
        for entry in listed:
            problem = _entry(entry, folders, found)
            if problem is not None:
                errors.append(_error(Path(entry.path), problem))
    return Found(tuple(sorted(found, key=_order)), tuple(sorted(errors, key=lambda e: e.file)))
