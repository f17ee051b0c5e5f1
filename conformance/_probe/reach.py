"""Which cells can see a mutant, learnt once, in the positive control.

Each statement a probe changes gets a marker call inserted just before it, in memory,
in the unmutated source (a function whose probe only inserts code gets one at its
entry); the control runs on that build, so each cell records which probes' statements
it reached.  A cell that never reaches a probe's changed statements runs the mutant
exactly as it ran the original (the cells are deterministic), so it cannot kill it: a
mutant runs only on the cells that reach it.  Whenever that cannot be decided — a change
outside a function body (it runs at import), a change that touches no statement, a
docstring — every cell runs.  A marker only records a name in a set: the build the
control runs behaves as the unmutated target.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import CodeType

from conformance._probe.catalogue import Probe
from conformance._probe.mutate import parse_hunks

#: The name the markers call, bound in each instrumented module.
MARKER = "__wire_conformance_reached__"
#: A statement, by its place: line, column, end line, end column.
Place = tuple[int, int, int, int]


@dataclass(frozen=True)
class Mark:
    """Where a probe's marker goes: before the statement at ``place``, or at the
    entry of the function whose ``def`` is at ``place``."""

    place: Place
    entry: bool = False


@dataclass
class ReachRecorder:
    """The marker: records the probes whose statements the running cell reached."""

    reached: set[str] = field(default_factory=set)

    def __call__(self, probe_id: str) -> None:
        self.reached.add(probe_id)


@dataclass(frozen=True)
class Reach:
    """Per cell ``(case id, column)``: the probes it reaches; ``decided``: the probes
    whose reach was recorded (any other probe runs every cell)."""

    cells: Mapping[tuple[str, str], frozenset[str]]
    decided: frozenset[str]

    def reaches(self, probe_id: str, case: str, column: str) -> bool:
        if probe_id not in self.decided:
            return True
        return probe_id in self.cells.get((case, column), frozenset({probe_id}))


# ---------------------------------------------------------------- what a mutant changes


def _hunk_changes(diff: str) -> list[tuple[str, list[int]]]:
    """Each hunk's old text and the indexes of its removed lines in it (empty: the hunk
    only inserts)."""
    hunks: list[tuple[str, list[int]]] = []
    for hunk in parse_hunks(diff):
        hunks.append((hunk.old, []))
    index = -1
    old_line = 0
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@"):
            index += 1
            old_line = 0
        elif index < 0 or line.startswith(("\\", "+")):
            continue
        elif line.startswith("-"):
            hunks[index][1].append(old_line)
            old_line += 1
        else:
            old_line += 1
    return hunks


def changes(probe: Probe, source: str) -> list[tuple[int, int, set[int] | None]]:
    """Per place the probe edits: its first and last line in the original source and
    the lines it changes (``None``: it only inserts between them)."""
    if probe.diff_text is not None:
        pieces = _hunk_changes(probe.diff_text)
    else:
        assert probe.find is not None
        pieces = [(probe.find, list(range(max(1, len(probe.find.splitlines())))))]
    changes: list[tuple[int, int, set[int] | None]] = []
    for old, removed in pieces:
        start = source.find(old) if old else -1
        if start < 0:
            return []
        first = source.count("\n", 0, start) + 1
        last = source.count("\n", 0, max(start, start + len(old) - 1)) + 1
        changes.append((first, last, {first + i for i in removed} if removed else None))
    return changes


def _own_lines(node: ast.stmt) -> set[int]:
    """A statement's lines without those of the statements nested in it (a compound
    statement's header, ``else:``, ``except ...:`` lines)."""
    assert node.end_lineno is not None
    lines = set(range(node.lineno, node.end_lineno + 1))
    for block_name in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, block_name, ()) or ():
            if isinstance(child, ast.stmt):
                assert child.end_lineno is not None
                lines -= set(range(child.lineno, child.end_lineno + 1))
            else:  # an except handler or a match case: its own header line stays
                body = getattr(child, "body", ())
                for stmt in body:
                    assert stmt.end_lineno is not None
                    lines -= set(range(stmt.lineno, stmt.end_lineno + 1))
    return lines


_Function = ast.FunctionDef | ast.AsyncFunctionDef


def _innermost_function(tree: ast.AST, first: int, last: int) -> _Function | None:
    """The innermost function whose body holds lines ``first``..``last``."""
    found: _Function | None = None
    for node in ast.walk(tree):
        if not isinstance(node, _Function) or not node.body or node.end_lineno is None:
            continue
        holds = node.body[0].lineno <= first and last <= node.end_lineno
        if holds and (found is None or node.body[0].lineno >= found.body[0].lineno):
            found = node
    return found


def _place(node: ast.stmt) -> Place:
    return (node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0)


@functools.lru_cache(maxsize=64)
def parsed(source: str) -> ast.Module:
    """The tree of an unmutated source, parsed once (read only: never edit it)."""
    return ast.parse(source)


def touched(probe: Probe, source: str) -> list[Mark] | None:
    """Where the probe's markers go, or ``None`` when its reach cannot be decided (a
    change outside a function body, or one that touches no statement)."""
    places = changes(probe, source)
    if not places:
        return None
    try:
        tree = parsed(source)
    except SyntaxError:
        return None
    marks: list[Mark] = []
    for first, last, changed in places:
        if changed is not None:
            first, last = min(changed), max(changed)
        function = _innermost_function(tree, first, last)
        if function is None:
            return None
        if changed is None:  # an insertion: any cell that runs the function
            marks.append(Mark(_place(function), entry=True))
            continue
        nodes = [
            node
            for node in ast.walk(function)
            if isinstance(node, ast.stmt) and node is not function and _own_lines(node) & changed
        ]
        if not nodes:
            return None
        for node in nodes:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                return None  # a docstring or a bare constant: nothing runs there
            marks.append(Mark(_place(node)))
    return marks


def _marker(probe_ids: Sequence[str], at: ast.stmt) -> list[ast.stmt]:
    calls: list[ast.stmt] = []
    for probe_id in probe_ids:
        call = ast.Call(ast.Name(MARKER, ast.Load()), [ast.Constant(probe_id)], [])
        calls.append(ast.copy_location(ast.Expr(call), at))
    return calls


def _docstring_ends(body: list[ast.stmt]) -> int:
    first = body[0] if body else None
    is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    return 1 if is_doc and isinstance(first.value.value, str) else 0  # type: ignore[union-attr]


def instrumented(source: str, filename: str, marks: Mapping[str, Sequence[Mark]]) -> CodeType:
    """``source`` compiled with each probe's markers inserted (probe id -> marks)."""
    before: dict[Place, list[str]] = {}
    entry: dict[Place, list[str]] = {}
    for probe_id, probe_marks in marks.items():
        for mark in probe_marks:
            (entry if mark.entry else before).setdefault(mark.place, []).append(probe_id)
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and _place(node) in entry:
            body: list[ast.stmt] = node.body  # type: ignore[attr-defined]
            at = _docstring_ends(body)
            body[at:at] = _marker(entry[_place(node)], body[min(at, len(body) - 1)])
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list) or not any(isinstance(b, ast.stmt) for b in block):
                continue
            marked: list[ast.stmt] = []
            for stmt in block:
                marked.extend(_marker(before.get(_place(stmt), ()), stmt))
                marked.append(stmt)
            setattr(node, name, marked)
        for handler in getattr(node, "handlers", ()) or ():
            marked = []
            for stmt in handler.body:
                marked.extend(_marker(before.get(_place(stmt), ()), stmt))
                marked.append(stmt)
            handler.body = marked
    return compile(ast.fix_missing_locations(tree), filename, "exec", dont_inherit=True)
