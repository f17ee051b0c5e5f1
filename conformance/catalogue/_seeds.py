"""The project's index of the design behaviours (``seeds.yaml``): each entry's number, id,
kind and one-line summary, plus the mutation probes or the written reason that account
for an entry no case cites.

Kept beside ``rules.yaml`` and validated as strictly (an unknown or missing field fails
the load), so ``wire-conformance cases --coverage`` joins it with the case library
without guessing.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Annotated, Literal, TypeAlias

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

#: The kinds an entry can have. Those in ``REQUIRED_KINDS`` must be covered by a case (or,
#: for a mutant, a probe) or carry a reason; the others are context and may have neither.
SeedKind: TypeAlias = Literal[
    "fix",
    "guard",
    "pinned-limitation",
    "accepted-false-positive",
    "declared-change",
    "mutant",
    "decision",
    "rejected-alternative",
    "review-finding",
    "observed-current",
    "baseline",
    "documented-limitation",
    "failure-shape",
    "trade-off",
    "premise",
    "verification",
    "method",
    "process",
    "rationale",
    "index",
]
REQUIRED_KINDS: frozenset[str] = frozenset(
    {
        "fix",
        "guard",
        "pinned-limitation",
        "accepted-false-positive",
        "declared-change",
        "mutant",
    }
)
_ID = r"^[A-Za-z0-9][A-Za-z0-9-]*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SeedEntry(_Strict):
    """One design behaviour: what it is, and (when no case cites it) why."""

    n: Annotated[int, Field(ge=1)]
    id: Annotated[str, Field(pattern=_ID)]
    kind: SeedKind
    summary: str = Field(min_length=10, max_length=160)
    #: Mutation probes of the reference catalogue that encode this entry (mutants).
    probes: tuple[Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")], ...] = ()
    #: Why no case encodes the entry (not observable from outside any implementation…).
    reason: str | None = Field(default=None, min_length=20)

    @property
    def required(self) -> bool:
        """Whether the entry must be covered or explained."""
        return self.kind in REQUIRED_KINDS


class RuleReason(_Strict):
    """Why a wire rule of ``rules.yaml`` has no case citing it."""

    rule: Annotated[int, Field(ge=1)]
    reason: str = Field(min_length=20)


class SeedIndex(_Strict):
    version: Literal[1]
    seeds: tuple[SeedEntry, ...]
    rules: tuple[RuleReason, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> SeedIndex:
        for label, keys in (
            ("entry number", [s.n for s in self.seeds]),
            ("entry id", [s.id for s in self.seeds]),
            ("rule", [r.rule for r in self.rules]),
        ):
            seen: set[object] = set()
            for key in keys:
                if key in seen:
                    raise ValueError(f"{label} {key!r} appears twice")
                seen.add(key)
        numbers = [s.n for s in self.seeds]
        if numbers != sorted(numbers):
            raise ValueError("entries are listed in number order")
        return self


def parse_seed_index(text: str) -> SeedIndex:
    """Validate an index document (the shipped one, or a test's)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return SeedIndex.model_validate(yaml.load(text, Loader=loader))  # a safe loader


@cache
def seed_index() -> SeedIndex:
    """The shipped index, validated once."""
    text = resources.files("conformance.catalogue").joinpath("seeds.yaml").read_text("utf-8")
    return parse_seed_index(text)
