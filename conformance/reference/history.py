"""The session store: the durable neutral history of one conversation.

It records what happened and is never rewritten for a wire's sake (seed §5): every
omission a wire needs happens when a request is built.  Besides the messages it keeps
where each prompt of this session began (the user turns) and each assistant message's
stop, which output selection and the refusal reset need.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from conformance.model import Block, Message, Stop, Text, ToolResult
from conformance.reference.guards import Guards


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
        in a refusal (wire-rules 17: continuing unchanged only meets more refusals)."""
        bounds = [*self._turn_starts, len(self._messages)]
        refused: set[int] = set()
        for start, end in pairwise(bounds):
            if any(self._stops.get(i) == "refusal" for i in range(start, end)):
                refused.update(range(start, end))
        if not refused or not guards.on("reset-after-refusal"):
            return tuple(self._messages)
        return tuple(m for i, m in enumerate(self._messages) if i not in refused)
