"""The catalogue's schema (strict: an unknown or missing field fails the load) and lookup.

A citation is written ``33`` or ``A33`` (a wire rule, optionally with its section),
``E31`` (a bug report), ``F1`` (a drift note) or ``seed 96`` / ``§96`` (a design
behaviour); ``resolve`` maps each onto one entry, or ``None``.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from importlib import resources
from typing import Annotated, Literal, TypeAlias

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from conformance.verdict import Evidence

Section: TypeAlias = Literal["A", "B", "C", "D", "X"]
_SOURCE = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+#\d+|https://\S+")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def public_sources(sources: tuple[str, ...]) -> tuple[str, ...]:
    """``sources`` when each is an ``owner/repo#N`` thread or an https URL."""
    for source in sources:
        if not _SOURCE.fullmatch(source):
            raise ValueError(f"a source is owner/repo#N or an https URL, not {source!r}")
    return sources


class WireRule(_Strict):
    """A provider wire rule: what a request must satisfy, and the provider's error texts
    for breaking it, quoted exactly (none when no provider text is known)."""

    id: Annotated[int, Field(ge=1)]
    section: Section
    wire: str
    statement: str = Field(min_length=10)
    errors: tuple[str, ...] = ()
    sources: tuple[str, ...] = Field(min_length=1)
    evidence: Evidence

    _sources = field_validator("sources")(classmethod(lambda cls, v: public_sources(v)))


class Report(_Strict):
    """A public bug report against an agent harness, filed under the rules it breaks;
    ``error`` is the message the report quotes (the provider's, or the harness's own)."""

    id: Annotated[str, Field(pattern=r"^E[1-9][0-9]*$")]
    harness: str
    title: str
    error: str | None = None
    sources: tuple[str, ...] = Field(min_length=1)
    rules: tuple[int, ...] = ()
    evidence: Literal["observed"]

    _sources = field_validator("sources")(classmethod(lambda cls, v: public_sources(v)))


class Drift(_Strict):
    """A contradiction between sources, or a contract that changed over time."""

    id: Annotated[str, Field(pattern=r"^F[1-9][0-9]*$")]
    title: str
    statement: str = Field(min_length=10)
    #: Empty when the drift was seen only where no public link can be given.
    sources: tuple[str, ...] = ()
    evidence: Evidence

    _sources = field_validator("sources")(classmethod(lambda cls, v: public_sources(v)))


class Seed(_Strict):
    """A behaviour of the design documents behind the project (evidence ``design``)."""

    id: int | Annotated[str, Field(pattern=r"^B[1-9][0-9]*$")]
    name: str
    summary: str = Field(min_length=10)
    evidence: Literal["design"]


Entry: TypeAlias = WireRule | Report | Drift | Seed


class Catalogue(_Strict):
    rules: tuple[WireRule, ...]
    reports: tuple[Report, ...]
    drift: tuple[Drift, ...]
    seeds: tuple[Seed, ...]

    def entries(self) -> dict[str, Entry]:
        """Every entry by its canonical key: ``33``, ``E31``, ``F1``, ``seed 96``, ``seed B12``."""
        found: dict[str, Entry] = {}
        for rule in self.rules:
            found[str(rule.id)] = rule
        for report in self.reports:
            found[report.id] = report
        for drift in self.drift:
            found[drift.id] = drift
        for seed in self.seeds:
            found[f"seed {seed.id}"] = seed
        return found

    def section_wires(self) -> dict[str, str]:
        """Each section of wire rules, in order, and the wire its rules are on (``every
        wire`` for X): read from the entries, which name their wire, so no table restates
        which section is whose."""
        return dict(sorted({(rule.section, rule.wire) for rule in self.rules}))

    def citable(self) -> str:
        """What a ``rule:`` citation may name, in words (for error messages)."""
        return (
            f"a wire rule 1–{self.rules[-1].id}, a bug report E1–E{len(self.reports)} or a "
            f"drift note F1–F{len(self.drift)}"
        )


@cache
def catalogue() -> Catalogue:
    """The shipped catalogue, validated once."""
    text = resources.files("conformance.catalogue").joinpath("rules.yaml").read_text("utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return Catalogue.model_validate(yaml.load(text, Loader=loader))  # a safe loader


@cache
def _index() -> dict[str, Entry]:
    return catalogue().entries()


def canonical(citation: str | int) -> str | None:
    """The catalogue key a citation is written as, or ``None`` when it has no known form."""
    return _canonical_text(str(citation).strip())


@lru_cache(maxsize=4096)
def _canonical_text(text: str) -> str | None:
    """``canonical`` of a citation's text, remembered: a library cites the same few rules
    thousands of times (a fifth of validating a case went here), and the key depends only
    on the text and the shipped catalogue, which is read once (``_index``)."""
    if m := re.fullmatch(r"(?:seed[: ]*|§)(?:Appendix +)?(\d+|B\d+)", text, re.IGNORECASE):
        return f"seed {m.group(1)}"
    if m := re.fullmatch(r"(?:rules?[: ]*)?§?([A-DX]?)(\d+)", text):
        section, number = m.groups()
        return number if not section or _section(int(number)) == section else None
    if re.fullmatch(r"[EF][1-9]\d*", text):
        return text
    return None


def _section(number: int) -> str | None:
    entry = _index().get(str(number))
    return entry.section if isinstance(entry, WireRule) else None


def resolve(citation: str | int) -> Entry | None:
    """The entry a citation names, or ``None`` when it names nothing in the catalogue."""
    key = canonical(citation)
    return None if key is None else _index().get(key)
