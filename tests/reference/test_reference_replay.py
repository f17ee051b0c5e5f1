"""Which stored user and tool-result input may be replayed (seed §1–§8), wire-agnostic."""

from __future__ import annotations

import pytest

from conformance._reference.codec import UnsupportedBlock
from conformance._reference.guards import Guards
from conformance._reference.replay import input_blocks
from conformance.vocabulary import Message, Reasoning, Role, Text, ToolCall, ToolResult

CHILD_REASONING = Reasoning(text="child", signature="C")
CHILD_CALL = ToolCall(id="child", name="bash", arguments={})


@pytest.mark.parametrize("role", ["user", "tool"])
def test_reasoning_and_calls_are_omitted_from_input_roles(role: Role) -> None:
    message = Message(role=role, blocks=(Text(text="n"), CHILD_REASONING, CHILD_CALL))
    assert input_blocks(message, Guards()) == (Text(text="n"),)


def test_tool_result_content_loses_them_too_and_keeps_its_flag() -> None:
    result = ToolResult(call_id="c", content=(Text(text="out"), CHILD_CALL), is_error=True)
    message = Message(role="tool", blocks=(result,))
    assert input_blocks(message, Guards()) == (
        ToolResult(call_id="c", content=(Text(text="out"),), is_error=True),
    )


def test_string_tool_results_pass_through() -> None:
    message = Message(role="tool", blocks=(ToolResult(call_id="c", content="out"),))
    assert input_blocks(message, Guards()) == message.blocks


def test_assistant_messages_are_out_of_scope() -> None:
    """§8."""
    message = Message(role="assistant", blocks=(CHILD_REASONING, CHILD_CALL))
    assert input_blocks(message, Guards()) == message.blocks


def test_without_the_guard_such_input_is_rejected() -> None:
    """The pre-fix behaviour: rejection, which blocked every later request."""
    result = ToolResult(call_id="c", content=(CHILD_REASONING,))
    with pytest.raises(UnsupportedBlock, match="inside a tool result for c input"):
        input_blocks(
            Message(role="tool", blocks=(result,)), Guards({"omit-reasoning-in-user-input"})
        )
