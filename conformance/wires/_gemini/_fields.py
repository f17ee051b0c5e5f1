"""Lenient access to the JSON of a Gemini body.

The API reads every field under its JSON name or its proto name (``thoughtSignature`` or
``thought_signature``), and a body from code under test may hold anything where an object
belongs, so these accessors never raise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_CAPITAL = re.compile(r"([A-Z])")


def get(item: Mapping[str, Any], name: str) -> Any:
    """A field by its JSON name, else by its proto name (the API accepts both)."""
    if name in item:
        return item[name]
    return item.get(_CAPITAL.sub(r"_\1", name).lower())


def as_object(value: object) -> dict[str, Any]:
    """A JSON object, or ``{}`` when the value is not one."""
    return value if isinstance(value, dict) else {}


def nonempty_text(value: object) -> str | None:
    """A non-empty string, else None (an empty bytes or id field is an unset one)."""
    return value if isinstance(value, str) and value else None
