"""What every wire's tests share: building a scripted response, and reading a rendered
stream the way an independent client (httpx with httpx-sse) does, flush by flush."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
from httpx_sse import ServerSentEvent, connect_sse

from conformance._cases.realism import realism_problems
from conformance._cases.schema import Case
from conformance.http import HttpResponse
from conformance.vocabulary import ScriptedResponse
from conformance.wires.roles import Wire


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


def realism_case(
    column: str,
    *responses: dict[str, Any],
    history: Sequence[dict[str, Any]] = (),
    options: dict[str, Any] | None = None,
) -> Case:
    """A one-turn case on ``column`` whose responses (and saved history) a wire's
    realism lint is asked about."""
    return Case.model_validate(
        {
            "id": "realism-probe",
            "title": "realism probe",
            "provenance": [{"rule": 1}],
            "features": ["stream-events"],
            "wires": {column: "The provider streams these shapes."},
            "given": {
                "options": options or {},
                "tools": [{"name": "read", "result": "ok"}],
                "history": list(history),
                "turns": [{"user": "go", "responses": list(responses)}],
            },
            "expect": [{"requests": 1}],
        }
    )


def end(*blocks: dict[str, Any], stop_: str = "end", noise: Sequence[str] = ()) -> dict[str, Any]:
    """A scripted response as case data (the realism lint reads cases, not models)."""
    return {"stop": stop_, "blocks": list(blocks), "noise": list(noise)}


def unrealistic(wire: Wire, case: Case, dialect: str | None = None) -> list[str]:
    """The realism lint of ``case`` on ``wire`` (in ``dialect``), as ``cases --lint``
    runs it: the cases layer's one walk over the wire's predicates."""
    return realism_problems(case, wire.realism, dialect)
