"""The wire's name and its request view."""

from __future__ import annotations

from conformance.wires.context import RequestView

NAME = "gemini"


class GeminiRequestView(RequestView):
    """The neutral view plus how a streamed answer is framed: ``alt=sse`` asks for
    server-sent events, its absence for one JSON array written piece by piece."""

    sse: bool = True
