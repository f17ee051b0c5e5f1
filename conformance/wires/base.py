"""Deprecated: ``conformance.wires.base`` is ``conformance.wires.context`` now.

The module was renamed for what it holds; this name forwards to the new one, with one
``DeprecationWarning``, for one release, so an outside wire written against it keeps
working while it moves.  Nothing in the suite imports it.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_NEW = "conformance.wires.context"
_warned: list[bool] = []


def __getattr__(name: str) -> Any:
    if not _warned:
        _warned.append(True)
        warnings.warn(f"{__name__} is deprecated: use {_NEW}", DeprecationWarning, stacklevel=2)
    return getattr(importlib.import_module(_NEW), name)
