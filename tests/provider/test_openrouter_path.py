"""A client configured with OpenRouter's real base URL (``https://openrouter.ai/api/v1``)
posts to ``/api/v1/chat/completions``: the scripted provider answers it, as OpenRouter
does, instead of a 404."""

from __future__ import annotations

import json

from conformance._cases.library import load_library
from conformance._provider.scripted import ScriptedProvider
from conformance.http import HttpRequest
from conformance.wires._registry import get_wire


def _request(path: str) -> HttpRequest:
    body = {"model": "anthropic/claude-sonnet-4-5", "messages": [{"role": "user", "content": "hi"}]}
    return HttpRequest(
        "POST", path, json.dumps(body).encode(), headers={"content-type": "application/json"}
    )


def _provider() -> ScriptedProvider:
    wire = get_wire("openai-chat")
    case = next(
        c.case
        for c in load_library().cases
        if "openai-chat:openrouter" in c.case.wires and len(c.case.given.responses) == 1
    )
    return ScriptedProvider(case, wire, "openrouter")


def test_openrouter_real_path_is_answered() -> None:
    response = _provider().handle(_request("/api/v1/chat/completions"))
    assert response.status == 200


def test_a_path_no_provider_serves_is_still_404() -> None:
    response = _provider().handle(_request("/api/v2/chat/completions"))
    assert response.status == 404
