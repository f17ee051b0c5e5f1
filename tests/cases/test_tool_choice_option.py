"""Issue 13: ``given.options.tool_choice``, a request option of the case language.

A case asks for a tool choice; a target that cannot send one gets ``n/a`` (capability
``tool-choice``), never a verdict; the command contract carries the choice."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from pydantic import ValidationError

from conformance._cases.schema import Given
from conformance._reference.adapter import ReferenceAdapter
from conformance._runner import plan, session_for
from conformance._targets.resolve import target_from_object
from conformance.agent.runner import brief_from_contract
from conformance.vocabulary import ToolChoice
from harness.broken.drift_request_options import DriftRequestOptionsAdapter
from tests.support import library_case, run_cell

FORCED = "anthropic-forced-tool-choice-with-manual-thinking-not-forced"
LOOP = "tool-choice-auto-held-across-tool-loop"
A = "anthropic-messages"
TOOLS = [{"name": "read_file", "result": "r"}]
TURNS = [{"user": "p", "responses": [{"stop": "end"}]}]


def given(choice: dict[str, Any], tools: list[dict[str, Any]] = TOOLS) -> Given:
    return Given.model_validate(
        {"tools": tools, "options": {"tool_choice": choice}, "turns": TURNS}
    )


def test_a_named_choice_names_an_offered_tool_and_only_tool_mode_has_a_name() -> None:
    assert given({"mode": "tool", "name": "read_file"}).options.tool_choice == ToolChoice(
        mode="tool", name="read_file"
    )
    with pytest.raises(ValidationError, match="tool `write_file` is not offered"):
        given({"mode": "tool", "name": "write_file"})
    with pytest.raises(ValidationError, match="`name` goes with mode `tool`"):
        given({"mode": "tool"})
    with pytest.raises(ValidationError, match="`name` goes with mode `tool`"):
        given({"mode": "auto", "name": "read_file"})
    with pytest.raises(ValidationError, match="needs tools to choose from"):
        given({"mode": "auto"}, tools=[])


class _NoToolChoice(ReferenceAdapter):
    capabilities: ClassVar[frozenset[str]] = ReferenceAdapter.capabilities - {"tool-choice"}


def test_a_target_that_cannot_send_a_tool_choice_gets_na_with_the_reason() -> None:
    case = library_case(LOOP)
    assert "tool-choice" in case.needs
    jobs = plan([case], target_from_object(_NoToolChoice()))
    assert {j.skip for j in jobs} == {
        "needs capability tool-choice, which the target does not declare (if it has it, "
        f"list it in {_NoToolChoice.__module__}:_NoToolChoice.capabilities)"
    }
    assert {j.skip for j in plan([case], target_from_object(ReferenceAdapter()))} == {None}


def test_the_contract_document_carries_the_choice_and_the_runner_reads_it_back() -> None:
    session = session_for(library_case(FORCED), A, None)
    document = session.contract(2)
    assert document["tool_choice"] == {"mode": "any"}
    assert brief_from_contract(document).tool_choice == ToolChoice(mode="any")
    plain = session_for(library_case("per-call-results-failing-tool-keeps-its-own-result"), A, None)
    assert "tool_choice" not in plain.contract(2)


def test_a_forced_choice_sent_with_manual_thinking_fails_the_case() -> None:
    broken = ReferenceAdapter(disabled=frozenset({"forced-tool-choice-auto-with-thinking"}))
    result, _ = run_cell(broken, library_case(FORCED), A)
    assert result.verdict == "fail"
    assert "anthropic-messages/forced-tool-choice-with-thinking" in str(result.model_dump())
    assert run_cell(ReferenceAdapter(), library_case(FORCED), A)[0].verdict == "pass"


@pytest.mark.parametrize("column", [A, "openai-chat", "openai-responses"])
def test_a_choice_dropped_inside_the_loop_fails_only_when_strict(column: str) -> None:
    case = library_case(LOOP)
    assert run_cell(DriftRequestOptionsAdapter(), case, column, strict=True)[0].verdict == "fail"
    assert run_cell(DriftRequestOptionsAdapter(), case, column)[0].verdict == "pass"
