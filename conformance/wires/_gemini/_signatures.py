"""thoughtSignature: where it sits on a Gemini part (the bytes themselves, their
spellings and the dummy signatures are ``conformance.wires._thought_signatures``, shared
with Gemini's OpenAI-compatible endpoint)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.wires._gemini._fields import get, nonempty_text
from conformance.wires._thought_signatures import canonical


def part_signature(part: Mapping[str, Any]) -> str | None:
    """The part-level thoughtSignature of a part (never one nested in functionCall), as
    sent."""
    return nonempty_text(get(part, "thoughtSignature"))


def signature_bytes(part: Mapping[str, Any]) -> str | None:
    """A part's thoughtSignature as the neutral view carries it: its bytes in canonical
    standard base64 (the form Gemini mints), whichever spelling was sent."""
    value = part_signature(part)
    return None if value is None else canonical(value)
