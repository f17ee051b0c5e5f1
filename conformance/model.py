"""The neutral vocabulary every case speaks and every wire renders and parses.

Cases never speak a wire's JSON.  A scripted assistant response is a list of neutral
blocks plus stream directives; a captured request is parsed back into neutral messages.
The reference adapter may import this module (and nothing else of the suite's judge).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, PositiveInt

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
BlockKind: TypeAlias = Literal["reasoning", "text", "tool_call", "media", "tool_result"]

#: How a scripted response ends.  ``tool_calls`` and ``pause`` continue the tool loop;
#: every other stop ends the user turn.  ``no_finish`` is a stream cut before its
#: terminal event (a transport failure, not a model decision).
Stop: TypeAlias = Literal[
    "end", "tool_calls", "max_tokens", "refusal", "pause", "cancelled", "no_finish"
]
CONTINUING_STOPS: frozenset[str] = frozenset({"tool_calls", "pause"})
TRUNCATING_STOPS: frozenset[str] = frozenset({"max_tokens", "no_finish", "cancelled"})

Chunks: TypeAlias = tuple[PositiveInt, ...]


class Neutral(BaseModel):
    """Base of every neutral model: strict, immutable, hashable by value."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Reasoning(Neutral):
    """One reasoning episode: visible text, its opaque replay token, or a redacted blob.

    ``signature`` is the wire's replay token (Anthropic ``signature``, Responses
    ``encrypted_content``, Gemini ``thoughtSignature``).  ``redacted`` episodes carry
    ``data`` instead of text.  ``origin`` names who minted the token when it was not the
    provider under test (``"<wire>:<model>"``), for cross-provider histories.
    """

    kind: Literal["reasoning"] = "reasoning"
    text: str = ""
    signature: str | None = None
    redacted: bool = False
    data: str | None = None
    id: str | None = None
    summary: tuple[str, ...] | None = None
    origin: str | None = None
    chunks: Chunks | None = Field(
        default=None, description="Stream directive: sizes of the text fragments."
    )
    signature_chunks: Chunks | None = Field(
        default=None, description="Stream directive: sizes of the signature fragments."
    )


class Text(Neutral):
    """Visible text; Gemini may sign text parts too."""

    kind: Literal["text"] = "text"
    text: str
    signature: str | None = None
    origin: str | None = None
    chunks: Chunks | None = Field(
        default=None, description="Stream directive: sizes of the text fragments."
    )


class ToolCall(Neutral):
    """A tool call.  ``arguments`` is an object, or the raw text when it is not valid JSON
    (a call cut by the output limit, or a router that mislabels a truncated call)."""

    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    signature: str | None = None
    origin: str | None = None
    chunks: Chunks | None = Field(
        default=None, description="Stream directive: sizes of the argument-JSON fragments."
    )

    @property
    def complete(self) -> bool:
        """Whether the arguments parsed as a JSON object."""
        return isinstance(self.arguments, dict)


class Media(Neutral):
    """Inline media (an image the model produced, or the user attached)."""

    kind: Literal["media"] = "media"
    mime: str
    data: str


ContentBlock: TypeAlias = Annotated[
    Reasoning | Text | ToolCall | Media, Field(discriminator="kind")
]


class ToolResult(Neutral):
    """The answer to one tool call."""

    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    content: str | tuple[ContentBlock, ...] = ""
    is_error: bool = False


Block: TypeAlias = Annotated[
    Reasoning | Text | ToolCall | Media | ToolResult, Field(discriminator="kind")
]


class Message(Neutral):
    """One message of a conversation in neutral form.

    Tool results live in ``tool`` messages on every wire (an Anthropic user message made
    of ``tool_result`` blocks, Chat ``role: tool`` messages, Gemini ``functionResponse``
    parts and Responses ``function_call_output`` items all parse to one).
    """

    role: Role
    blocks: tuple[Block, ...] = ()


class ThinkingConfig(Neutral):
    """The reasoning configuration of a request, in neutral form."""

    mode: Literal["off", "manual", "adaptive"] = "off"
    budget_tokens: PositiveInt | None = None


def opaque_fields(block: Reasoning | Text | ToolCall | Media | ToolResult) -> dict[str, str]:
    """The opaque replay payloads a block carries, by field name (never empty strings)."""
    found: dict[str, str] = {}
    if isinstance(block, Reasoning):
        if block.signature:
            found["signature"] = block.signature
        if block.data:
            found["data"] = block.data
    elif isinstance(block, Text | ToolCall) and block.signature:
        found["signature"] = block.signature
    return found
