"""Item ids as the Responses wire reads them, shared by parse, state, checks and read."""

from __future__ import annotations


def nonempty_id(value: object) -> str | None:
    """An item id; an empty one counts as none (OpenAI tolerates ``"id": ""``)."""
    return value if isinstance(value, str) and value else None


def conversation_id(value: object) -> str | None:
    """The conversation a request continues: ``"conv_…"`` or ``{"id": "conv_…"}``."""
    if isinstance(value, dict):
        value = value.get("id")
    return nonempty_id(value)
