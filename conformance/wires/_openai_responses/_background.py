"""Background responses: a turn whose answer comes later, from polling.

A request with ``"background": true`` is answered at once with the response object in
status ``queued`` (or ``in_progress``) and no output; the client then polls
``GET /v1/responses/{id}`` until the status is final, and that later body is the turn's
answer (the real exchanges: pydantic/pydantic-ai's cassettes
``test_background_mode_vcr.yaml``, ``test_background_mode_with_tool_vcr.yaml``,
``test_background_mode_reasoning_vcr.yaml``).  A streamed background request streams its
events as usual, so its answer is the stream itself.

``settle`` tells a recording's reader where a turn's outcome is; ``defers`` and
``poll_of`` tell the replaying provider whether a request asks to be answered later and
which recorded polls a request makes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from conformance.http import HttpRequest
from conformance.wires._openai_responses._ids import nonempty_id
from conformance.wires._sse import looks_streamed
from conformance.wires.context import RequestView

#: Statuses of a background response that is still running.
RUNNING = frozenset({"queued", "in_progress"})
#: Every event type a Responses stream ends with.
_FINAL_EVENTS = (b"response.completed", b"response.incomplete", b"response.failed")
_PATH = "/v1/responses/"

#: ``settle``'s answer when no later exchange holds the outcome: the recording ended
#: while the response was still running.
NEVER = -1


def _object(body: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def running_id(body: bytes) -> str | None:
    """The id of the background response ``body`` announces as still running, or
    ``None``: the body is a stream, a finished response or no response object."""
    if looks_streamed(body):
        return None
    found = _object(body)
    if found is None or found.get("status") not in RUNNING:
        return None
    return nonempty_id(found.get("id"))


def defers(view: RequestView) -> bool:
    """Whether the request asks to be answered later (``"background": true``)."""
    return view.raw.get("background") is True


def poll_of(request: HttpRequest) -> str | None:
    """The response id a ``GET /v1/responses/{id}`` polls, or ``None`` for any other
    request."""
    if request.method.upper() != "GET" or not request.path.startswith(_PATH):
        return None
    return nonempty_id(request.path[len(_PATH) :])


def _final(body: bytes) -> bool:
    """Whether a polled body holds the response's outcome: a finished response object,
    or a stream that reaches its final event."""
    if looks_streamed(body):
        return any(event in body for event in _FINAL_EVENTS)
    found = _object(body)
    return found is not None and found.get("status") not in RUNNING


def settle(body: bytes, later: Sequence[tuple[HttpRequest, bytes]]) -> int | None:
    """Where the outcome of the turn answered with ``body`` is: ``None`` when ``body``
    holds it; else the index, among the ``later`` exchanges (request, answer body), of
    the first poll of that response that reached a final status, or ``NEVER``."""
    response_id = running_id(body)
    if response_id is None:
        return None
    for index, (request, answer) in enumerate(later):
        if poll_of(request) == response_id and _final(answer):
            return index
    return NEVER
