"""Where a Responses request goes: one path for every model, and the body's ``stream``
says whether the answer streams."""

from __future__ import annotations

from conformance.http import HttpRequest
from conformance.wires.context import RequestView

_ENDPOINT = "/v1/responses"


def serves(request: HttpRequest) -> bool:
    """Whether the request is a POST to ``/v1/responses``."""
    return request.method.upper() == "POST" and request.path == _ENDPOINT


def endpoint(model: str, stream: bool) -> str:
    """One path for every model; streaming is asked for in the body (``stream``)."""
    return _ENDPOINT


def wants_stream(request: HttpRequest, view: RequestView) -> bool:
    """The body's ``stream`` flag."""
    return view.stream
