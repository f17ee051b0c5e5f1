"""A client that goes on from a turn cut by the output limit and coalesces the pieces.

gemini-cli's output-token recovery (seed §65–§71): after a ``max_tokens`` cut the client
asks again with a nudge of its own, and once the continuation arrives it merges the cut
turn and the continuation into one assistant message, its nudge gone. Before the merge it
drops the cut turn's trailing unsigned reasoning episode, but only when the continuation
calls a tool (site 3 of the dangling-episode guard): a truncated signing-provider episode
paired with a call wedges the session. A model without preserved thinking accepts the
merged message as well as the pieces kept apart, so there this is one accepted way to go
on; a model that binds each thinking block to its prefix (rule 55) refuses the merge, and
takes only the pieces kept apart (``KeptApartAdapter``). The broken variants in
``harness.broken.coalescing`` put back the behaviours the seed's review probes removed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._targets.api import CallToRun, WireResponse
from conformance.vocabulary import Block, Message, Reasoning, Text, ToolCall

#: The client's own user message asking the model to go on (not one of a case's prompts).
NUDGE = "Your answer was cut off by the output limit. Continue exactly where you stopped."


def dangling(blocks: Sequence[Block]) -> bool:
    """Whether the last block is a reasoning episode whose replay token never arrived."""
    last = blocks[-1] if blocks else None
    return (
        isinstance(last, Reasoning) and not last.redacted and not last.signature and bool(last.text)
    )


class CoalescingSession(ReferenceSession):
    """Goes on from a ``max_tokens`` cut (at most ``recoveries`` times a turn) and merges
    every continuation into the turn it continues."""

    recoveries: ClassVar[int] = 2

    _nudged = 0
    _merging = False

    def add_user(self, text: str) -> None:
        self._nudged = 0
        super().add_user(text)

    def continues(self) -> bool:
        if super().continues():
            return True
        last = self.history.messages[-1]
        cut = self.history.last_stop == "max_tokens" and last.role == "assistant"
        # a cut call is settled by the reference (rule 33), never recovered here
        if not cut or self._nudged >= self.recoveries or _calls(last.blocks):
            return False
        self._nudged += 1
        self._merging = True
        # the nudge is not a prompt of the user: no turn starts here
        self.history._messages.append(Message(role="user", blocks=(Text(text=NUDGE),)))
        return True

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        calls = super().receive(response)
        if self._merging:
            self._merging = False
            self._coalesce()
        return calls

    def _coalesce(self) -> None:
        """``[..., cut, nudge, continuation]`` becomes ``[..., merged]``, with the
        continuation's stop."""
        messages = self.history._messages
        roles = [m.role for m in messages[-3:]]
        if roles != ["assistant", "user", "assistant"]:
            return
        cut, continuation = messages[-3], messages[-1]
        kept = self.drop_tail(cut.blocks, _calls(continuation.blocks))
        merged = Message(role="assistant", blocks=self.join(kept, continuation.blocks))
        stops = self.history._stops
        stop = stops.pop(len(messages) - 1)
        del messages[-2:]
        messages[-1] = merged
        stops[len(messages) - 1] = stop

    def drop_tail(self, blocks: Sequence[Block], calls_follow: bool) -> tuple[Block, ...]:
        """Site 3 (§65, §66): the dangling tail goes only when the continuation calls a
        tool; a signed tail always stays (§67)."""
        return tuple(blocks[:-1]) if calls_follow and dangling(blocks) else tuple(blocks)

    def join(self, earlier: Sequence[Block], later: Sequence[Block]) -> tuple[Block, ...]:
        """Stream order: the cut turn's blocks, then the continuation's (§68, §70)."""
        return (*earlier, *later)


def _calls(blocks: Sequence[Block]) -> bool:
    return any(isinstance(b, ToolCall) for b in blocks)


class CoalescingAdapter(ReferenceAdapter):
    name: ClassVar[str] = "accepted-coalescing-recovery"
    session_class: ClassVar[type[ReferenceSession]] = CoalescingSession


class KeptApartSession(CoalescingSession):
    """Goes on from the cut with a nudge, and keeps the cut turn, the nudge and the
    continuation as they were sent: every thinking block stays after its own prefix."""

    def _coalesce(self) -> None:
        return


class KeptApartAdapter(ReferenceAdapter):
    name: ClassVar[str] = "accepted-kept-apart-recovery"
    session_class: ClassVar[type[ReferenceSession]] = KeptApartSession
