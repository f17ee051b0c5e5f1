"""What a valid case must also be as a file of the library: named after its id, and the
only case with that id across every loaded directory."""

from __future__ import annotations

from pathlib import Path

from conformance._cases.load_problem import LoadProblem
from conformance._cases.schema import Case
from conformance._cases.yamlfile import Positions


def misnamed(path: Path, case: Case, positions: Positions | None) -> LoadProblem | None:
    """An error when the file name is not ``<id>.yaml``."""
    if path.stem == case.id:
        return None
    return LoadProblem(
        file=str(path),
        line=positions.line_of(("id",)) if positions else 1,
        field="id",
        message=f"the file is named {path.stem!r} but the case id is {case.id!r}",
    )


def duplicate(path: Path, case: Case, first: str | None) -> LoadProblem | None:
    """An error when ``first``, an earlier file, already holds a case with this id."""
    if first is None:
        return None
    return LoadProblem(
        file=str(path), line=1, field="id", message=f"id {case.id!r} is also used by {first}"
    )
