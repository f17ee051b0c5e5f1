"""The fast way to build an in-process mutant: swap the code of the one function it
changes.

When every change of a probe lies inside the body of an undecorated function defined
at the top of its module (or a method of a class defined there), the live function
object gets the mutated code in place and gets its own code back afterwards.  Every
``from mod import f`` and every instance already bound to the class sees the mutant,
and nothing is re-imported.  Anything else (a change at module level, in a decorated
or nested definition, a closure that changed shape) returns ``None``, and the caller
rebuilds the module and its dependants instead (``conformance.probe.modules``).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import CodeType, FunctionType

from conformance.probe.catalogue import Probe
from conformance.probe.reach import changes

Swap = list[tuple[FunctionType, CodeType]]


def _holder(tree: ast.Module, first: int, last: int) -> str | None:
    """The qualified name of the top-level function or method whose body holds lines
    ``first``..``last``, if it has no decorator."""
    for node in tree.body:
        candidates: list[tuple[str, ast.stmt]] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            candidates.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    candidates.append((f"{node.name}.{item.name}", item))
        for name, function in candidates:
            assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
            end = function.end_lineno or 0
            if function.body[0].lineno <= first and last <= end:
                return None if function.decorator_list else name
    return None


def _code(code: CodeType, qualname: str) -> CodeType | None:
    for const in code.co_consts:
        if isinstance(const, CodeType):
            if const.co_qualname == qualname:
                return const
            found = _code(const, qualname)
            if found is not None:
                return found
    return None


def _live(module_name: str, qualname: str) -> FunctionType | None:
    module = sys.modules.get(module_name)
    if module is None:
        return None
    owner, _, name = qualname.rpartition(".")
    namespace: Mapping[str, object] = vars(module)
    if owner:
        holder = namespace.get(owner)
        namespace = vars(holder) if isinstance(holder, type) else {}
    function = namespace.get(name)
    return function if isinstance(function, FunctionType) else None


def swap_for(probe: Probe, source: str, mutated: CodeType, module_name: str) -> Swap | None:
    """The functions to give mutated code, or ``None`` when the mutant needs a rebuild."""
    places = changes(probe, source)
    if not places:
        return None
    tree = ast.parse(source)
    swap: Swap = []
    for first, last, changed in places:
        if changed is not None:
            first, last = min(changed), max(changed)
        qualname = _holder(tree, first, last)
        function = _live(module_name, qualname) if qualname else None
        if qualname is None or function is None:
            return None
        original = function.__code__
        code = _code(mutated, qualname)
        if (
            code is None
            or original.co_qualname != qualname
            or original.co_filename != mutated.co_filename
            or len(code.co_freevars) != len(original.co_freevars)
        ):
            return None
        swap.append((function, code))
    return swap


@contextmanager
def swapped(swap: Swap) -> Iterator[None]:
    """Within the block, each function runs its mutated code; its own code comes back
    whatever happens."""
    originals = [(function, function.__code__) for function, _ in swap]
    try:
        for function, code in swap:
            function.__code__ = code
        yield
    finally:
        for function, code in originals:
            function.__code__ = code
