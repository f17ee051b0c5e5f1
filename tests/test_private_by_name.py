"""A user tells public from private by the name alone: every module of
``conformance`` with no underscore on its path (``conformance._runner`` and
``conformance.wires._gemini.parse`` are private) is listed in docs/api.md, sits in a
package whose modules are all public (``OPEN_PACKAGES``), or is a package that only
houses listed modules.  The renamed
public modules kept one release as shims are the one exception."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import conformance
from tests.test_public_surface import OPEN_PACKAGES, public_modules

PACKAGE = Path(conformance.__file__).parent
#: Renamed public modules that forward to their new name for one release.
DEPRECATED = frozenset({"conformance.model", "conformance.wires.base"})


def module_names() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def unlisted_public(modules: Iterable[str], listed: set[str]) -> list[str]:
    """The modules named as public (no ``_`` on their path) that the list does not hold."""
    houses = {".".join(m.split(".")[:cut]) for m in listed for cut in range(1, m.count(".") + 1)}
    found = []
    for module in modules:
        parts = module.split(".")
        if any(p.startswith("_") and p != "__main__" for p in parts[1:]):
            continue
        if parts[-1] == "__main__":  # what `python -m` runs: its package decides
            module = ".".join(parts[:-1])
        if module in listed or module in houses or module in DEPRECATED:
            continue
        if module.startswith(tuple(f"{p}." for p in OPEN_PACKAGES)):
            continue
        found.append(module)
    return found


def test_every_module_without_an_underscore_is_in_the_public_list() -> None:
    assert unlisted_public(module_names(), public_modules()) == []


def test_the_check_flags_a_public_looking_module_the_list_lacks() -> None:
    modules = [
        "conformance.wires",
        "conformance.wires.roles",
        "conformance.wires.helpers",
        "conformance._runner",
        "conformance.wires._gemini.parse",
        "conformance.catalogue.__main__",
        "conformance.generate.anything",
        "conformance.tools.__main__",
    ]
    listed = {"conformance.wires.roles", "conformance.catalogue.book", "conformance.generate"}
    assert unlisted_public(modules, listed) == ["conformance.wires.helpers", "conformance.tools"]
