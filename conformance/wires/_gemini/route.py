"""Where a Gemini request goes: the model and whether the answer streams are in the path
(``:streamGenerateContent`` or ``:generateContent``)."""

from __future__ import annotations

from conformance.http import HttpRequest
from conformance.wires._gemini._paths import STREAM_METHOD, route
from conformance.wires.context import RequestView


def serves(request: HttpRequest) -> bool:
    """Whether the request is a POST to a model's generateContent method, any version."""
    return route(request) is not None


def endpoint(model: str, stream: bool) -> str:
    """The model is in the path; so is whether the answer streams."""
    if stream:
        return f"/v1beta/models/{model}:{STREAM_METHOD}?alt=sse"
    return f"/v1beta/models/{model}:generateContent"


def wants_stream(request: HttpRequest, view: RequestView) -> bool:
    """Whether the path names the streaming method."""
    path = route(request)
    return path is not None and path["method"] == STREAM_METHOD
