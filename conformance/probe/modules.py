"""A mutated module rebuilt in the running process; the user's files are never written.

The mutant's whole package (its *scope*: the target module's top-level package, or
``conformance.reference`` for the bundled reference) is imported afresh while the
mutated module's source comes from memory; every other module of the scope is
re-executed from its file, so ``from x import f`` elsewhere in the scope binds the
mutated ``f``.  On the way out, whatever happens, ``sys.modules`` and the parent
package's attribute are put back: the original modules are untouched objects.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import CodeType, ModuleType

from conformance.probe.mutate import ProbeInvalid

#: The suite's own package: only its bundled reference may be mutated in-process.
_SUITE = "conformance"


def scope_of(target_module: str) -> str:
    """The package a mutant of ``target_module`` is rebuilt with."""
    parts = target_module.split(".")
    if parts[0] == _SUITE:
        return ".".join(parts[:2])
    return parts[0]


def in_scope(name: str, scope: str) -> bool:
    return name == scope or name.startswith(scope + ".")


def module_for_path(path: Path, scope: str) -> str | None:
    """The loaded module of ``scope`` whose file is ``path``."""
    wanted = path.resolve()
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if in_scope(name, scope) and file and Path(file).resolve() == wanted:
            return name
    return None


def module_file(name: str) -> Path:
    """The source file of module ``name`` (found, not imported)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as error:
        raise ProbeInvalid(f"cannot find module {name!r}: {error}") from None
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        raise ProbeInvalid(f"module {name!r} has no Python source file")
    return Path(spec.origin)


class _MutantLoader(importlib.abc.Loader):
    def __init__(self, code: CodeType) -> None:
        self.code = code

    def exec_module(self, module: ModuleType) -> None:
        exec(self.code, module.__dict__)


class _MutantFinder(importlib.abc.MetaPathFinder):
    """Finds the mutated module first and hands it the in-memory code."""

    def __init__(self, name: str, code: CodeType) -> None:
        self.name = name
        self.code = code

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None:
            return None
        spec.loader = _MutantLoader(self.code)
        spec.cached = None
        return spec


@contextmanager
def mutated_modules(scope: str, name: str, code: CodeType) -> Iterator[None]:
    """Within the block, importing anything of ``scope`` gives the mutated family."""
    saved = {n: m for n, m in sys.modules.items() if in_scope(n, scope)}
    parent_name, _, child = scope.rpartition(".")
    parent = sys.modules.get(parent_name) if parent_name else None
    missing = object()
    parent_attr = getattr(parent, child, missing) if parent is not None else missing
    finder = _MutantFinder(name, code)
    for n in saved:
        del sys.modules[n]
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for n in [n for n in sys.modules if in_scope(n, scope)]:
            del sys.modules[n]
        sys.modules.update(saved)
        if parent is not None:
            if parent_attr is missing:
                if hasattr(parent, child):
                    delattr(parent, child)
            else:
                setattr(parent, child, parent_attr)
