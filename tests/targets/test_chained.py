"""A client that keeps its Responses conversation on the provider (rules 60-62) gets the
verdict a stateless client gets: the provider judges the conversation it rebuilds from
``previous_response_id`` or ``conversation``.  Clients that keep it wrongly fail with
the rule their rebuilt conversation breaks."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance._provider.scripted import ScriptedProvider
from conformance._reference.adapter import ReferenceAdapter
from conformance._runner import RunOptions, plan, run_jobs, session_for
from conformance._targets.adapter import drive_adapter
from conformance._targets.resolve import target_from_object
from conformance.verdict import Result
from conformance.wires._registry import get_wire
from harness.chained import ChainedReference, ConversationReference
from tests.support import column_results, judged, library, library_case

R = "openai-responses"
CHAIN = "responses-chain-tool-loop-reasoning-items-sent-once"
STORE_FALSE = "responses-store-false-cannot-chain-whole-input-resent"
CONVERSATION = "responses-conversation-continued-over-tool-loop-and-next-turn"
RETRIED = "responses-chain-retried-after-server-error-delta-held-once"
INTERLEAVED = "responses-chain-interleaved-reasoning-across-tool-loop-in-place"
SAVED = "responses-saved-history-continued-into-a-new-chain"
SERVER_STATE = (CHAIN, STORE_FALSE, CONVERSATION, RETRIED, INTERLEAVED, SAVED)
#: Responses cases of other families a chained client runs as well.
OTHERS = (
    "responses-reasoning-items-across-tool-loop-all-kept",
    "responses-server-error-after-tool-round-retried-unchanged",
    "responses-parallel-function-calls-all-answered",
    "responses-two-reasoning-items-before-one-function-call",
    "responses-earlier-turn-reasoning-kept-with-its-message-or-pruned",
)
CASES = SERVER_STATE + OTHERS


def results(
    target_name: str, cases: tuple[str, ...] = CASES, strict: bool = True
) -> dict[str, Result]:
    options = RunOptions(timeout=30, strict=strict, evidence="any")
    return column_results(target_name, R, cases, options)


def sent(adapter: ReferenceAdapter, case_id: str) -> list[dict[str, Any]]:
    """The body of each request ``adapter`` sends on the case."""
    case = library_case(case_id)
    provider = ScriptedProvider(case, get_wire(R))
    drive_adapter(adapter, session_for(case, R, None), provider, "/v1/responses", False)
    return [json.loads(e.request.body) for e in provider.exchanges]


def shape(body: dict[str, Any]) -> tuple[bool, str | None, list[str]]:
    """Whether a body chains, the conversation it names, the types of its input items."""
    items = [str(i.get("type")) for i in body["input"]]
    return "previous_response_id" in body, body.get("conversation"), items


def test_the_chained_reference_sends_only_the_delta() -> None:
    chained = [shape(b) for b in sent(ChainedReference(), CHAIN)]
    assert chained == [
        (False, None, ["message"]),
        (True, None, ["function_call_output"]),
        (True, None, ["function_call_output"]),
    ]
    bodies = sent(ChainedReference(), CHAIN)
    # Each request chains on the response to the one before it.
    assert bodies[1]["previous_response_id"] != bodies[2]["previous_response_id"]


def test_the_conversation_reference_names_one_conversation() -> None:
    bodies = sent(ConversationReference(), CONVERSATION)
    shapes = [shape(b) for b in bodies]
    conversation = bodies[0]["conversation"]
    assert conversation.startswith("conv_")
    assert shapes == [
        (False, conversation, ["message"]),
        (False, conversation, ["function_call_output"]),
        (False, conversation, ["message"]),
    ]


def test_a_retry_chains_on_the_same_response_with_the_same_delta() -> None:
    bodies = sent(ChainedReference(), RETRIED)
    assert [shape(b) for b in bodies][1:] == [(True, None, ["function_call_output"])] * 2
    assert bodies[1] == bodies[2]


def test_with_store_false_the_client_never_chains() -> None:
    for adapter in (ChainedReference(), ConversationReference()):
        bodies = sent(adapter, STORE_FALSE)
        assert [shape(b)[:2] for b in bodies] == [(False, None), (False, None)]
        assert bodies == sent(ReferenceAdapter(), STORE_FALSE)


def test_a_saved_history_is_sent_whole_then_chained() -> None:
    bodies = sent(ChainedReference(), SAVED)
    assert shape(bodies[0])[0] is False
    assert len(bodies[0]["input"]) > 1
    assert shape(bodies[1]) == (True, None, ["function_call_output"])


@pytest.mark.parametrize(
    "target",
    ["tests.targets.chained:ChainedReference", "tests.targets.chained:ConversationReference"],
)
def test_a_chained_client_gets_the_stateless_client_s_verdict(target: str) -> None:
    stateless = results("reference")
    chained = results(target)
    assert set(stateless) == set(chained) == set(CASES)
    assert {case: judged(r) for case, r in chained.items()} == {
        case: judged(r) for case, r in stateless.items()
    }
    assert {r.verdict for r in chained.values()} == {"pass"}


@pytest.mark.parametrize(
    ("variant", "case", "rule"),
    [
        ("ChainedIgnoringStore", STORE_FALSE, "openai-responses/previous-response-not-found"),
        ("ChainedWrongPrevious", CHAIN, "openai-responses/previous-response-not-found"),
        ("ChainedWrongPrevious", SAVED, "openai-responses/previous-response-not-found"),
        ("ConversationResendingEverything", CONVERSATION, "openai-responses/duplicate-item"),
        ("ConversationResendingEverything", INTERLEAVED, "openai-responses/duplicate-item"),
        ("ChainedWithoutToolOutputs", CHAIN, "openai-responses/output-for-call"),
        ("ChainedWithoutToolOutputs", INTERLEAVED, "openai-responses/output-for-call"),
        ("ChainedDoubledRetry", RETRIED, "expect"),
    ],
)
def test_a_wrong_delta_fails_with_the_rule_it_breaks(variant: str, case: str, rule: str) -> None:
    (result,) = results(f"tests.targets.chained:{variant}", (case,)).values()
    assert result.verdict == "fail"
    assert result.violations[0].check == rule


@pytest.mark.parametrize("adapter", [ChainedReference, ConversationReference])
def test_the_chained_references_pass_every_responses_cell(adapter: type[ReferenceAdapter]) -> None:
    """Every Responses cell of the library, on observed evidence.  (Strictly, one cell
    warns on append-only: after XML recovery rewrote a reply the client falls back to the
    whole input, whose earlier items differ in bytes from the stored ones.)"""
    target = target_from_object(adapter())
    jobs = [j for j in plan([c.case for c in library().cases], target) if j.column == R]
    found = run_jobs(target, jobs, RunOptions(timeout=30))
    assert len(found) == len(jobs)
    assert {r.case for r in found if r.verdict in ("fail", "error")} == set()
