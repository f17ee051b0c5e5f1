"""What the opaque-payload ledger needs to know about a wire, as data.

The ledger is wire-agnostic; these few facts are where wires differ: placeholder tokens
that are not payloads, whether a request can say where reasoning sat among the calls,
how strongly a payload on each block kind must come back, and what a payload stays
paired with when it does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from conformance.verdict import Severity
from conformance.vocabulary import Block

#: What a block's payload stays paired with when it comes back: ``content`` is the text
#: it was minted on (``"redacted"`` for redacted reasoning), ``id`` the block's id,
#: ``none`` nothing (any block of the same kind pairs).
Companion = Literal["content", "id", "none"]

#: Anthropic's pairing, the default: a reasoning episode's or a text's content, a call's id.
DEFAULT_COMPANIONS: Mapping[str, Companion] = MappingProxyType(
    {"reasoning": "content", "text": "content", "tool_call": "id"}
)


@dataclass(frozen=True)
class LedgerHints:
    """The ledger's per-wire facts.

    ``sentinels``: placeholder tokens the provider documents for when the real one is
    unavailable (Gemini's two dummy signatures, ``thought_signatures.SENTINELS``): never
    minted, never a payload.  ``reasoning_between_calls``: whether a request can place
    reasoning between tool calls (Chat Completions keeps it in a field of its own beside
    ``tool_calls``, so the ledger does not ask where an episode sat).  ``strength`` and
    ``strengths``: how strongly a minted payload must come back within its tool loop, by
    block kind (a kind not listed has ``strength``).  ``companions``: what a payload
    stays paired with, by block kind (a kind not listed has none).  Payloads are compared
    as the wire's parse spells them: a wire whose field is not a string (Gemini's
    ``thoughtSignature`` is protobuf ``bytes``) puts every spelling of the same bytes in
    one form in its view. ``announced``: the value a stream announces for a block's
    payload before its final one (Responses' ``output_item.added`` encrypted_content),
    or ``None``: a request that carries it kept the early value, and after a stream cut
    before the final one came it is all the client had.  ``empty_messages_taken``:
    the columns whose provider takes a message with no content.
    """

    sentinels: frozenset[str] = frozenset()
    reasoning_between_calls: bool = True
    strength: Severity = "must"
    strengths: Mapping[str, Severity] = field(default_factory=lambda: MappingProxyType({}))
    companions: Mapping[str, Companion] = field(default_factory=lambda: DEFAULT_COMPANIONS)
    announced: Callable[[Block], str | None] = field(default=lambda block: None)
    #: The columns (a dialect, ``None`` for the wire itself) whose provider takes a
    #: message with no content, or is not known to refuse one: there
    #: ``invariant/no-empty-message`` rests on the design alone (a ``should``), and it is
    #: a ``must`` where the provider (or the upstream a router relays to) refuses it.
    empty_messages_taken: frozenset[str | None] = frozenset()
    #: The columns whose provider does not pair tool calls with tool results (it renders
    #: the messages into a prompt as they come): there ``invariant/tool-pairing`` is a
    #: ``should`` that names its cost.
    unpaired_tools_taken: frozenset[str | None] = frozenset()

    def sentinel(self, payload: str) -> bool:
        """Whether ``payload`` is one of the wire's documented placeholders."""
        return payload in self.sentinels

    def severity(self, block: Block) -> Severity:
        """How strongly a payload minted on ``block`` must come back."""
        return self.strengths.get(block.kind, self.strength)

    def companion(self, block: Block) -> str | None:
        """What ``block``'s payload stays paired with (``None``: any block of its kind)."""
        policy = self.companions.get(block.kind, "none")
        if policy == "id":
            return getattr(block, "id", None)
        if policy == "content":
            if getattr(block, "redacted", False):
                return "redacted"
            return getattr(block, "text", None)
        return None
