"""The fast way to build an in-process mutant: swap the code of the one function it
changes.

When every change of a probe lies inside the body of an undecorated function defined
at the top of its module (or a method of a class defined there), the live function
object gets the mutated code in place and gets its own code back afterwards.  Every
``from mod import f`` and every instance already bound to the class sees the mutant,
and nothing is re-imported.  Anything else (a change at module level, in a decorated
or nested definition, a closure that changed shape) returns ``None``, and the caller
rebuilds the module and its dependants instead (``conformance._probe.modules``).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import CodeType, FunctionType

from conformance._probe.catalogue import Probe
from conformance._probe.mutate import mutated_source
from conformance._probe.reach import changes, parsed
from conformance.errors import ProbeInvalid

Swap = list[tuple[FunctionType, CodeType]]


_Def = ast.FunctionDef | ast.AsyncFunctionDef


def _holder(tree: ast.Module, first: int, last: int) -> tuple[str, _Def, int] | None:
    """The top-level function or method whose body holds lines ``first``..``last``
    (its qualified name, its node, its class's line or 0), if it has no decorator."""
    for node in tree.body:
        candidates: list[tuple[str, _Def, int]] = []
        if isinstance(node, _Def):
            candidates.append((node.name, node, 0))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, _Def):
                    candidates.append((f"{node.name}.{item.name}", item, node.lineno))
        for name, function, owner_line in candidates:
            end = function.end_lineno or 0
            if function.body[0].lineno <= first and last <= end:
                return None if function.decorator_list else (name, function, owner_line)
    return None


def _function_code(
    probe: Probe, source: str, filename: str, function: _Def, qualname: str
) -> CodeType | None:
    """The mutated function alone, compiled at its own line numbers (a method inside a
    stand-in of its class, so ``super()`` finds its cell); ``None`` when the probe's
    text does not apply to the function's lines alone."""
    lines = source.splitlines(keepends=True)
    segment = "".join(lines[function.lineno - 1 : function.end_lineno])
    try:
        mutated = mutated_source(probe, segment)
    except ProbeInvalid:
        return None
    owner = qualname.rpartition(".")[0]
    header = f"class {owner}:\n" if owner else ""
    padding = "\n" * (function.lineno - 1 - (1 if owner else 0))
    try:
        module = compile(padding + header + mutated, filename, "exec", dont_inherit=True)
    except SyntaxError:
        return None
    return _code(module, qualname)


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


def swap_for(probe: Probe, source: str, filename: str, module_name: str) -> Swap | None:
    """The functions to give mutated code, or ``None`` when the mutant needs a rebuild.
    ``source`` is the module's unmutated text, ``filename`` its file."""
    places = changes(probe, source)
    if not places:
        return None
    tree = parsed(source)
    swap: Swap = []
    for first, last, changed in places:
        if changed is not None:
            first, last = min(changed), max(changed)
        held = _holder(tree, first, last)
        if held is None:
            return None
        qualname, node, _ = held
        function = _live(module_name, qualname)
        code = _function_code(probe, source, filename, node, qualname)
        if function is None or code is None:
            return None
        original = function.__code__
        if (
            original.co_qualname != qualname
            or original.co_filename != filename
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
