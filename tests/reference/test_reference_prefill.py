"""Issue 13 (rule 10): ``given.options.prefill``, the assistant prefill a harness asks
for.  Before, no case could script one, so a client that prefills with thinking on, or
sends a prefill ending in whitespace, passed every case."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

import pytest
from pydantic import ValidationError

from conformance._cases.schema import Given
from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.anthropic import AnthropicCodec
from conformance._reference.guards import Guards
from conformance._runner import plan, session_for
from conformance._targets.resolve import target_from_object
from conformance.agent.runner import brief_from_contract
from conformance.vocabulary import Message, Options, Text, ThinkingConfig, ToolResult
from tests.support import library_case, run_cell

from .sse_streams import MANUAL, session

OFF = ThinkingConfig()
PROMPT = Message(role="user", blocks=(Text(text="p"),))
WITH_THINKING = "anthropic-prefill-not-sent-with-thinking"
WHITESPACE = "anthropic-prefill-sent-without-trailing-whitespace"
A = "anthropic-messages"


def last(
    prefill: str, history: list[Message], thinking: ThinkingConfig = OFF, *disabled: str
) -> dict[str, Any]:
    held = replace(session(thinking=thinking), prefill=prefill)
    body = AnthropicCodec(held, Guards(disabled)).request(history).body
    assert isinstance(body, dict)
    message: dict[str, Any] = body["messages"][-1]
    return message


def test_a_prefill_ends_the_turns_first_request_trimmed() -> None:
    assert last("Steps:\n1. ", [PROMPT]) == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Steps:\n1."}],
    }
    assert last("Steps:\n1. ", [PROMPT], OFF, "prefill-no-trailing-whitespace")["content"] == [
        {"type": "text", "text": "Steps:\n1. "}
    ]
    assert last("  \n", [PROMPT])["role"] == "user"  # nothing left: no prefill


def test_no_prefill_with_thinking_nor_after_tool_results() -> None:
    assert last("{", [PROMPT], MANUAL)["role"] == "user"
    assert last("{", [PROMPT], ThinkingConfig(mode="adaptive"))["role"] == "user"
    assert last("{", [PROMPT], MANUAL, "no-prefill-with-thinking")["role"] == "assistant"
    call = Message(role="assistant", blocks=(Text(text="t"),))
    results = Message(role="tool", blocks=(ToolResult(call_id="c", content="r"),))
    assert last("{", [PROMPT, call, results])["role"] == "user"


class _NoPrefill(ReferenceAdapter):
    capabilities: ClassVar[frozenset[str]] = ReferenceAdapter.capabilities - {"prefill"}


def test_a_target_without_the_capability_gets_na_and_the_contract_carries_it() -> None:
    case = library_case(WHITESPACE)
    [job] = plan([case], target_from_object(_NoPrefill()))
    assert job.skip is not None
    assert job.skip.startswith("needs capability prefill, which the target does not declare")
    document = session_for(case, A, None).contract(2)
    assert document["prefill"] == "Here are the steps:\n\n1. "
    assert brief_from_contract(document).prefill == document["prefill"]


def test_each_half_of_the_rule_fails_its_case_without_its_guard() -> None:
    for case, guard, rule in (
        (WITH_THINKING, "no-prefill-with-thinking", "prefill-with-thinking"),
        (WHITESPACE, "prefill-no-trailing-whitespace", "prefill-trailing-whitespace"),
    ):
        broken = ReferenceAdapter(disabled=frozenset({guard}))
        result, _ = run_cell(broken, library_case(case), A)
        assert result.verdict == "fail"
        assert f"anthropic-messages/{rule}" in str(result.model_dump())
        assert run_cell(ReferenceAdapter(), library_case(case), A)[0].verdict == "pass"


def test_an_empty_prefill_is_not_something_to_ask_for() -> None:
    with pytest.raises(ValidationError, match="at least 1 character"):
        Options(prefill="")


def test_a_prefill_case_is_one_request() -> None:
    turn = {"user": "p", "responses": [{"stop": "end"}]}
    Given.model_validate({"options": {"prefill": "x"}, "turns": [turn]})
    with pytest.raises(ValidationError, match="a prefill case scripts one turn of one response"):
        Given.model_validate({"options": {"prefill": "x"}, "turns": [turn, turn]})
