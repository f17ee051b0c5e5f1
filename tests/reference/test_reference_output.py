"""Final-output selection (wire-rules 49, seed §165–§186)."""

from __future__ import annotations

from conformance._reference.guards import Guards
from conformance._reference.output import select_output
from conformance.vocabulary import (
    Block,
    FinalOutput,
    Message,
    Reasoning,
    Text,
    ToolCall,
    ToolResult,
)

ON = Guards()
OFF = Guards({"output-last-nonempty-text"})


def A(*blocks: Block) -> Message:
    return Message(role="assistant", blocks=blocks)


def user(text: str) -> Message:
    return Message(role="user", blocks=(Text(text=text),))


def tool(content: str) -> Message:
    return Message(role="tool", blocks=(ToolResult(call_id="A", content=content),))


CALL = ToolCall(id="A", name="bash", arguments={})


def test_empty_terminal_message_is_ignored() -> None:
    """§167, §186: the step-1 text is the output; the stop stays max_tokens."""
    turn = [user("go"), A(Text(text="partial answer"), CALL), tool("out"), A()]
    assert select_output(turn, "max_tokens", ON) == FinalOutput(
        "partial answer", complete=False, stop="max_tokens"
    )
    assert select_output(turn, "max_tokens", OFF).text == ""


def test_empty_messages_are_never_selected() -> None:
    """§168: empty and whitespace-only messages, wherever they are."""
    turn = [user("go"), A(Text(text="S")), A(Text(text=" ")), A()]
    assert select_output(turn, "end", ON).text == "S"


def test_the_last_non_empty_message_wins() -> None:
    """§175: message order."""
    turn = [user("go"), A(Text(text="A")), A(Text(text="B"))]
    assert select_output(turn, "end", ON) == FinalOutput("B", complete=True, stop="end")


def test_tool_result_content_is_never_output() -> None:
    """§176."""
    turn = [user("go"), A(CALL), tool("tool output text"), A()]
    assert select_output(turn, "max_tokens", ON) == FinalOutput(
        None, complete=False, stop="max_tokens"
    )


def test_reasoning_only_max_tokens_is_incomplete_without_text() -> None:
    """Rule 49: never "" as success."""
    turn = [user("go"), A(Reasoning(text="thinking…", signature="S"))]
    assert select_output(turn, "max_tokens", ON) == FinalOutput(
        None, complete=False, stop="max_tokens"
    )


def test_text_blocks_of_one_message_join() -> None:
    """Rule 49's [{text:""},{text:"S"}] -> "S"."""
    turn = [user("go"), A(Text(text=""), Text(text="S"))]
    assert select_output(turn, "end", ON).text == "S"


def test_nothing_received_selects_nothing() -> None:
    assert select_output([user("go")], None, ON) == FinalOutput(None, complete=False, stop=None)
