"""Responses background mode, from the real bytes of pydantic/pydantic-ai's cassettes
(tests/real_traffic/resp/test_background_mode*.json): a turn answered ``queued`` is
settled by the poll that reached a final status; a client that asks to wait is served
the pending answer and each recorded poll; one that does not is served the outcome; a
recording that ends while the response runs holds no turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance._recording.load import load_recording
from conformance._recording.replay import ReplayProvider, recorded_answers
from conformance._recording.to_case import played, recording_case, settled
from conformance.errors import Unscriptable
from conformance.http import HttpRequest
from conformance.wires._openai_responses import _background
from conformance.wires._registry import get_wire

CORPUS = Path(__file__).resolve().parents[1] / "real_traffic" / "resp"
POLLED_TWICE = CORPUS / "test_background_mode_vcr.json"
TWO_TURNS = CORPUS / "test_background_mode_with_tool_vcr.json"
NEVER_SETTLED = CORPUS / "test_background_mode_streaming_without_starting_after_vcr.json"


def _status(body: bytes) -> str:
    return str(json.loads(body)["status"])


def _get(path: str) -> HttpRequest:
    return HttpRequest("GET", path, b"", "stream=false", {})


def test_settle_points_at_the_first_final_poll_and_nothing_else() -> None:
    recording = load_recording(POLLED_TWICE)
    first, in_progress, completed = recording.exchanges
    later = [(e.request.http(), e.response.body) for e in (in_progress, completed)]
    assert _background.settle(first.response.body, later) == 1
    # Negative examples: a finished answer, a stream, a poll of another response.
    assert _background.settle(completed.response.body, later) is None
    assert _background.settle(b"event: response.created\ndata: {}\n\n", later) is None
    other = [(_get("/v1/responses/resp_other"), completed.response.body)]
    assert _background.settle(first.response.body, other) == _background.NEVER
    assert _background.settle(first.response.body, []) == _background.NEVER


def test_a_polled_turn_reads_back_from_its_outcome() -> None:
    recording = load_recording(TWO_TURNS)
    assert _status(recording.exchanges[0].response.body) == "queued"
    assert _status(settled(recording, 0).response.body) == "completed"
    assert _status(settled(recording, 2).response.body) == "completed"
    assert settled(recording, 2).response == recording.exchanges[4].response
    answers = [p.response for p in played(recording)]
    assert [a.stop if a else None for a in answers] == ["tool_calls", "end"]


def test_a_response_still_running_at_the_end_is_no_turn() -> None:
    recording = load_recording(NEVER_SETTLED)
    with pytest.raises(Unscriptable, match="still running when the recording ended"):
        settled(recording, 0)


def _provider(path: Path) -> tuple[ReplayProvider, list[HttpRequest]]:
    recording = load_recording(path)
    plays = played(recording)
    wire = get_wire("openai-responses")
    provider = ReplayProvider(
        recorded_answers(recording, plays), recording_case(recording, path), wire, None
    )
    posts = [e.request.http() for e in recording.exchanges if e.request.method == "POST"]
    return provider, posts


def test_a_client_that_asks_to_wait_is_served_the_pending_answer_and_each_poll() -> None:
    provider, (post,) = _provider(POLLED_TWICE)
    pending = provider.handle(post)
    assert _status(pending.body) == "queued"
    response_id = json.loads(pending.body)["id"]
    polls = [provider.handle(_get(f"/v1/responses/{response_id}")) for _ in range(3)]
    assert [_status(p.body) for p in polls] == ["in_progress", "completed", "completed"]
    # Polls are transport, not turns: only the POST was judged.
    assert len(provider.exchanges) == 1
    assert provider.exchanges[0].problem is None


def test_a_client_that_does_not_ask_to_wait_gets_the_outcome_at_once() -> None:
    provider, (post,) = _provider(POLLED_TWICE)
    body = json.loads(post.body)
    del body["background"]
    answer = provider.handle(
        HttpRequest(post.method, post.path, json.dumps(body).encode(), post.query, post.headers)
    )
    assert _status(answer.body) == "completed"
    # Nothing is pending, so a poll is no endpoint of the wire (the strict provider's 404).
    assert provider.handle(_get("/v1/responses/resp_x")).status == 404
