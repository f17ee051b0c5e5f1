"""The one way an old public name keeps working for one release after a rename.

A renamed module leaves a two-line module at its old name whose ``__getattr__`` comes
from :func:`forwarding_getattr`; a renamed attribute of a package is looked up through
:func:`warn_renamed`.  Both warn once per old name with a ``DeprecationWarning`` that
names the new one, so a user's import keeps working while the warning tells them where
to move, and removing the shims after the release is deleting the modules that call
this one.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

_warned: set[str] = set()


def warn_renamed(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn once that ``old`` is ``new`` now (``stacklevel`` points at the user's line)."""
    if old in _warned:
        return
    _warned.add(old)
    warnings.warn(f"{old} is deprecated: use {new}", DeprecationWarning, stacklevel=stacklevel)


def forwarding_getattr(old: str, new: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the old module ``old``: every attribute comes from
    the module ``new``, the first lookup warning once."""

    def __getattr__(name: str) -> Any:
        warn_renamed(old, new)
        return getattr(importlib.import_module(new), name)

    return __getattr__


def forget_warnings() -> None:
    """Let every old name warn again (tests check the warning more than once)."""
    _warned.clear()
