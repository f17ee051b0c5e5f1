"""The wires the suite knows, by name, and the columns (wire or ``wire:dialect``) a case
or a target can name.

``get_wire(name).rules`` is every rule of a wire, in the order its provider checks them
(derived from the wire's rule book, ``conformance.catalogue.book``; each rule's data is
the catalogue's, ``conformance/catalogue/checks.yaml``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from conformance.wires.roles import Wire


@cache
def _wires() -> dict[str, Wire]:
    from conformance.wires.anthropic_messages.wire import WIRE as ANTHROPIC_MESSAGES
    from conformance.wires.gemini.wire import WIRE as GEMINI
    from conformance.wires.openai_chat.wire import WIRE as OPENAI_CHAT
    from conformance.wires.openai_responses.wire import WIRE as OPENAI_RESPONSES

    found = [ANTHROPIC_MESSAGES, OPENAI_RESPONSES, OPENAI_CHAT, GEMINI]
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


def declarable() -> tuple[str, ...]:
    """Every name a target may declare: a wire (which covers all of its dialects), a
    column, and ``wire:<plain dialect>`` for the column without a dialect alone."""
    plain = [f"{n}:{w.plain_dialect}" for n, w in _wires().items() if w.plain_dialect]
    return (*columns(), *plain)


def declared_columns(declared: Iterable[str]) -> frozenset[str]:
    """The columns a declaration covers: a bare wire all of its own (with each dialect),
    ``wire:<plain dialect>`` the column without a dialect, a column itself."""
    found: set[str] = set()
    for name in declared:
        wire, dialect = split_column(name)
        known = _wires().get(wire)
        if known is None:
            continue
        if dialect is None:
            found |= {wire, *(f"{wire}:{d}" for d in known.dialects)}
        elif dialect == known.plain_dialect:
            found.add(wire)
        else:
            found.add(name)
    return frozenset(found)
