"""What every wire's tests share: building a scripted response, and reading a rendered
stream the way an independent client (httpx with httpx-sse) does, flush by flush."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
from httpx_sse import ServerSentEvent, connect_sse

from conformance.cases.schema import ScriptedResponse
from conformance.http import HttpResponse


def scripted(stop: str, *blocks: dict[str, Any], noise: Sequence[str] = ()) -> ScriptedResponse:
    return ScriptedResponse.model_validate(
        {"stop": stop, "blocks": list(blocks), "noise": list(noise)}
    )


def client_events(rendered: HttpResponse, path: str) -> list[ServerSentEvent]:
    """The events of a rendered stream as an httpx client sees them through httpx-sse,
    each flushed chunk delivered on its own."""

    def answer(_: httpx.Request) -> httpx.Response:
        return httpx.Response(
            rendered.status, headers=list(rendered.headers), content=iter(rendered.chunks)
        )

    with (
        httpx.Client(transport=httpx.MockTransport(answer)) as client,
        connect_sse(client, "POST", f"http://127.0.0.1{path}") as source,
    ):
        return list(source.iter_sse())
