"""The session store."""

from __future__ import annotations

from conformance._reference.guards import Guards
from conformance._reference.history import ORPHANED_RESULT, History
from conformance.vocabulary import Message, Reasoning, Text, ToolCall, ToolResult

SAVED = (
    Message(role="user", blocks=(Text(text="old"), Reasoning(text="child", signature="C"))),
    Message(role="assistant", blocks=(Text(text="old answer"),)),
)


def test_a_saved_history_is_the_start_and_is_kept_as_is() -> None:
    history = History(SAVED)
    history.add_user("new")
    assert history.messages[:2] == SAVED
    assert history.final_turn() == (Message(role="user", blocks=(Text(text="new"),)),)


def test_final_turn_is_the_whole_history_when_no_prompt_began_here() -> None:
    assert History(SAVED).final_turn() == SAVED


def test_last_stop_is_the_latest_response() -> None:
    history = History()
    assert history.last_stop is None
    history.add_user("go")
    history.add_assistant((), "tool_calls")
    history.add_tool_results([ToolResult(call_id="c", content="ok")])
    history.add_assistant((Text(text="done"),), "max_tokens")
    assert history.last_stop == "max_tokens"


def test_no_results_no_message() -> None:
    history = History()
    history.add_tool_results([])
    assert history.messages == ()


def test_a_refused_user_turn_is_not_replayed() -> None:
    """Rule 17: reset the context before continuing; off replays it unchanged."""
    history = History()
    history.add_user("fine")
    history.add_assistant((Text(text="ok"),), "end")
    history.add_user("trigger")
    history.add_assistant((Text(text="Hello.."),), "refusal")
    history.add_user("next")
    texts = [m.blocks[0] for m in history.replayable(Guards())]
    assert texts == [Text(text="fine"), Text(text="ok"), Text(text="next")]
    assert len(history.replayable(Guards({"reset-after-refusal"}))) == 5
    assert len(history.messages) == 5


def _cancelled_session() -> History:
    """A saved session whose user cancelled the second of two parallel calls."""
    return History(
        (
            Message(role="user", blocks=(Text(text="check both disks"),)),
            Message(
                role="assistant",
                blocks=(ToolCall(id="c1", name="df"), ToolCall(id="c2", name="du")),
            ),
            Message(role="tool", blocks=(ToolResult(call_id="c1", content="80%"),)),
        )
    )


def test_a_call_without_a_result_is_answered_with_an_error_in_call_order() -> None:
    history = _cancelled_session()
    history.add_user("go on")
    replayed = history.replayable(Guards())
    assert replayed[2].blocks == (
        ToolResult(call_id="c1", content="80%"),
        ToolResult(call_id="c2", content=ORPHANED_RESULT, is_error=True),
    )
    assert history.messages[2].blocks == (ToolResult(call_id="c1", content="80%"),)  # §5
    broken = History(history.messages).replayable(Guards({"answer-orphaned-calls"}))
    assert broken[2].blocks == (ToolResult(call_id="c1", content="80%"),)


def test_the_pending_calls_of_the_last_message_are_left_alone() -> None:
    history = History(_cancelled_session().messages[:2])
    assert history.replayable(Guards()) == history.messages
