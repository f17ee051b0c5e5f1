"""Validate a parsed case document against the schema, and locate every error in its file.

Pydantic reports errors at schema locations (with union tags that are not keys of the
document); a case author needs the field path as written (``given.turns[0].user``) and
its line, which the parser's ``Positions`` give.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from conformance._cases.load_problem import LoadProblem
from conformance._cases.schema import Case
from conformance._cases.yamlfile import KeyPath, Positions


@dataclass(frozen=True)
class Vocabulary:
    """What the loader validates names against: features, and wires with their dialects."""

    features: frozenset[str]
    wires: Mapping[str, tuple[str, ...]]

    def context(self) -> dict[str, Any]:
        return {"features": self.features, "wires": self.wires}

    def key(self) -> str:
        """A digest of these names: a case validated under one vocabulary is proven
        only for the same one (``parse_cache``)."""
        words = sorted(self.features), sorted((w, list(d)) for w, d in self.wires.items())
        return hashlib.sha256(json.dumps(words).encode()).hexdigest()


def validate(
    data: Any, file: str, vocabulary: Vocabulary | None, positions: Positions | None
) -> tuple[Case | None, list[LoadProblem]]:
    """The case, or every schema error located by field and line (line 1 without
    ``positions``, e.g. for a document taken from the parse cache).  Without a
    vocabulary any feature and wire name is accepted."""
    if not isinstance(data, dict):
        return None, [
            LoadProblem(file=file, line=1, field=None, message="a case file is a YAML mapping")
        ]
    context = vocabulary.context() if vocabulary else None
    try:
        return Case.model_validate(data, context=context), []
    except ValidationError as error:
        return None, _located(file, error, data, positions or Positions())


def _located(
    file: str, error: ValidationError, data: Any, positions: Positions
) -> list[LoadProblem]:
    found: list[LoadProblem] = []
    details = error.errors(include_url=False)
    # A collection whose items failed also reports itself "too short": noise, not a cause.
    failing = [tuple(d["loc"]) for d in details if d["type"] != "too_short"]
    for detail in details:
        loc = tuple(detail["loc"])
        if detail["type"] == "too_short" and any(f[: len(loc)] == loc for f in failing):
            continue
        path, text = _field_path(detail["loc"], data)
        message = detail["msg"].removeprefix("Value error, ")
        found.append(
            LoadProblem(
                file=file, line=positions.line_of(path), field=text or None, message=message
            )
        )
    return found


def _field_path(loc: Sequence[str | int], data: Any) -> tuple[KeyPath, str]:
    """Map a pydantic error location onto the document: drop union tags that are not keys
    of the data, and write the path as ``given.turns[0].user``."""
    kept: list[str | int] = []
    node = data
    for i, part in enumerate(loc):
        if isinstance(node, dict):
            if part in node:
                kept.append(part)
                node = node[part]
            elif i == len(loc) - 1:
                kept.append(part)  # a missing field: name it
            continue
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            kept.append(part)
            node = node[part]
            continue
        if not isinstance(part, str) or part.startswith(("function-", "tagged-")):
            continue
    text = ""
    for part in kept:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return tuple(kept), text
