"""Broken: the output-token recovery of ``harness.coalescing`` with one review probe of
seed §126, §131, §133 or §65 put back.

- over-pop (§126): the cut turn's trailing episode is dropped even when it is signed, so
  a complete signed block of the current tool loop never comes back (§67; a design
  `should`: the provider takes the request, the same a client that resends the cut
  request sends);
- swapped concat (§131): the continuation's blocks go before the cut turn's, so the cut
  turn's signed episode lands after the continuation's call (§68);
- the gate hard-coded true (§133): the dangling tail goes even when no call follows;
- no drop (§65 base, mutant M2 at site 3) in a client that also sends unsigned thinking
  as it stored it: the dangling episode goes out beside the continuation's call, the
  wedge shape of §51.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from conformance._reference.adapter import ReferenceSession
from conformance.vocabulary import Block, Reasoning
from harness.coalescing import CoalescingAdapter, CoalescingSession


class OverPopSession(CoalescingSession):
    def drop_tail(self, blocks: Sequence[Block], calls_follow: bool) -> tuple[Block, ...]:
        trailing = bool(blocks) and isinstance(blocks[-1], Reasoning)
        return tuple(blocks[:-1]) if calls_follow and trailing else tuple(blocks)


class CoalesceOverPopAdapter(CoalescingAdapter):
    name: ClassVar[str] = "broken-coalesce-over-pop"
    session_class: ClassVar[type[ReferenceSession]] = OverPopSession


class SwappedSession(CoalescingSession):
    def join(self, earlier: Sequence[Block], later: Sequence[Block]) -> tuple[Block, ...]:
        return (*later, *earlier)


class CoalesceSwappedAdapter(CoalescingAdapter):
    name: ClassVar[str] = "broken-coalesce-swapped"
    session_class: ClassVar[type[ReferenceSession]] = SwappedSession


class KeepDanglingSession(CoalescingSession):
    def drop_tail(self, blocks: Sequence[Block], calls_follow: bool) -> tuple[Block, ...]:
        return tuple(blocks)


class CoalesceKeepDanglingAdapter(CoalescingAdapter):
    """No site-3 drop, and no filter of unsigned thinking on the way out."""

    name: ClassVar[str] = "broken-coalesce-keep-dangling"
    session_class: ClassVar[type[ReferenceSession]] = KeepDanglingSession

    def __init__(self) -> None:
        super().__init__(disabled={"omit-unsigned-thinking"})


class AlwaysDropSession(CoalescingSession):
    def drop_tail(self, blocks: Sequence[Block], calls_follow: bool) -> tuple[Block, ...]:
        return super().drop_tail(blocks, True)


class CoalesceAlwaysDropAdapter(CoalescingAdapter):
    """The gate hard-coded true (§133): the dangling tail goes even with no call after it."""

    name: ClassVar[str] = "broken-coalesce-always-drop"
    session_class: ClassVar[type[ReferenceSession]] = AlwaysDropSession
