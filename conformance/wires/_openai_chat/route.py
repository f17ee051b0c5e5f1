"""Where a Chat request goes: one path for every model (under the base URLs real clients
use), and the body's ``stream`` says whether the answer streams."""

from __future__ import annotations

from conformance.http import HttpRequest
from conformance.wires.context import RequestView

_ENDPOINT = "/v1/chat/completions"
#: The paths real clients post to: an OpenAI base URL ending in ``/v1``, DeepSeek's base
#: URL without it (pydantic-ai) and DeepSeek's beta base (litellm ``deepseek/``), and
#: OpenRouter's real base URL ``https://openrouter.ai/api/v1``.
_ENDPOINTS = frozenset(
    {_ENDPOINT, "/chat/completions", "/beta/chat/completions", "/api/v1/chat/completions"}
)


def serves(request: HttpRequest) -> bool:
    """Whether the request is a POST to one of the Chat Completions paths."""
    return request.method.upper() == "POST" and request.path in _ENDPOINTS


def endpoint(model: str, stream: bool) -> str:
    """One path for every model; streaming is asked for in the body (``stream``)."""
    return _ENDPOINT


def wants_stream(request: HttpRequest, view: RequestView) -> bool:
    """The body's ``stream`` flag."""
    return view.stream
