"""The session store: the durable neutral history of one conversation.

It records what happened and is never rewritten for a wire's sake (seed §5): every
omission a wire needs happens when a request is built.  Besides the messages it keeps
where each prompt of this session began (the user turns) and each assistant message's
stop, which output selection and the refusal reset need.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from conformance._reference.guards import Guards
from conformance.vocabulary import Block, Message, Stop, Text, ToolCall, ToolResult


class History:
    """Append-only store of neutral messages, starting from a saved history."""

    def __init__(self, saved: Sequence[Message] = ()) -> None:
        self._messages: list[Message] = list(saved)
        self._turn_starts: list[int] = []
        self._stops: dict[int, Stop] = {}

    @property
    def messages(self) -> tuple[Message, ...]:
        return tuple(self._messages)

    @property
    def last_stop(self) -> Stop | None:
        """The stop of the latest response received in this session."""
        return self._stops[max(self._stops)] if self._stops else None

    def add_user(self, text: str) -> None:
        self._turn_starts.append(len(self._messages))
        self._messages.append(Message(role="user", blocks=(Text(text=text),)))

    def add_assistant(self, blocks: Sequence[Block], stop: Stop) -> None:
        """Store a turn, even an empty one: the step happened (seed §182)."""
        self._stops[len(self._messages)] = stop
        self._messages.append(Message(role="assistant", blocks=tuple(blocks)))

    def add_tool_results(self, results: Sequence[ToolResult]) -> None:
        if results:
            self._messages.append(Message(role="tool", blocks=tuple(results)))

    def final_turn(self) -> tuple[Message, ...]:
        """The messages of the latest user turn (the whole history if none began here)."""
        start = self._turn_starts[-1] if self._turn_starts else 0
        return tuple(self._messages[start:])

    def replayable(self, guards: Guards) -> tuple[Message, ...]:
        """The messages a request may carry: all of them, except user turns that ended
        in a refusal (rule 17: continuing unchanged only meets more refusals), with
        every call that lost its result answered (rule 13, 32, 42)."""
        bounds = [*self._turn_starts, len(self._messages)]
        refused: set[int] = set()
        for start, end in pairwise(bounds):
            if any(self._stops.get(i) == "refusal" for i in range(start, end)):
                refused.update(range(start, end))
        messages = list(self._messages)
        if refused and guards.on("reset-after-refusal"):
            messages = [m for i, m in enumerate(messages) if i not in refused]
        return tuple(_answer_orphaned_calls(messages, guards))


#: The result a call gets when its own was never recorded (a saved session whose user
#: cancelled one of several parallel calls, gemini-cli#5443): an error, never silence.
ORPHANED_RESULT = "not executed: the call was cancelled or its result was lost"


def _answer_orphaned_calls(messages: list[Message], guards: Guards) -> list[Message]:
    """Every call of an assistant message that another message follows gets a result in
    the tool message right after it, in call order; a missing one is an error result
    (rule 42: "cancelled or failed calls still need a response part"; 13, 32)."""
    repaired: list[Message] = []
    for i, message in enumerate(messages):
        repaired.append(message)
        calls = [b.id for b in message.blocks if isinstance(b, ToolCall)]
        if message.role != "assistant" or not calls or i + 1 == len(messages):
            continue
        following = messages[i + 1]
        results = (
            {b.call_id: b for b in following.blocks if isinstance(b, ToolResult)}
            if following.role == "tool"
            else {}
        )
        if all(call in results for call in calls) or not guards.on("answer-orphaned-calls"):
            continue
        answered = tuple(
            results.get(call) or ToolResult(call_id=call, content=ORPHANED_RESULT, is_error=True)
            for call in calls
        )
        if following.role == "tool":
            others = tuple(b for b in following.blocks if not isinstance(b, ToolResult))
            messages[i + 1] = Message(role="tool", blocks=answered + others)
        else:
            repaired.append(Message(role="tool", blocks=answered))
    return repaired
