"""A probe applied to source text.  Every way a probe can fail to name exactly one
place is a ``ProbeInvalid`` with the reason, never a silent pass."""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import CodeType

from conformance._probe.catalogue import Probe
from conformance.errors import ProbeInvalid


def replace_once(source: str, find: str, replace: str, what: str = "`find`") -> str:
    """``source`` with the single occurrence of ``find`` replaced."""
    count = source.count(find)
    if count != 1:
        where = "never" if count == 0 else f"{count} times"
        raise ProbeInvalid(f"{what} matches {where} (it must match exactly once)")
    if find == replace:
        raise ProbeInvalid("`replace` equals `find`: the mutant is the original")
    return source.replace(find, replace, 1)


@dataclass(frozen=True)
class Hunk:
    old: str
    new: str


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


def parse_hunks(diff: str) -> list[Hunk]:
    """The hunks of a unified diff: each one's old and new text (context included)."""
    hunks: list[Hunk] = []
    old: list[str] | None = None
    new: list[str] = []
    for line in diff.splitlines(keepends=True):
        if _HUNK.match(line):
            if old is not None:
                hunks.append(Hunk("".join(old), "".join(new)))
            old, new = [], []
        elif old is None or line.startswith("\\"):  # the header; "\\ No newline"
            continue
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith(" ") or line in ("\n", ""):
            old.append(line[1:] if line.startswith(" ") else line)
            new.append(line[1:] if line.startswith(" ") else line)
    if old is not None:
        hunks.append(Hunk("".join(old), "".join(new)))
    if not hunks:
        raise ProbeInvalid("the diff has no hunk")
    return hunks


def mutated_source(probe: Probe, source: str) -> str:
    """The mutated text: ``find`` replaced, or every hunk's old text (context and removed
    lines, located by content, so line numbers may have drifted) replaced by its new."""
    if probe.diff_text is not None:
        for number, hunk in enumerate(parse_hunks(probe.diff_text), 1):
            source = replace_once(source, hunk.old, hunk.new, f"hunk {number} of the diff")
        return source
    assert probe.find is not None  # the schema demands find and replace together
    assert probe.replace is not None
    return replace_once(source, probe.find, probe.replace)


def compiled(source: str, filename: str) -> CodeType:
    """The code object of a mutated Python file, or ``ProbeInvalid`` naming the line."""
    try:
        return compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as error:
        raise ProbeInvalid(
            f"the mutated source does not compile: {error.msg} (line {error.lineno})"
        ) from None
