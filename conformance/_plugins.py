"""The suite's extension points: the entry-point groups an installed distribution declares
its wires, check packs, case packs and named targets in (``docs/extending.md``), read the
way pytest and hypothesis load their plugins.

Each group is read once, on first use, never at import, so importing the suite stays
cheap.  A plugin that fails to load is left out with a ``PluginWarning`` that names its
distribution and entry point, so one broken package never takes the suite down; whoever
asks for what it would have provided is told why it is missing (``failures``).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from importlib import metadata

#: A distribution's wire packages: ``name = "dotted.package"``, the package keeping the
#: wire contract; the name is the wire's.
WIRES = "wire_conformance.wires"
#: A distribution's check packs: ``name = "dotted.module"``, a module whose
#: ``CHECKLIST`` judges every transcript after the suite's own checks.
CHECKS = "wire_conformance.checks"
#: A distribution's case packs: ``name = "dotted.package"``, a package whose directory
#: holds case files (``**/*.yaml``) and the ``FEATURES.txt`` they may use.
CASES = "wire_conformance.cases"
#: A distribution's named targets: ``name = "module:attr"``, what ``--target name`` runs
#: (an ``Adapter`` or ``Client`` class, instance or factory).
TARGETS = "wire_conformance.targets"
GROUPS = (WIRES, CHECKS, CASES, TARGETS)

_T = TypeVar("_T")


class PluginWarning(UserWarning):
    """An installed distribution's plugin could not be loaded and is left out."""


@dataclass(frozen=True)
class Plugin:
    """One entry point of a group, as a user finds it in a distribution's metadata."""

    group: str
    name: str
    value: str
    distribution: str

    def describe(self) -> str:
        return f"entry point {self.name} = {self.value} (group {self.group}, {self.distribution})"

    @property
    def module(self) -> str:
        """The dotted module the value names (``module:attr`` -> ``module``)."""
        return self.value.partition(":")[0].strip()

    def import_module(self) -> ModuleType:
        return importlib.import_module(self.module)


def _distribution(entry: metadata.EntryPoint) -> str:
    dist = entry.dist
    return f"distribution {dist.name} {dist.version}" if dist is not None else "no distribution"


@cache
def plugins(group: str) -> tuple[Plugin, ...]:
    """The entry points installed distributions declare in ``group``, in a stable order
    (``importlib.metadata`` is imported here, on first use, not with the suite)."""
    from importlib import metadata

    found = metadata.entry_points(group=group)
    return tuple(
        Plugin(group, entry.name, entry.value, _distribution(entry))
        for entry in sorted(found, key=lambda entry: (entry.name, entry.value))
    )


def load_each(
    group: str, load: Callable[[Plugin], _T]
) -> tuple[list[tuple[Plugin, _T]], dict[str, str]]:
    """``load`` applied to every plugin of ``group``: what loaded, and why each plugin
    that did not failed (by entry name), each failure also warned about once."""
    loaded: list[tuple[Plugin, _T]] = []
    failures: dict[str, str] = {}
    for plugin in plugins(group):
        try:
            loaded.append((plugin, load(plugin)))
        except Exception as error:  # one broken plugin must not take the suite down
            failures[plugin.name] = f"{plugin.describe()} failed to load: {error!r}"
    for failure in failures.values():
        warn(failure)
    return loaded, failures


def warn(failure: str) -> None:
    warnings.warn(f"wire-conformance: {failure}", PluginWarning, stacklevel=3)


def attribute(plugin: Plugin, name: str) -> Any:
    """``name`` of the plugin's module; ``AttributeError`` says the plugin lacks it."""
    module = plugin.import_module()
    if not hasattr(module, name):
        raise AttributeError(f"{plugin.module} has no {name}")
    return getattr(module, name)
