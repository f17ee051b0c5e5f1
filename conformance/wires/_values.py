"""Small value helpers every wire module uses on JSON it renders or reads.

Request bodies come from code under test, so nothing in them can be trusted to have the
type the provider documents: these accessors return a safe default instead of raising.
"""

from __future__ import annotations

import hashlib
import json

from conformance.vocabulary import ToolCall


def digest(*parts: object) -> str:
    """A stable hex digest of ``parts`` (deterministic ids and token counts)."""
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


def compact(value: object) -> str:
    """JSON text without spaces, as providers send it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def text(value: object) -> str:
    """A string field, or ``""`` when it is not one."""
    return value if isinstance(value, str) else ""


def optional_text(value: object) -> str | None:
    """A string field, or ``None`` when it is not one."""
    return value if isinstance(value, str) else None


def integer(value: object) -> int | None:
    """An integer field (a JSON boolean is not one), or ``None``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def argument_text(call: ToolCall) -> str:
    """A call's arguments as the JSON text a provider streams (raw when cut)."""
    return call.arguments if isinstance(call.arguments, str) else compact(call.arguments)
