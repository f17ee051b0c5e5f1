"""The wires the suite knows, by name."""

from __future__ import annotations

from functools import cache

from conformance.wires.base import Wire


@cache
def _wires() -> dict[str, Wire]:
    from conformance.wires.anthropic_messages import AnthropicMessages

    found: list[Wire] = [AnthropicMessages()]
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
