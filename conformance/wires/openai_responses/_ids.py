"""Item ids as the Responses wire reads them, shared by parse, state, checks and read."""

from __future__ import annotations


def nonempty_id(value: object) -> str | None:
    """An item id; an empty one counts as none (OpenAI tolerates ``"id": ""``)."""
    return value if isinstance(value, str) and value else None
