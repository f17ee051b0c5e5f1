"""What a wire module is: it renders scripted turns as the provider sends them, parses
request bodies into the neutral view, validates requests with the provider's rules, and
reads a recorded provider response back into a scripted one.

One package per wire under ``conformance/wires/`` (render, parse, rules, read and
realism each in a module of its own); each defines one ``Wire`` subclass.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from conformance.cases.schema import Case
from conformance.http import HttpRequest, HttpResponse
from conformance.model import Block, Message, Options, ScriptedResponse, ThinkingConfig

Strength = Literal["must", "should"]


class RequestParseError(ValueError):
    """The body is not a request this wire understands (not JSON, wrong shape)."""

    def __init__(self, message: str, at: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.at = at


class ResponseReadError(ValueError):
    """A recorded provider response that cannot be read back: not JSON, a known event
    without a field it needs, a delta for a block never started, or the provider's own
    error (an ``error`` event mid-stream, an error body).  ``at`` says where, the way a
    person finds it in the file: ``event 7 (content_block_delta)``, ``byte 1234``."""

    def __init__(self, message: str, at: str) -> None:
        super().__init__(f"{at}: {message}")
        self.message = message
        self.at = at


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
    ``reference/wire-rules.md`` it encodes; ``error`` is the provider's real error text,
    with ``{placeholders}`` the validator fills in.
    """

    id: str
    ref: str
    statement: str
    source: str
    error: str
    status: int = 400
    error_type: str = "invalid_request_error"


@dataclass(frozen=True)
class RuleViolation:
    """A rule a request broke, with the provider's error text filled in."""

    rule: Rule
    message: str
    at: str | None = None


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


class Wire(ABC):
    """One provider wire.  Subclasses set ``name`` and implement the four jobs."""

    name: ClassVar[str]
    dialects: ClassVar[tuple[str, ...]] = ()
    rules: ClassVar[tuple[Rule, ...]] = ()
    #: Placeholder tokens the provider documents for when the real one is unavailable
    #: (Gemini's ``skip_thought_signature_validator``): never minted, never a payload.
    sentinels: ClassVar[frozenset[str]] = frozenset()
    #: Whether a request can place reasoning between tool calls.  Chat Completions keeps
    #: reasoning in a field of its own beside `tool_calls`, so its requests cannot say
    #: where an episode sat among the calls, and the ledger does not ask them to.
    reasoning_between_calls: ClassVar[bool] = True

    # ------------------------------------------------------------ serving

    @abstractmethod
    def serves(self, request: HttpRequest) -> bool:
        """Whether the request is addressed to one of this wire's real endpoints."""

    def endpoint(self, model: str, stream: bool) -> str:
        """The path (and query) a request for ``model`` goes to when a target names none."""
        raise NotImplementedError(f"{self.name} names no default endpoint")

    @abstractmethod
    def wants_stream(self, request: HttpRequest, view: RequestView) -> bool:
        """Whether the client asked for a streamed answer."""

    @abstractmethod
    def render(self, response: ScriptedResponse, context: RenderContext) -> HttpResponse:
        """The scripted response exactly as the provider sends it (SSE or JSON)."""

    @abstractmethod
    def error_response(self, violation: RuleViolation) -> HttpResponse:
        """The provider's error answer to a rule violation (status, body shape, text)."""

    # ------------------------------------------------------------ reading responses

    @abstractmethod
    def read_response(
        self, body: bytes, streaming: bool, *, dialect: str | None = None
    ) -> ScriptedResponse:
        """A response body as the provider sent it (``streaming``: the SSE stream, else
        the JSON answer), back in neutral form: what recordings are replayed from.

        The inverse of ``render`` up to what a wire cannot carry: stream directives and
        noise are not read back; usage, ids of the response and model names are not
        neutral.  A stream without its terminal event reads as ``stop: no_finish`` with
        the blocks that completed and the partial last one.  Raises
        ``ResponseReadError`` on malformed input and on the provider's own error
        (mid-stream ``error`` event, error body); event types the provider says may
        appear are skipped."""

    # ------------------------------------------------------------ parsing

    @abstractmethod
    def parse(self, request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
        """The request body in neutral form; raises ``RequestParseError``.

        ``context`` lets a stateful wire resolve what the request only refers to (an
        OpenAI Responses ``previous_response_id`` or a stored item id), so the neutral
        view is the conversation the provider actually sees."""

    # ------------------------------------------------------------ rules

    @abstractmethod
    def validate(self, view: RequestView, context: ValidationContext) -> list[RuleViolation]:
        """Every rule the request breaks, in the order the provider checks them."""

    def history_items(self, view: RequestView) -> list[Any]:
        """The body's conversation items in order, as raw JSON (``messages`` for
        Anthropic and Chat, ``input`` for Responses, ``contents`` for Gemini): what the
        append-only invariant compares between consecutive requests."""
        items = view.raw.get("messages")
        return list(items) if isinstance(items, list) else []

    # ------------------------------------------------------------ ledger hints

    def token_strength(self, block: Block, field_name: str) -> Strength:
        """How strongly a minted opaque payload must come back within its tool loop."""
        return "must"

    def companion(self, block: Block) -> str | None:
        """What an opaque payload stays paired with when it comes back (``None``: any
        block of the same kind).  By default: a reasoning episode's text, a call's id."""
        kind = block.kind
        if kind == "reasoning":
            return "redacted" if getattr(block, "redacted", False) else getattr(block, "text", None)
        if kind == "tool_call":
            return getattr(block, "id", None)
        if kind == "text":
            return getattr(block, "text", None)
        return None

    # ------------------------------------------------------------ realism (lint)

    def realism(self, case: Case, dialect: str | None = None) -> list[str]:
        """Shapes in the case this wire (in this dialect) never sends (lint problems)."""
        return []
