"""The wires the suite knows, by name, and the columns (wire or ``wire:dialect``) a case
or a target can name.

Wires are discovered, never listed by hand: every package under ``conformance/wires/``
that keeps the contract (``contract.assemble`` builds its ``Wire``), and every wire an
installed distribution declares in the entry-point group ``wire_conformance.wires``
(``name = "dotted.package"``), as pytest and hypothesis load their plugins.  Discovery
runs once, on first use, so importing the suite stays cheap.  A plugin that fails to load
is left out with a ``WirePluginWarning`` naming its distribution and entry point (the
other wires still run), and asking for its wire by name repeats why.

``get_wire(name).rules`` is every rule of a wire, in the order its provider checks them
(derived from the wire's rule book, ``conformance/wires/rulebook.py``).
"""

from __future__ import annotations

import pkgutil
import warnings
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from pathlib import Path

from conformance.wires.contract import assemble
from conformance.wires.roles import ClientEnvironment, Wire

#: The entry-point group a distribution declares its wire packages in.
WIRE_GROUP = "wire_conformance.wires"
#: Where the bundled wire packages sit, and their dotted prefix.
_BUNDLED = Path(__file__).parent
_PREFIX = "conformance.wires."


class WirePluginWarning(UserWarning):
    """A wire an installed distribution declares could not be loaded."""


def bundled_packages() -> tuple[str, ...]:
    """The dotted names of the wire packages under ``conformance/wires/``."""
    return tuple(
        _PREFIX + info.name
        for info in sorted(pkgutil.iter_modules([str(_BUNDLED)]), key=lambda i: i.name)
        if info.ispkg and not info.name.startswith("_")
    )


def plugin_entry_points() -> tuple[metadata.EntryPoint, ...]:
    """The wires installed distributions declare, in a stable order."""
    found = metadata.entry_points(group=WIRE_GROUP)
    return tuple(sorted(found, key=lambda ep: (ep.name, ep.value)))


def describe(entry: metadata.EntryPoint) -> str:
    """An entry point as a user finds it in the distribution's metadata."""
    dist = entry.dist
    origin = f"distribution {dist.name} {dist.version}" if dist is not None else "no distribution"
    return f"entry point {entry.name} = {entry.value} (group {WIRE_GROUP}, {origin})"


@cache
def _discovered() -> tuple[dict[str, Wire], dict[str, str]]:
    """Every wire by name, and why each plugin that failed to load did (by entry name)."""
    wires = {wire.name: wire for wire in map(assemble, bundled_packages())}
    failures: dict[str, str] = {}
    for entry in plugin_entry_points():
        try:
            wire = assemble(entry.value.partition(":")[0].strip())
        except Exception as error:  # a broken plugin must not take the other wires down
            failures[entry.name] = f"{describe(entry)} failed to load: {error!r}"
            continue
        if wire.name != entry.name:
            failures[entry.name] = f"{describe(entry)} names wire {wire.name!r}, not its own name"
        elif wires.get(wire.name, wire) is not wire:
            failures[entry.name] = f"{describe(entry)}: a wire {wire.name!r} is already known"
        else:
            wires[wire.name] = wire
    for failure in failures.values():
        warnings.warn(f"wire-conformance: {failure}", WirePluginWarning, stacklevel=3)
    return dict(sorted(wires.items())), failures


def _wires() -> dict[str, Wire]:
    return _discovered()[0]


def wire_names() -> tuple[str, ...]:
    return tuple(_wires())


def get_wire(name: str) -> Wire:
    """The wire called ``name``; ``KeyError`` names the known ones (and, for a plugin
    that failed to load, why)."""
    try:
        return _wires()[name]
    except KeyError:
        failure = _discovered()[1].get(name)
        known = f"unknown wire {name!r}; known: {', '.join(wire_names())}"
        raise KeyError(f"{known} ({failure})" if failure else known) from None


def client_environments() -> dict[str, ClientEnvironment]:
    """How each wire's clients find its provider, for the wires any client can reach."""
    return {name: wire.client for name, wire in _wires().items() if wire.client is not None}


def client_variables(base_url: str) -> dict[str, str]:
    """Every variable that points a provider's clients at ``base_url``, for all wires
    (their base URLs and dummy keys)."""
    found: dict[str, str] = {}
    for client in client_environments().values():
        found.update(client.variables(base_url))
    return found


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
