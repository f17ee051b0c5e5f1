"""Names that become paths, and writes that must stay under their root.

A target's name is a directory under the snapshot and saved-exchange roots, a case id
and a column are names under it.  One check serves every name a user gives
(``--target-name``, ``--conformance-target-name``, ``target_name``, a manifest's
``name``, an adapter's ``name``): a single path segment of letters, digits, ``.``, ``_``
and ``-`` that is not ``.`` or ``..``.  Every delete and write then proves its path is
inside its root, so no name, link or later change can reach a file outside it.
"""

from __future__ import annotations

import re
from pathlib import Path

#: A name that is one safe path segment (``.`` and ``..`` are refused separately).
SEGMENT = re.compile(r"^[A-Za-z0-9._+-]+$")


class UnsafePath(ValueError):
    """A name or a path that would leave its root."""


def segment(name: str, what: str) -> str:
    """``name`` when it is one safe path segment, else ``UnsafePath`` saying why."""
    if name in (".", "..") or not SEGMENT.fullmatch(name):
        raise UnsafePath(
            f"{what} {name!r} is not a name the suite can use as a directory: use letters, "
            "digits, '.', '_', '+' and '-' only (no '/', not '.' or '..')"
        )
    return name


def inside(root: Path, path: Path) -> Path:
    """``path`` when it resolves to a place under ``root`` (links followed), else
    ``UnsafePath``: what every write and delete under a root asks first."""
    base = root.resolve()
    where = path.resolve()
    if where != base and base not in where.parents:
        raise UnsafePath(f"{path} is outside {root}: refused")
    return path
