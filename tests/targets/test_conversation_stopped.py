"""A library that stops the conversation on purpose (``ConversationStopped``; a
command's exit 93) is judged on what it sent: the stop passes where the response before
it lets the turn end and fails, as a lost turn, where a client goes on; expectations
about what it never reached are not listed; the same behaviour gets the same verdict as
an adapter and as a command."""

from __future__ import annotations

import shlex
import sys
from typing import ClassVar

import pytest

from conformance._cases.schema import halt_accepted
from conformance._runner import RunOptions, plan, run_job
from conformance._targets.adapter import AdapterKind
from conformance._targets.api import ConversationStopped, WireResponse
from conformance._targets.command import CommandKind, CommandResult, command_outcome
from conformance._targets.command_contract import EXIT_CONVERSATION_STOPPED
from conformance._targets.resolve import ResolvedTarget, resolve_target
from conformance.verdict import Result
from conformance.vocabulary import Fault, ScriptedResponse, Text, ToolCall
from harness.broken.drop_signature_only import DropSignatureOnlyAdapter, DropSignatureOnlySession
from tests.support import library

ACCEPTED = ("responses-incomplete-reasoning-only-not-retried", "openai-responses")
LOST = ("anthropic-first-ping-inside-the-first-block", "anthropic-messages")
NONE_SENT_ACCEPTED = (
    "anthropic-adaptive-only-model-manual-config-sent-adaptive",
    "anthropic-messages",
)
STOPS = "tests.targets.stopping:StopsAfterFirstResponse"


def run_cell(target: ResolvedTarget, case_id: str, column: str) -> Result:
    jobs = [j for j in plan([c.case for c in library().cases], target) if j.case.id == case_id]
    job = next(j for j in jobs if j.column == column)
    return run_job(target, job, RunOptions(timeout=30))[0]


def adapter(spec: str) -> ResolvedTarget:
    return resolve_target(spec)


def test_a_stop_where_the_turn_may_end_passes_and_says_so() -> None:
    result = run_cell(adapter(STOPS), *ACCEPTED)
    assert result.verdict == "pass", result
    assert result.reason is not None
    assert "stopped the conversation after scripted response 1" in result.reason
    assert "LibraryStop" in result.reason
    # `requests: 2 | 3` is about the part the library never held: not listed
    assert not result.violations


def test_a_stop_after_a_response_a_client_goes_on_from_is_a_lost_turn() -> None:
    result = run_cell(adapter(STOPS), *LOST)
    assert result.verdict == "fail"
    assert result.reason is not None
    assert "the user's turn is lost" in result.reason
    assert "LibraryStop" in result.reason
    assert not result.violations, "no cascade of expectations the stop never reached"


def test_a_stop_before_sending_passes_only_where_the_case_accepts_none_sent() -> None:
    before = adapter("tests.targets.stopping:StopsBeforeSending")
    accepted = run_cell(before, *NONE_SENT_ACCEPTED)
    assert accepted.verdict == "pass", accepted
    lost = run_cell(before, *LOST)
    assert lost.verdict == "fail"
    assert "before its first request" in (lost.reason or "")


class _StopsOnTheRejection(DropSignatureOnlySession):
    def retries(self, response: WireResponse) -> bool:
        raise ConversationStopped(f"APIStatusError: {response.status}")


class StopsOnTheRejection(DropSignatureOnlyAdapter):
    name: ClassVar[str] = "broken-stops-on-rejection"
    session_class = _StopsOnTheRejection


def test_what_was_sent_is_judged_before_the_stop() -> None:
    target = ResolvedTarget(
        spec="stops-on-rejection",
        name="stops-on-rejection",
        kind=AdapterKind(StopsOnTheRejection()),
        wires=None,
        capabilities=resolve_target(STOPS).capabilities,
    )
    result = run_cell(target, "interleaved-signature-only-mid-turn", "anthropic-messages")
    assert result.verdict == "fail"
    assert result.violations, "the rule the sent request broke is the verdict's cause"
    assert "then the library stopped the conversation: APIStatusError: 400" in (result.reason or "")


def test_exit_93_is_the_librarys_stop_with_its_message() -> None:
    ran = CommandResult(
        exit_code=EXIT_CONVERSATION_STOPPED,
        timed_out=False,
        stdout_tail="",
        stderr_tail="log\nModelBehaviorError: incomplete\n",
    )
    outcome = command_outcome(ran, 5)
    assert outcome.halted == "ModelBehaviorError: incomplete"
    assert (outcome.error, outcome.stopped, outcome.refused) == (None, None, None)


@pytest.mark.parametrize(
    ("response", "accepted"),
    [
        (ScriptedResponse(stop="max_tokens", blocks=(Text(text="cut"),)), True),
        (ScriptedResponse(stop="no_finish", blocks=(Text(text="cut"),)), True),
        (ScriptedResponse(stop="end", blocks=()), True),
        (ScriptedResponse(stop="refusal", blocks=(Text(text="no"),)), True),
        (ScriptedResponse(stop="end", blocks=(Text(text="done"),)), False),
        (
            ScriptedResponse(
                stop="tool_calls", blocks=(ToolCall(id="c1", name="f", arguments={}),)
            ),
            False,
        ),
        (ScriptedResponse(stop="end", blocks=(Text(text="done"),), halt="accepted"), True),
        (ScriptedResponse(stop="max_tokens", blocks=(Text(text="cut"),), halt="lost"), False),
        (ScriptedResponse(stop="no_finish", fault=Fault(kind="overloaded")), True),
        (ScriptedResponse(stop="no_finish", fault=Fault(kind="invalid-encrypted-content")), False),
    ],
)
def test_where_a_stop_is_accepted(response: ScriptedResponse, accepted: bool) -> None:
    assert halt_accepted(response) is accepted


@pytest.mark.slow
@pytest.mark.parametrize(("case_id", "column", "verdict"), [(*ACCEPTED, "pass"), (*LOST, "fail")])
def test_one_verdict_as_an_adapter_and_as_a_command(
    case_id: str, column: str, verdict: str
) -> None:
    shell = f"{shlex.quote(sys.executable)} -m conformance.agent {STOPS}"
    command = ResolvedTarget(
        spec=shell,
        name="stops-command",
        kind=CommandKind(shell, contract=2),
        wires=None,
        capabilities=resolve_target(STOPS).capabilities,
    )
    as_command = run_cell(command, case_id, column)
    as_adapter = run_cell(adapter(STOPS), case_id, column)
    assert as_command.verdict == as_adapter.verdict == verdict
    assert as_command.reason == as_adapter.reason


def test_a_negative_expectation_on_a_request_never_sent_is_unreached() -> None:
    from conformance._cases.schema import ExpectNone
    from conformance._checks.expectations import unreached

    none = ExpectNone.model_validate({"in": {"request": 2}, "none": {"kind": "reasoning"}})
    assert unreached(none, sent=1)
    assert not unreached(none, sent=2)  # request 2 was sent: it is judged
    last = ExpectNone.model_validate({"in": {"request": -1}, "none": {"kind": "reasoning"}})
    assert not unreached(last, sent=1)
