"""Faults in the case language: a scripted slot answered with a transient HTTP error in
the wire's own error shape; the retry gets the next answer; every reaction the provider
accepts (an identical retry, a stop) passes, and a retry that changes the body fails."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from pydantic import ValidationError

from conformance._cases.schema import Case, Turn
from conformance._reference import ReferenceAdapter
from conformance._reference.adapter import ReferenceSession
from conformance._reference.codec import WireCodec
from conformance._reference.guards import Guards
from conformance._reference.history import History
from conformance._runner import RunOptions, plan, run_job
from conformance._targets.api import CaseBrief, WireResponse
from conformance._targets.resolve import target_from_object
from conformance._transcript import Transcript
from conformance.verdict import EvidenceThreshold, Result
from conformance.vocabulary import Fault, ScriptedResponse, Text
from conformance.wires._registry import get_wire
from conformance.wires.context import RenderContext
from harness.clients.reference_client import ReferenceOverHttpx
from tests.support import library

FAULT_CASES = {
    "anthropic-overloaded-after-tool-round-retried-unchanged": "anthropic-messages",
    "anthropic-rate-limited-with-retry-after": "anthropic-messages",
    "chat-rate-limited-after-tool-round-retried-unchanged": "openai-chat",
    "responses-server-error-after-tool-round-retried-unchanged": "openai-responses",
    "gemini-unavailable-after-tool-round-retried-unchanged": "gemini",
}


def _case(case_id: str) -> Case:
    return next(c.case for c in library().cases if c.case.id == case_id)


def _run(
    target: object, case_id: str, evidence: EvidenceThreshold = "observed", strict: bool = True
) -> tuple[Result, Transcript]:
    resolved = target_from_object(target)
    job = plan([_case(case_id)], resolved)[0]
    result, transcript = run_job(resolved, job, RunOptions(strict=strict, evidence=evidence))
    assert transcript is not None
    return result, transcript


# ---------------------------------------------------------------- the case language


def test_a_fault_needs_no_stop_and_carries_nothing_else() -> None:
    fault = ScriptedResponse.model_validate({"fault": {"kind": "overloaded"}})
    assert fault.stop == "no_finish"
    assert fault.fault == Fault(kind="overloaded")
    with pytest.raises(ValidationError, match="a fault cuts its answer"):
        ScriptedResponse.model_validate({"fault": {"kind": "rate-limit"}, "stop": "end"})


def test_a_fault_is_never_the_last_response_of_a_turn() -> None:
    with pytest.raises(ValidationError, match="a retry needs an answer"):
        Turn.model_validate({"user": "hi", "responses": [{"fault": {"kind": "overloaded"}}]})


# ---------------------------------------------------------------- rendering

#: wire -> fault kind -> (status, what the body must hold)
SHAPES: dict[str, dict[str, tuple[int, dict[str, object]]]] = {
    "anthropic-messages": {
        "overloaded": (529, {"type": "error", "error": {"type": "overloaded_error"}}),
        "rate-limit": (429, {"type": "error", "error": {"type": "rate_limit_error"}}),
    },
    "openai-chat": {
        "rate-limit": (429, {"error": {"type": "requests"}}),
        "overloaded": (503, {"error": {"type": "server_error"}}),
        "server-error": (500, {"error": {"type": "server_error"}}),
    },
    "openai-responses": {"server-error": (500, {"error": {"type": "server_error"}})},
    "gemini": {
        "rate-limit": (429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}),
        "overloaded": (503, {"error": {"code": 503, "status": "UNAVAILABLE"}}),
    },
}


def _holds(body: object, wanted: object) -> bool:
    if isinstance(wanted, dict):
        return isinstance(body, dict) and all(_holds(body.get(k), v) for k, v in wanted.items())
    return body == wanted


@pytest.mark.parametrize(("wire", "kind"), [(w, k) for w, kinds in SHAPES.items() for k in kinds])
def test_each_wire_renders_a_fault_in_its_own_error_shape(wire: str, kind: str) -> None:
    status, shape = SHAPES[wire][kind]
    response = ScriptedResponse.model_validate({"fault": {"kind": kind, "retry_after": 2}})
    context = RenderContext(index=0, case_id="c", model="m", stream=True)
    answer = get_wire(wire).render(response, context)
    assert answer.status == status
    assert _holds(json.loads(answer.body), shape), answer.body
    assert ("retry-after", "2") in answer.headers
    assert not answer.streaming


# ---------------------------------------------------------------- reactions


@pytest.mark.parametrize("case_id", sorted(FAULT_CASES))
def test_the_reference_retries_unchanged_and_is_served_the_next_answer(case_id: str) -> None:
    result, transcript = _run(ReferenceAdapter(), case_id)
    assert result.verdict == "pass", result.violations
    served = [e.served for e in transcript.exchanges]
    fault = next(i for i, r in enumerate(transcript.case.given.responses) if r.fault)
    assert served[served.index(fault) + 1] == fault + 1  # the retry got the next slot
    faulted = served.index(fault)
    retry = transcript.exchanges[faulted + 1]
    assert json.loads(retry.request.body) == json.loads(transcript.exchanges[faulted].request.body)


class _Stops(ReferenceSession):
    """A client that gives up on the first error answer."""

    def retries(self, response: WireResponse) -> bool:
        return False


class _StoppingAdapter(ReferenceAdapter):
    session_class = _Stops


@pytest.mark.parametrize("case_id", sorted(FAULT_CASES))
def test_a_stop_right_after_a_fault_is_accepted(case_id: str) -> None:
    result, transcript = _run(_StoppingAdapter(), case_id)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert transcript.stopped is not None


@pytest.mark.parametrize("case_id", sorted(FAULT_CASES))
def test_a_retry_that_changes_the_history_fails_when_inferred_evidence_counts(
    case_id: str,
) -> None:
    result, _ = _run(ReferenceAdapter(disabled={"retry-unchanged"}), case_id, "any")
    assert result.verdict == "fail"
    assert "invariant/retry-identical" in {v.check for v in result.violations}


@pytest.mark.parametrize("case_id", sorted(FAULT_CASES))
def test_a_retry_that_changes_the_history_is_only_a_warning_by_default(case_id: str) -> None:
    """The provider accepts a changed retry: by default it is reported, never failed."""
    result, _ = _run(ReferenceAdapter(disabled={"retry-unchanged"}), case_id, strict=False)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert "invariant/retry-identical" in {w.check for w in result.warnings}


class _RemindingHistory(History):
    """A user message that carries the harness's own context before the prompt, as the
    qwen-code CLI sends its ``<system-reminder>`` text blocks."""

    def add_user(self, text: str) -> None:
        super().add_user(text)
        prompt = self._messages.pop()
        context = Text(text="<system-reminder>The current date is 2 December.</system-reminder>")
        self._messages.append(prompt.model_copy(update={"blocks": (context, *prompt.blocks)}))


class _Reminds(ReferenceSession):
    def __init__(self, brief: CaseBrief, guards: Guards, codec: WireCodec) -> None:
        super().__init__(brief, guards, codec)
        self.history = _RemindingHistory(brief.history)


class _RemindingAdapter(ReferenceAdapter):
    session_class = _Reminds


#: fault cases that check the prompt is still in the (retried) request's user message
PROMPT_KEPT = (
    "anthropic-rate-limited-with-retry-after",
    "chat-error-chunk-mid-answer",
    "gemini-resource-exhausted-first-request-retried-unchanged",
    "gemini-unavailable-error-object-mid-stream",
    "openrouter-upstream-unavailable-first-request-retried-unchanged",
    "responses-error-event-mid-answer",
    "responses-failed-event-mid-answer",
    "responses-invalid-encrypted-content-retried-without-reasoning",
    "responses-rate-limited-first-request-retried-unchanged",
)


@pytest.mark.parametrize("case_id", PROMPT_KEPT)
def test_context_blocks_beside_the_prompt_are_accepted_on_a_retry(case_id: str) -> None:
    """The provider accepts a user message with the harness's context blocks in it: the
    fault cases ask only that the prompt is there (qwen-code 0.24.4 was failed for it)."""
    result, transcript = _run(_RemindingAdapter(), case_id)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert b"system-reminder" in transcript.exchanges[-1].request.body


class _Forgets(ReferenceSession):
    """A retry that drops the stored tool round (history rebuilt from the prompt only)."""

    def retries(self, response: WireResponse) -> bool:
        self.history = type(self.history)(self.brief.history)
        self.history.add_user(self.brief.prompts[0])
        return super().retries(response)


class _ForgettingAdapter(ReferenceAdapter):
    session_class = _Forgets


def test_a_retry_that_forgets_the_tool_round_fails() -> None:
    result, _ = _run(
        _ForgettingAdapter(), "chat-rate-limited-after-tool-round-retried-unchanged", "any"
    )
    assert "invariant/retry-identical" in {v.check for v in result.violations}


@pytest.mark.parametrize("case_id", sorted(FAULT_CASES))
def test_over_http_the_agent_loop_retries_as_the_adapter_asks(case_id: str) -> None:
    """``conformance.agent``'s loop (commands and clients) hands the error answer to the
    adapter (``ErrorAnswer``) instead of ending on it."""
    result, transcript = _run(ReferenceOverHttpx(), case_id)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert transcript.served_count() == len(transcript.case.given.responses)


#: wire -> what the last event of a stream failed mid-answer holds
MID_STREAM: dict[str, tuple[str, bytes]] = {
    "anthropic-messages": ("overloaded", b'event: error\ndata: {"type":"error","error":{"type'),
    "openai-chat": ("server-error", b'data: {"error":{"message":"The server had an error'),
    "openai-responses": ("server-error", b'event: error\ndata: {"type":"error","code"'),
    "gemini": ("overloaded", b'data: {"error":{"code":503,"message":"The model is overloaded'),
}


@pytest.mark.parametrize("wire", sorted(MID_STREAM))
def test_a_mid_stream_fault_streams_its_blocks_then_the_wires_error_event(wire: str) -> None:
    kind, last = MID_STREAM[wire]
    response = ScriptedResponse.model_validate(
        {"fault": {"kind": kind, "mid_stream": True}, "blocks": [{"kind": "text", "text": "Hal"}]}
    )
    context = RenderContext(index=0, case_id="c", model="m", stream=True)
    answer = get_wire(wire).render(response, context)
    assert answer.status == 200
    assert answer.streaming or wire == "gemini"
    assert b"Hal" in answer.body
    assert answer.chunks[-1].replace(b" ", b"").startswith(last.replace(b" ", b"")), answer.chunks[
        -1
    ]
    unstreamed = get_wire(wire).render(response, replace(context, stream=False))
    assert unstreamed.status >= 429  # a request that asked for no stream gets the HTTP error


def test_blocks_need_a_mid_stream_fault() -> None:
    with pytest.raises(ValidationError, match="unless mid_stream"):
        ScriptedResponse.model_validate(
            {"fault": {"kind": "rate-limit"}, "blocks": [{"kind": "text", "text": "hi"}]}
        )


MID_STREAM_CASES = {
    "anthropic-overloaded-error-event-mid-tool-use",
    "chat-error-chunk-mid-answer",
    "responses-error-event-mid-answer",
    "gemini-unavailable-error-object-mid-stream",
}


@pytest.mark.parametrize("case_id", sorted(MID_STREAM_CASES))
def test_ending_after_a_mid_stream_fault_without_a_retry_is_accepted(case_id: str) -> None:
    """The reference reads the cut answer as truncated and ends its turn: the retry's
    answer is never asked for, and that is no error."""
    result, transcript = _run(ReferenceAdapter(), case_id)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert transcript.stopped is None
    assert transcript.served_count() < len(transcript.case.given.responses)
