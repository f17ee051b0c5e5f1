"""The wires the suite knows, by name, and the columns (wire or ``wire:dialect``) a case
or a target can name.

Wires are discovered, never listed by hand: every package under ``conformance/wires/``
that keeps the contract (``_assembly.assemble`` builds its ``Wire``), and every wire an
installed distribution declares in the entry-point group ``wire_conformance.wires``
(``conformance._plugins``), read once, on first use.  A plugin that fails to load is left
out with a warning naming its distribution and entry point (the other wires still run),
and asking for its wire by name repeats why.

``get_wire(name).rules`` is every rule of a wire, in the order its provider checks them
(derived from the wire's rule book, ``conformance.catalogue.book``; each rule's data is
the catalogue's, ``conformance/catalogue/checks.yaml``).
"""

from __future__ import annotations

import pkgutil
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from conformance._plugins import WIRES, Plugin, load_each, warn
from conformance.catalogue._checks import contribute_beside
from conformance.wires._assembly import assemble
from conformance.wires.roles import ClientEnvironment, Wire

#: Where the bundled wire packages sit, and their dotted prefix.
_BUNDLED = Path(__file__).parent
_PREFIX = "conformance.wires."


def bundled_packages() -> tuple[str, ...]:
    """The dotted names of the wire packages under ``conformance/wires/``."""
    return tuple(
        _PREFIX + info.name
        for info in sorted(pkgutil.iter_modules([str(_BUNDLED)]), key=lambda i: i.name)
        if info.ispkg and info.name.startswith("_") and not info.name.startswith("__")
    )


def _plugin_wire(plugin: Plugin) -> Wire:
    contribute_beside(plugin.module)  # its checks' data, before its rules look them up
    wire = assemble(plugin.module)
    if wire.name != plugin.name:
        raise ValueError(f"its package names the wire {wire.name!r}, not {plugin.name!r}")
    return wire


@cache
def _discovered() -> tuple[dict[str, Wire], dict[str, str]]:
    """Every wire by name, and why each plugin that failed to load did (by entry name)."""
    wires = {wire.name: wire for wire in map(assemble, bundled_packages())}
    loaded, failures = load_each(WIRES, _plugin_wire)
    for plugin, wire in loaded:
        if wires.setdefault(wire.name, wire) is not wire:
            failures[plugin.name] = f"{plugin.describe()}: a wire {wire.name!r} is already known"
            warn(failures[plugin.name])
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
