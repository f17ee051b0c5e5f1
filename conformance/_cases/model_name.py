"""The model a session names: the case's own (``given.options.model``), else the wire's
realistic default for its dialect (``Wire.default_model``).

One place, because the contract document, the scripted provider's responses and the
lint must agree on it: verdicts can depend on the name (DeepSeek thinking mode on a
``reasoner`` model, OpenRouter's upstream from its prefix)."""

from __future__ import annotations

from typing import Protocol

from conformance._cases.schema import Case


class Named(Protocol):
    def default_model(self, dialect: str | None = None) -> str: ...


def session_model(case: Case, wire: Named, dialect: str | None = None) -> str:
    """The model name of ``case`` on ``wire`` (and ``dialect``)."""
    options = case.given.options
    if "model" in options.model_fields_set:
        return options.model
    return wire.default_model(dialect)
