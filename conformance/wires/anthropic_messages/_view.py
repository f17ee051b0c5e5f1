"""The wire's name and its request view: the neutral view plus what rule 12c reads."""

from __future__ import annotations

from conformance.wires.base import RequestView

NAME = "anthropic-messages"


class AnthropicRequestView(RequestView):
    """The neutral view plus the ``anthropic-beta`` values, which rule 12c reads."""

    betas: tuple[str, ...] = ()
