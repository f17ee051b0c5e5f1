"""A Responses rule: OpenAI's error body carries a ``code`` and a ``param`` beside the
message."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.wires.base import Rule


@dataclass(frozen=True)
class ResponsesRule(Rule):
    """A rule whose error body also carries OpenAI's ``code`` and ``param``.

    ``param`` is a template: ``"{at}"`` puts the violation's location there (OpenAI's
    ``input[3].role``); ``None`` writes ``null``.
    """

    code: str | None = None
    param: str | None = "input"
