"""What one wire contributes to the reference adapter: decoding and request building.

Everything else (episodes, truncation, XML recovery, the history, output selection, and
the per-block decisions every request makes, in ``outbound``) is wire-agnostic and
shared.  Each wire is one ``WireCodec`` subclass registered in
``conformance._reference.adapter``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from conformance._reference.fragments import Fragment
from conformance._reference.guards import Guards
from conformance._targets.api import CaseBrief, WireRequest, WireResponse
from conformance.vocabulary import Block, Message, Reasoning, Stop


@dataclass(frozen=True)
class Decoded:
    """One response as fragments.  ``ended``: the stream reached its terminal event."""

    fragments: tuple[Fragment, ...]
    stop: Stop
    ended: bool


class ProviderError(RuntimeError):
    """The provider answered with an error instead of a turn."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"provider error {status}: {message}")
        self.status = status
        self.message = message


class UnsupportedBlock(ValueError):
    """A stored block has no representation on this wire (seed §7: rejected, not
    silently dropped)."""


class WireCodec(ABC):
    """Decodes this wire's responses and builds its requests from neutral history."""

    wire: ClassVar[str]
    #: Whether text carries replay tokens on this wire (Gemini signs text parts), so an
    #: empty text with a signature is content, not a blank block.
    signs_text: ClassVar[bool] = False
    #: Whether a reasoning block is sent only with the item it produced right after it
    #: (a Responses reasoning item, rule 26), so that item is kept even when blank.
    reasoning_needs_follower: ClassVar[bool] = False

    def __init__(self, brief: CaseBrief, guards: Guards) -> None:
        self.brief = brief
        self.guards = guards

    @abstractmethod
    def decode(self, response: WireResponse) -> Decoded:
        """The response as neutral fragments plus its stop; raises ``ProviderError``."""

    @abstractmethod
    def request(self, history: Sequence[Message]) -> WireRequest:
        """The next request from the replayable history; raises ``UnsupportedBlock``."""

    @abstractmethod
    def recovered_call_id(self, number: int) -> str:
        """A deterministic id, in this wire's id syntax, for the n-th recovered call."""

    def missing_token(self, block: Reasoning) -> bool:
        """Whether ``block`` lacks the replay token this wire needs to accept it back.
        Wires whose reasoning needs no token (Gemini thoughts, Chat dialects) say no."""
        return False

    def repairs(self, response: WireResponse, history: Sequence[Message]) -> bool:
        """Whether an error answer names something in ``history`` the next request can
        leave out, so the request is retried repaired (rule 52); the codec remembers what
        to leave out.  Most wires have no such answer."""
        return False

    def arrange(self, blocks: tuple[Block, ...], repair: bool) -> tuple[Block, ...]:
        """The order of an assistant message's blocks in a request: as stored.
        ``repair``: the wire demands that this message lead with reasoning (Anthropic
        manual thinking, rule 6); only that codec overrides this."""
        return blocks
