"""A mutated module rebuilt in the running process; the user's files are never written.

Only the mutated module and its *dependants* (the modules of the target's package, its
*scope*, that import it, directly or through one another) are imported afresh, the
mutated module's code coming from memory; every other module of the scope stays the
object it was.  So ``from x import f`` in a dependant binds the mutated ``f``, and a
mutant of a leaf module re-executes a handful of files, not the whole package.  Each
file is compiled once per process and its code object reused for every mutant.  On
the way out, whatever happens, ``sys.modules`` and the parent packages' attributes
are put back: the original modules are untouched objects.
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import CodeType, ModuleType

from conformance.errors import ProbeInvalid

#: The suite's own package: only its bundled reference may be mutated in-process.
_SUITE = "conformance"


def scope_of(target_module: str) -> str:
    """The package a mutant of ``target_module`` is rebuilt within."""
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


# ---------------------------------------------------------------- code and imports

_Stamp = tuple[str, int, int]
_CODE: dict[_Stamp, CodeType] = {}
_IMPORTS: dict[tuple[_Stamp, str], frozenset[str]] = {}


def _stamp(path: str) -> _Stamp:
    status = Path(path).stat()
    return (path, status.st_mtime_ns, status.st_size)


def source_code(path: str) -> CodeType:
    """The code object of an unmutated file, compiled once per process (and again only
    when the file changes), as the import system compiles it."""
    stamp = _stamp(path)
    code = _CODE.get(stamp)
    if code is None:
        source = Path(path).read_bytes()
        code = _CODE[stamp] = compile(source, path, "exec", dont_inherit=True)
    return code


def _imported_names(tree: ast.AST, package: str) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def imports_of(module: ModuleType) -> frozenset[str]:
    """Every module name ``module``'s source imports (anywhere in the file, a
    ``from p import n`` counted as both ``p`` and ``p.n``); empty without a source."""
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        return frozenset()
    name = module.__name__
    package = name if hasattr(module, "__path__") else name.rpartition(".")[0]
    key = (_stamp(path), package)
    found = _IMPORTS.get(key)
    if found is None:
        tree = ast.parse(Path(path).read_bytes(), path)
        found = _IMPORTS[key] = frozenset(_imported_names(tree, package))
    return found


def dependants(name: str, scope: str) -> frozenset[str]:
    """``name`` and the loaded modules of ``scope`` that import it, transitively."""
    loaded = {n: m for n, m in list(sys.modules.items()) if in_scope(n, scope) and m is not None}
    importers: dict[str, set[str]] = {}
    for importer, module in loaded.items():
        for imported in imports_of(module):
            importers.setdefault(imported, set()).add(importer)
    found = {name}
    todo = [name]
    while todo:
        for importer in importers.get(todo.pop(), ()):
            if importer not in found:
                found.add(importer)
                todo.append(importer)
    return frozenset(found)


# ---------------------------------------------------------------- the rebuild


class _CodeLoader(importlib.abc.Loader):
    """Executes a given code object (with ``names`` bound in the module first); a
    package first gets the attributes of its submodules that were kept, as the original
    package had them."""

    def __init__(self, code: CodeType, names: Mapping[str, object]) -> None:
        self.code = code
        self.names = names

    def exec_module(self, module: ModuleType) -> None:
        if hasattr(module, "__path__"):
            prefix = module.__name__ + "."
            for name, child in list(sys.modules.items()):
                rest = name[len(prefix) :] if name.startswith(prefix) else ""
                if rest and "." not in rest and child is not None:
                    setattr(module, rest, child)
        module.__dict__.update(self.names)
        exec(self.code, module.__dict__)


class _RebuildFinder(importlib.abc.MetaPathFinder):
    """Finds the modules being rebuilt first: the given in-memory code for the changed
    ones (a mutant, or the control's reach markers), the cached code of its file for
    each dependant."""

    def __init__(
        self, rebuilt: Iterable[str], codes: Mapping[str, CodeType], names: Mapping[str, object]
    ) -> None:
        self.rebuilt = frozenset(rebuilt)
        self.codes = codes
        self.names = names

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.rebuilt:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            return spec
        code = self.codes.get(fullname)
        if code is None:
            spec.loader = _CodeLoader(source_code(spec.origin), {})
        else:
            spec.loader = _CodeLoader(code, self.names)
        spec.cached = None
        return spec


_MISSING = object()


@contextmanager
def rebuilt_modules(
    scope: str, codes: Mapping[str, CodeType], names: Mapping[str, object] | None = None
) -> Iterator[frozenset[str]]:
    """Within the block, importing anything of ``scope`` gives the modules of ``codes``
    built from their given code (``names`` bound in each first) and their dependants
    rebuilt over them; the names rebuilt are yielded."""
    rebuilt = frozenset().union(*(dependants(name, scope) for name in codes))
    before = {n for n in sys.modules if in_scope(n, scope)}
    saved = {n: sys.modules[n] for n in rebuilt if n in sys.modules}
    attributes = []
    for rebuilt_name in rebuilt:
        parent_name, _, child = rebuilt_name.rpartition(".")
        parent = sys.modules.get(parent_name) if parent_name not in rebuilt else None
        if parent is not None:
            attributes.append((parent, child, getattr(parent, child, _MISSING)))
    finder = _RebuildFinder(rebuilt, codes, names or {})
    for saved_name in saved:
        del sys.modules[saved_name]
    sys.meta_path.insert(0, finder)
    try:
        yield rebuilt
    finally:
        sys.meta_path.remove(finder)
        for n in [n for n in sys.modules if in_scope(n, scope)]:
            if n in rebuilt or n not in before:
                del sys.modules[n]
        sys.modules.update(saved)
        for parent, child, value in attributes:
            if value is _MISSING:
                if hasattr(parent, child):
                    delattr(parent, child)
            else:
                setattr(parent, child, value)


@contextmanager
def mutated_modules(scope: str, name: str, code: CodeType) -> Iterator[frozenset[str]]:
    """Within the block, importing anything of ``scope`` gives the mutated family; the
    names rebuilt (the mutated module and its dependants) are yielded."""
    with rebuilt_modules(scope, {name: code}) as rebuilt:
        yield rebuilt
