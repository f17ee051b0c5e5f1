"""What each wire's real API takes at the top of a request: its fields and beta values,
and what the scripted provider does with each (``features.yaml``).

A provider that silently accepts a field it does not model judges the wrong
conversation: a client that keeps the conversation server-side (a message thread, a
stored prompt) sent only part of it, and the suite would refuse the part as if it were
all.  So every field and beta is listed once, here, as modelled, inert (taken and
ignored: nothing judged depends on it) or unmodelled (answered "not modelled by this
suite"); a field or beta on none of the lists gets the real API's own answer for one it
does not know.  ``conformance._provider.features`` applies the lists; docs/rules.md lists
them.
"""

from __future__ import annotations

from enum import Enum
from functools import cache
from importlib import resources

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from conformance.catalogue._entries import public_sources


class Treatment(Enum):
    """What the provider does with a listed field or beta."""

    MODELLED = "modelled"
    INERT = "inert"
    UNMODELLED = "unmodelled"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class UnknownAnswer(_Strict):
    """The real API's answer to a field (or beta) it does not know: its error text with
    ``{name}`` for the field, as public reports quote it."""

    error: str = Field(min_length=10)
    error_type: str
    code: str | None = None
    sources: tuple[str, ...] = Field(min_length=1)

    _sources = field_validator("sources")(classmethod(lambda cls, v: public_sources(v)))


class WireFeatures(_Strict):
    """One wire's fields and betas."""

    field_sources: tuple[str, ...] = Field(min_length=1)
    unknown_field: UnknownAnswer
    modelled: tuple[str, ...] = Field(min_length=1)
    inert: tuple[str, ...] = ()
    #: Field → why the real API behaves in a way the provider does not reproduce.
    unmodelled: dict[str, str] = {}
    #: Only the column without a dialect is held to the lists (OpenAI's own API, not the
    #: compatible servers, whose extra fields no public source lists).
    without_dialect_only: bool = False
    #: The body is protobuf JSON, which takes each field in snake_case as well.
    protobuf_json: bool = False
    beta_header: str | None = None
    beta_sources: tuple[str, ...] = ()
    #: ``None``: no public source shows the real answer to an unknown beta value, which
    #: is then answered "not modelled by this suite".
    unknown_beta: UnknownAnswer | None = None
    betas: tuple[str, ...] = ()

    _field_sources = field_validator("field_sources", "beta_sources")(
        classmethod(lambda cls, v: public_sources(v))
    )

    @model_validator(mode="after")
    def _each_listed_once(self) -> WireFeatures:
        listed = [*self.modelled, *self.inert, *self.unmodelled]
        repeated = sorted({name for name in listed if listed.count(name) > 1})
        if repeated:
            raise ValueError(f"a field is listed twice: {', '.join(repeated)}")
        if self.betas and (self.beta_header is None or not self.beta_sources):
            raise ValueError("betas need the header that carries them and their sources")
        return self

    def treatment(self, field: str) -> Treatment | None:
        """How the provider treats top-level field ``field``; ``None``: the real API does
        not know it."""
        for name in (field, _camel(field)) if self.protobuf_json else (field,):
            if name in self.modelled:
                return Treatment.MODELLED
            if name in self.inert:
                return Treatment.INERT
            if name in self.unmodelled:
                return Treatment.UNMODELLED
        return None

    def why_unmodelled(self, field: str) -> str:
        if self.protobuf_json:
            field = field if field in self.unmodelled else _camel(field)
        return self.unmodelled.get(field, "")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class Features(_Strict):
    wires: dict[str, WireFeatures]


@cache
def features() -> Features:
    """The shipped lists, validated once."""
    text = resources.files("conformance.catalogue").joinpath("features.yaml").read_text("utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return Features.model_validate(yaml.load(text, Loader=loader))  # a safe loader
