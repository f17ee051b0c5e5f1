"""The wires the suite knows, by name."""

from __future__ import annotations

from functools import cache

from conformance.wires.base import Wire

_MODULES = {
    "anthropic_messages": "AnthropicMessages",
    "openai_responses": "OpenAIResponses",
    "openai_chat": "OpenAIChat",
    "gemini": "Gemini",
}


@cache
def _wires() -> dict[str, Wire]:
    import importlib
    import importlib.util

    found: list[Wire] = []
    for module, cls in _MODULES.items():  # TEMPORARY while the wires are being written
        if importlib.util.find_spec(f"conformance.wires.{module}") is None:
            continue
        found.append(getattr(importlib.import_module(f"conformance.wires.{module}"), cls)())
    return {wire.name: wire for wire in found}


def wire_names() -> tuple[str, ...]:
    return tuple(sorted(_wires()))


def get_wire(name: str) -> Wire:
    """The wire called ``name``; ``KeyError`` names the known ones."""
    try:
        return _wires()[name]
    except KeyError:
        raise KeyError(f"unknown wire {name!r}; known: {', '.join(wire_names())}") from None


def dialects_by_wire() -> dict[str, tuple[str, ...]]:
    return {name: wire.dialects for name, wire in _wires().items()}


def split_column(column: str) -> tuple[str, str | None]:
    """``"openai-chat:deepseek"`` -> ``("openai-chat", "deepseek")``; a bare wire name
    has no dialect.  A column is one wire, or one dialect of a wire."""
    wire, _, dialect = column.partition(":")
    return wire, dialect or None


def columns() -> tuple[str, ...]:
    """Every valid column: each wire, and each ``wire:dialect``."""
    found: list[str] = []
    for name in wire_names():
        found.append(name)
        found.extend(f"{name}:{dialect}" for dialect in _wires()[name].dialects)
    return tuple(found)
