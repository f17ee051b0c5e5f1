"""Rules re-derived from real traffic that other projects recorded (the audit of 3,454
real conversations from 25 repositories; the bytes are vendored under
tests/real_traffic/other/, provenance in PROVENANCE.md there), each with its negative.

* Gemini answered 200 to parallel calls answered in consecutive user contents, one
  functionResponse each (crewAIInc/crewAI): rule 42 counts the run of response contents
  after a call turn as one.
* OpenAI answered 200 to a Responses request that names no ``model`` and uses a stored
  ``prompt`` (DataDog/dd-trace-py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance._recording.audit import audit_paths
from conformance.errors import ResponseReadError
from conformance.http import HttpRequest
from conformance.vocabulary import Options, ToolCall, ToolResult
from conformance.wires._gemini.rules import RESPONSE_COUNT, RESPONSE_TURN_PLACED
from conformance.wires._registry import get_wire
from conformance.wires.context import ValidationContext
from tests.wires.test_gemini import answer, call, errors, loop, model, parse, user

OTHER = Path(__file__).resolve().parents[1] / "real_traffic" / "other"
COUNT = RESPONSE_COUNT.error
PLACED = RESPONSE_TURN_PLACED.error


def _three_calls() -> dict[str, Any]:
    return model(call("one", {}, None), call("two", {}, None), call("three", {}, None))


def test_parallel_calls_answered_in_consecutive_contents_are_taken() -> None:
    split = loop(_three_calls(), user(answer("one")), user(answer("two")), user(answer("three")))
    assert errors(split) == []
    # Each response pairs with the call at its position over the run, not the first.
    view = parse(split)
    assert [m.role for m in view.messages] == ["user", "assistant", "tool", "tool", "tool"]
    calls = [b.id for b in view.messages[1].blocks if isinstance(b, ToolCall)]
    answered = [b.call_id for m in view.messages[2:] for b in m.blocks if isinstance(b, ToolResult)]
    assert answered == calls


def test_a_run_that_answers_too_few_or_too_many_is_still_refused() -> None:
    short = loop(_three_calls(), user(answer("one")), user(answer("two")))
    assert COUNT in errors(short)
    extra = loop(
        _three_calls(),
        user(answer("one")),
        user(answer("two")),
        user(answer("three"), answer("three")),
    )
    assert COUNT in errors(extra)


def test_a_response_content_after_a_prompt_is_still_an_orphan() -> None:
    orphan = loop(_three_calls(), user(answer("one"), answer("two"), answer("three")), user("and?"))
    assert errors(orphan) == []
    orphan_after_text = body_with(orphan, user(answer("one")))
    assert PLACED in errors(orphan_after_text)


def body_with(payload: dict[str, Any], *contents: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "contents": [*payload["contents"], *contents]}


def _responses_errors(payload: dict[str, Any]) -> list[str]:
    wire = get_wire("openai-responses")
    context = ValidationContext(number=1, options=Options(), served=())
    request = HttpRequest("POST", "/v1/responses", json.dumps(payload).encode())
    return [v.message for v in wire.validate(wire.parse(request, context), context)]


def test_a_stored_prompt_stands_for_the_model() -> None:
    prompt = {"id": "pmpt_690b24669d8c81948acc0e98da10e6490190feb3a62eee0b", "version": "4"}
    assert _responses_errors({"prompt": prompt}) == []
    assert _responses_errors({"input": "hi"}) == ["Missing required parameter: 'model'."]


def test_the_vendored_bytes_are_no_false_refusal() -> None:
    files = sorted(OTHER.glob("*.json"))
    assert {p.name.split("-")[0] for p in files} == {
        "crewai",
        "dd",
        "llm",
        "mirascope",
        "openllmetry",
    }
    report = audit_paths([(p, p.name) for p in files], {})
    assert report.false_refusals == ()
    assert report.counts()["agrees"] >= 8


def test_gemini_finish_reasons_spelled_as_enum_numbers_read_back() -> None:
    """Google's Python clients ask for ``$alt=json;enum-encoding=int`` and get
    ``"finishReason": 1`` (open-telemetry/opentelemetry-python-contrib's vertexai
    cassettes, Arize-ai/openinference's); only the numbers both APIs share are read."""

    read = get_wire("gemini").read

    def answer_with(reason: object) -> bytes:
        candidate = {
            "content": {"role": "model", "parts": [{"text": "Hi."}]},
            "finishReason": reason,
        }
        return json.dumps({"candidates": [candidate]}).encode()

    assert read(answer_with(1), False).stop == "end"
    assert read(answer_with(2), False).stop == "max_tokens"
    assert read(answer_with("STOP"), False).stop == "end"
    for unknown in (9, 0, True, 1.0):
        with pytest.raises(ResponseReadError, match="has no neutral stop"):
            read(answer_with(unknown), False)
