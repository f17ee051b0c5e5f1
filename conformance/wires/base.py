"""The vocabulary every wire package speaks: the neutral request view, a rule and its
violation, the contexts a render and a validation see, and the two errors.

What a wire package holds (one module per job) and how its roles are assembled is in
``conformance/wires/roles.py`` and ``docs/adding-a-wire.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from conformance.model import Message, Options, ScriptedResponse, ThinkingConfig
from conformance.verdict import DEFAULT_EVIDENCE_THRESHOLD, Evidence, Severity, meets


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
class Rule:
    """One request-validation rule of a provider.

    ``id`` is stable (``<wire>/<slug>``); ``ref`` is the entry of
    the rule catalogue (``docs/rules.md``) it encodes; ``error`` is the provider's real error text,
    with ``{placeholders}`` the validator fills in.  ``severity`` lets a rule be listed
    beside the checks; a provider rejects what breaks one, so every rule is a ``must``.
    ``evidence`` is what the rule rests on (``conformance.verdict.Evidence``): most rules
    quote an error text seen in public reports (``observed``).  A violation may rest on
    weaker evidence than its rule (``RuleViolation.evidence``): the provider serves such a
    request instead of rejecting it, since that rejection was never seen live.
    """

    id: str
    ref: str
    statement: str
    source: str
    error: str
    status: int = 400
    error_type: str = "invalid_request_error"
    severity: Severity = "must"
    evidence: Evidence = "observed"
    #: The provider answers this error to a request it cannot serve in that form, and a
    #: correct client answers it by falling back (Anthropic's
    #: ``thread_unsupported_request``: send the whole conversation without ``thread``):
    #: played like any rejection, but no verdict on the client.
    fallback: bool = False

    def violated(
        self, at: str | None = None, /, *, evidence: Evidence | None = None, **fields: object
    ) -> RuleViolation:
        """This rule broken at ``at``, its error text filled in with ``fields``;
        ``evidence``: what this violation rests on, when weaker than the rule's."""
        return RuleViolation(self, self.error.format(**fields), at, evidence)


@dataclass(frozen=True)
class RuleViolation:
    """A rule a request broke, with the provider's error text filled in."""

    rule: Rule
    message: str
    at: str | None = None
    #: What this violation rests on, when weaker than its rule's evidence.
    evidence_override: Evidence | None = None

    @property
    def evidence(self) -> Evidence:
        return self.evidence_override or self.rule.evidence

    @property
    def rejects(self) -> bool:
        """Whether the provider answers it with its error: only a rejection that was
        documented or seen live is played; a weaker one is recorded, and served."""
        return meets(self.evidence, DEFAULT_EVIDENCE_THRESHOLD)


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
