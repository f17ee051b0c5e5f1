"""The vocabulary every wire package speaks: the neutral request view, the contexts a
render and a validation see, and the two errors (a rule and its violation are
``conformance.verdict.Rule`` and ``Violation``, their data the catalogue's).

What a wire package holds (one module per job) and how its roles are assembled is in
``conformance/wires/roles.py`` and ``docs/adding-a-wire.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from conformance.vocabulary import Message, Options, ScriptedResponse, ThinkingConfig


class RequestView(BaseModel):
    """A captured request body in neutral form.

    ``locations[i]`` is ``(where message i sits in the body, where each of its blocks
    sits)``, written the way the wire's own errors write them (``messages.1.content.0``),
    so every violation can point at the bytes it is about.
    """

    model_config = ConfigDict(frozen=True)

    wire: str
    model: str | None = None
    stream: bool = False
    system: str | None = None
    tools: tuple[str, ...] = ()
    thinking: ThinkingConfig = ThinkingConfig()
    max_tokens: int | None = None
    messages: tuple[Message, ...] = ()
    locations: tuple[tuple[str, tuple[str, ...]], ...] = ()
    raw: dict[str, Any] = {}

    def where(self, message: int, block: int | None = None) -> str | None:
        """The body location of a message, or of one of its blocks."""
        if not 0 <= message < len(self.locations):
            return None
        at, blocks = self.locations[message]
        if block is None:
            return at
        return blocks[block] if 0 <= block < len(blocks) else at


@dataclass(frozen=True)
class RenderContext:
    """What a render may depend on besides the scripted response."""

    index: int  # 0-based position of this response in the script
    case_id: str
    model: str
    stream: bool
    dialect: str | None = None
    request: RequestView | None = None


@dataclass(frozen=True)
class ValidationContext:
    """What the provider knows when it validates request ``number`` (1-based)."""

    number: int
    options: Options
    served: Sequence[ScriptedResponse]
    history: Sequence[Message] = ()
    dialect: str | None = None
    #: The views of the earlier requests the provider answered with a scripted response,
    #: each with that response's script index, oldest first: what a stateful wire
    #: (Responses ``store``) stored and may be referred to.
    answered: Sequence[tuple[RequestView, int]] = ()
    #: The script index of each of ``served`` (they differ from the positions once a
    #: continuation or a retry answer was passed over); empty: the positions.
    served_at: Sequence[int] = ()
    #: The body the provider answered each of ``answered`` with, in the same order: where
    #: a stateful wire reads the ids it minted (Anthropic's message ``id``, which a
    #: message thread's ``previous_message_id`` names).  Empty: not known.
    answered_bodies: Sequence[bytes] = ()
