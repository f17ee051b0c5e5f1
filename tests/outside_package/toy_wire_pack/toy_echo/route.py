"""One path, never streamed."""

from __future__ import annotations

from conformance.http import HttpRequest
from conformance.wires.context import RequestView
from toy_wire_pack.toy_echo._body import PATH


def serves(request: HttpRequest) -> bool:
    return request.method.upper() == "POST" and request.path == PATH


def endpoint(model: str, stream: bool) -> str:
    return PATH


def wants_stream(request: HttpRequest, view: RequestView) -> bool:
    return False
