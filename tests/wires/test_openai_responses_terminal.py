"""The Responses terminal events the case language can now script: response.failed (a
fault ending the stream, rule 21) and a response.completed whose output is empty after
every item was streamed (rule 23); both are Responses-only shapes."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from conformance.errors import ResponseReadError
from conformance.vocabulary import ScriptedResponse
from conformance.wires._openai_responses import WIRE
from conformance.wires._registry import get_wire
from tests.wires.kit import realism_case, unrealistic
from tests.wires.test_openai_responses import assemble, events, kinds, render

SAY = {"kind": "text", "text": "Done."}
CALL = {"kind": "tool_call", "id": "call_a", "name": "read", "arguments": {}}


def response(**fields: Any) -> ScriptedResponse:
    return ScriptedResponse.model_validate(fields)


def test_empty_final_output_streams_every_item_then_completes_with_no_output() -> None:
    quirk = response(stop="tool_calls", blocks=[SAY, CALL], empty_final_output=True)
    done, terminal = assemble(events(quirk))
    assert [item["type"] for item in done] == ["message", "function_call"]
    assert [t["type"] for t in terminal] == ["response.completed"]
    assert terminal[0]["response"]["output"] == []
    normal = response(stop="tool_calls", blocks=[SAY, CALL])
    assert len(assemble(events(normal))[1][0]["response"]["output"]) == 2
    # The reader takes items from their own events, so both read back the same (the ids
    # each was served under aside: the two scripts differ, so their minted ids do too).
    read = [WIRE.read(render(r).body, True) for r in (quirk, normal)]
    assert read[0].model_copy(update={"ids": None}) == read[1].model_copy(update={"ids": None})


def test_response_failed_ends_the_stream_with_the_error_in_the_response() -> None:
    fault = {"kind": "server-error", "mid_stream": True, "response_failed": True}
    failed = response(fault=fault, blocks=[{**SAY, "chunks": [2]}])
    stream = events(failed)
    assert kinds(stream)[-1] == "response.failed"
    assert "error" not in kinds(stream)
    final = stream[-1][1]["response"]
    assert final["status"] == "failed"
    assert final["error"]["code"] == "server_error"
    assert "response.completed" not in kinds(stream)
    with pytest.raises(ResponseReadError, match="server_error"):
        WIRE.read(render(failed).body, True)
    plain = response(fault={"kind": "server-error", "mid_stream": True}, blocks=[SAY])
    assert kinds(events(plain))[-1] == "error"


def test_response_failed_needs_a_mid_stream_fault() -> None:
    with pytest.raises(ValidationError, match="needs mid_stream"):
        response(fault={"kind": "server-error", "response_failed": True})


@pytest.mark.parametrize("column", ["anthropic-messages", "gemini", "openai-chat"])
def test_both_are_responses_only(column: str) -> None:
    wire = get_wire(column)
    quirk = {"stop": "end", "blocks": [SAY], "empty_final_output": True}
    fault = {"fault": {"kind": "server-error", "mid_stream": True, "response_failed": True}}
    for shape in (quirk, {**fault, "blocks": [SAY]}):
        assert unrealistic(wire, realism_case(column, shape, {"stop": "end", "blocks": [SAY]}))
    responses = get_wire("openai-responses")
    case = realism_case("openai-responses", quirk)
    assert unrealistic(responses, case) == []


# ---------------------------------------------------------------- invalid_encrypted_content


def test_invalid_encrypted_content_is_the_400_with_openais_code() -> None:
    fault = response(fault={"kind": "invalid-encrypted-content"})
    answer = render(fault)
    assert answer.status == 400
    error = answer.json()["error"]
    assert error["code"] == "invalid_encrypted_content"
    assert error["message"].endswith(
        "could not be verified. Reason: Encrypted content could not be decrypted or parsed."
    )
    shape = {"fault": {"kind": "invalid-encrypted-content"}}
    say = {"stop": "end", "blocks": [SAY]}
    for column in ("anthropic-messages", "gemini", "openai-chat"):
        assert unrealistic(get_wire(column), realism_case(column, shape, say))
    assert unrealistic(WIRE, realism_case("openai-responses", shape, say)) == []
    mid = {"fault": {"kind": "invalid-encrypted-content", "mid_stream": True}, "blocks": [SAY]}
    assert unrealistic(WIRE, realism_case("openai-responses", mid, say))


def test_after_the_repair_the_dropped_reasoning_is_owed_no_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from conformance._checks import ledger
    from conformance._reference.adapter import ReferenceAdapter
    from conformance._runner import RunOptions, plan, run_jobs
    from conformance._targets.resolve import target_from_object
    from tests.support import library

    wanted = "responses-invalid-encrypted-content-retried-without-reasoning"
    case = next(c.case for c in library().cases if c.case.id == wanted)
    target = target_from_object(ReferenceAdapter())

    def verdict() -> tuple[str, set[str]]:
        [result] = run_jobs(target, plan([case], target), RunOptions(strict=True))
        return result.verdict, {v.check for v in result.violations}

    assert verdict() == ("pass", set())
    monkeypatch.setattr(ledger, "REPAIRED_FAULTS", frozenset())
    assert verdict() == ("fail", {"invariant/ledger-complete"})
