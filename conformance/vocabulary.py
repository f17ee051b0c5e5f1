"""The neutral vocabulary every case speaks and every wire renders and parses.

Cases never speak a wire's JSON.  A scripted assistant response is a list of neutral
blocks plus stream directives; a captured request is parsed back into neutral messages.
The reference adapter may import this module (and nothing else of the suite's judge).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, PositiveInt, model_validator

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
BlockKind: TypeAlias = Literal[
    "reasoning",
    "text",
    "tool_call",
    "media",
    "tool_result",
    "server_tool_use",
    "server_tool_result",
]

#: How a scripted response ends.  ``tool_calls`` and ``pause`` continue the tool loop;
#: every other stop ends the user turn.  ``no_finish`` is a stream cut before its
#: terminal event (a transport failure, not a model decision).
Stop: TypeAlias = Literal[
    "end", "tool_calls", "max_tokens", "refusal", "pause", "cancelled", "no_finish"
]
CONTINUING_STOPS: frozenset[str] = frozenset({"tool_calls", "pause"})
TRUNCATING_STOPS: frozenset[str] = frozenset({"max_tokens", "no_finish", "cancelled"})

Chunks: TypeAlias = tuple[PositiveInt, ...]


class StrictModel(BaseModel):
    """Base of every model of the suite's vocabulary and case files: unknown fields are
    errors, instances are immutable and hashable by value."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Reasoning(StrictModel):
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
    empty_chunk_before_signature: bool = Field(
        default=False,
        description="Stream directive: an empty text fragment right before the signature "
        '(Anthropic\'s `thinking_delta` with `"thinking": ""`, OpenRouter\'s empty '
        "`reasoning.text` detail on a Claude route), as some real streams send it.",
    )


def summary_parts(parts: tuple[str, ...] | list[str] | None) -> tuple[str, ...] | None:
    """A reasoning summary in neutral form: no parts at all is ``None``.

    Every wire's view carries ``summary: []`` and a missing summary as the same value,
    so a case's pattern is read the same way (``summary: []`` and ``summary: null``
    both mean "no summary parts"); the wire's own rules tell the two spellings apart."""
    return tuple(parts) if parts else None


class Text(StrictModel):
    """Visible text; Gemini may sign text parts too."""

    kind: Literal["text"] = "text"
    text: str
    signature: str | None = None
    origin: str | None = None
    chunks: Chunks | None = Field(
        default=None, description="Stream directive: sizes of the text fragments."
    )


class ToolCall(StrictModel):
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


class Media(StrictModel):
    """Inline media (an image the model produced, or the user attached)."""

    kind: Literal["media"] = "media"
    mime: str
    data: str


class ServerToolUse(StrictModel):
    """A tool the provider runs itself (Anthropic ``server_tool_use``, id ``srvtoolu_…``):
    the client passes it through and never answers it (rule 14)."""

    kind: Literal["server_tool_use"] = "server_tool_use"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ServerToolResult(StrictModel):
    """The provider's result of its own tool (Anthropic ``web_search_tool_result`` and the
    rest of the ``*_tool_result`` family), in the same assistant turn as its use.
    ``content`` is the block's JSON content, passed back verbatim: it holds opaque
    payloads (a web search result's ``encrypted_content``)."""

    kind: Literal["server_tool_result"] = "server_tool_result"
    call_id: str
    type: str = "web_search_tool_result"
    content: Any = Field(default_factory=list)


ContentBlock: TypeAlias = Annotated[
    Reasoning | Text | ToolCall | Media | ServerToolUse | ServerToolResult,
    Field(discriminator="kind"),
]


class ToolResult(StrictModel):
    """The answer to one tool call."""

    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    content: str | tuple[ContentBlock, ...] = ""
    is_error: bool = False
    #: Other texts a wire whose results are free-form JSON reads the same result as:
    #: each string value of the output object, and the object's JSON (Gemini's
    #: ``functionResponse.response`` takes any keys).  A result carries a text that is
    #: its content or one of these (``conformance._checks.walk.carries``).
    readings: tuple[str, ...] = ()


Block: TypeAlias = Annotated[
    Reasoning | Text | ToolCall | Media | ServerToolUse | ServerToolResult | ToolResult,
    Field(discriminator="kind"),
]


class Message(StrictModel):
    """One message of a conversation in neutral form.

    Tool results live in ``tool`` messages on every wire (an Anthropic user message made
    of ``tool_result`` blocks, Chat ``role: tool`` messages, Gemini ``functionResponse``
    parts and Responses ``function_call_output`` items all parse to one).
    """

    role: Role
    blocks: tuple[Block, ...] = ()


class ThinkingConfig(StrictModel):
    """The reasoning configuration of a request, in neutral form."""

    mode: Literal["off", "manual", "adaptive"] = "off"
    budget_tokens: PositiveInt | None = None


def opaque_fields(
    block: Reasoning | Text | ToolCall | Media | ServerToolUse | ServerToolResult | ToolResult,
) -> dict[str, str]:
    """The opaque replay payloads a block carries, by field name (never empty strings).
    A server tool's result is one payload: its content, as canonical JSON (the provider
    checks the encrypted parts inside it)."""
    found: dict[str, str] = {}
    if isinstance(block, ServerToolResult):
        found["content"] = json.dumps(
            block.content, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
        return found
    if isinstance(block, Reasoning):
        if block.signature:
            found["signature"] = block.signature
        if block.data:
            found["data"] = block.data
    elif isinstance(block, Text | ToolCall) and block.signature:
        found["signature"] = block.signature
    return found


# ---------------------------------------------------------------- the script


class ToolSpec(StrictModel):
    """A tool offered to the model, and the result the suite hands out when it runs."""

    name: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")]
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    result: str


class ToolChoice(StrictModel):
    """Which tools the model may or must call, in neutral form: ``auto`` (it decides),
    ``any`` (it must call one), ``none`` (it may call none) or ``tool`` (it must call
    ``name``).  Each wire spells it its own way (Anthropic ``tool_choice.type``, Chat and
    Responses ``auto``/``required``/``none`` or a named function, Gemini
    ``toolConfig.functionCallingConfig``)."""

    mode: Literal["auto", "any", "none", "tool"]
    name: str | None = None

    @model_validator(mode="after")
    def _named(self) -> ToolChoice:
        if (self.mode == "tool") != (self.name is not None):
            raise ValueError("`name` goes with mode `tool`, and only with it")
        return self


class Options(StrictModel):
    """Request options a target should use for this conversation."""

    model: str = "model-under-test"
    max_tokens: PositiveInt = 4096
    thinking: ThinkingConfig = ThinkingConfig()
    store: bool | None = Field(default=None, description="OpenAI Responses `store`.")
    include: tuple[str, ...] | None = Field(default=None, description="OpenAI Responses `include`.")
    tool_choice: ToolChoice | None = Field(
        default=None,
        description="The tool choice every request of the conversation asks for (unset: "
        "the target's default); a target needs the `tool-choice` capability.",
    )
    prefill: str | None = Field(
        default=None,
        min_length=1,
        description="Anthropic: assistant text the harness asks to end each turn's first "
        "request with, for the response to continue (rule 10); a target needs the "
        "`prefill` capability.",
    )
    betas: tuple[Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")], ...] = Field(
        default=(),
        description="Anthropic: the `anthropic-beta` values the harness configures the "
        "client to send on every request, as its user would (a header or the library's "
        "betas setting); a target needs the `betas` capability.",
    )


#: What a target may declare it can do beyond plain request/response conversion:
#: continue from a saved ``history``; select a subagent's output (``output-selection``);
#: recover XML-style tool calls from text (``xml-recovery``); resume a turn the provider
#: paused by resending its content (``pause-resume``; the command contract v1 ends a
#: tool loop on any response without calls, so command targets lack it); send the tool
#: choice a case asks for (``tool-choice``, implied by ``given.options.tool_choice``);
#: end a turn's first request with the assistant prefill a case asks for (``prefill``,
#: implied by ``given.options.prefill``); send the Anthropic betas a case configures
#: (``betas``, implied by ``given.options.betas``).
Capability: TypeAlias = Literal[
    "history",
    "output-selection",
    "xml-recovery",
    "pause-resume",
    "tool-choice",
    "prefill",
    "betas",
]


Noise: TypeAlias = Literal["ping", "unknown-event"]

#: A transient provider failure a scripted slot answers with instead of a response:
#: ``overloaded`` (Anthropic 529, OpenAI and Gemini 503), ``rate-limit`` (429 on every
#: wire), ``server-error`` (500).  Each wire renders it in its own error shape.
#: ``invalid-encrypted-content`` is no transient failure: OpenAI Responses' 400 for
#: encrypted reasoning it cannot verify (rule 30), answered by dropping the reasoning
#: items and retrying once.
FaultKind: TypeAlias = Literal[
    "overloaded", "rate-limit", "server-error", "invalid-encrypted-content"
]
#: Fault kinds a client repairs its request for instead of resending it unchanged.
REPAIRED_FAULTS: frozenset[str] = frozenset({"invalid-encrypted-content"})


class Fault(StrictModel):
    """An HTTP error answer in the wire's error shape, optionally with ``retry-after``.

    A fault consumes its scripted slot: a client that retries the identical request is
    served the next scripted answer."""

    kind: FaultKind
    retry_after: Annotated[int, Field(ge=0, le=60)] | None = Field(
        default=None, description="Seconds, sent as the `retry-after` header."
    )
    mid_stream: bool = Field(
        default=False,
        description="Fail a streamed answer after its blocks with the wire's error event "
        "(a request that asked for no stream gets the HTTP error).",
    )
    response_failed: bool = Field(
        default=False,
        description="OpenAI Responses, with mid_stream: end the stream with the terminal "
        "`response.failed` event (status failed, the error in `response.error`) instead "
        "of an `error` event (rule 21).",
    )


#: How a stream's bytes are cut into reads: every byte its own read, one cut inside each
#: multi-byte UTF-8 sequence, one cut inside each line, or explicit read sizes in bytes.
ReadPattern: TypeAlias = Literal["bytewise", "mid-character", "mid-line"]


class Framing(StrictModel):
    """Byte-level framing of one served body: its SSE line endings and where its reads
    end.  The content is the same as without it; only the bytes a client must reassemble
    change, so every correct client reads the same blocks (the SSE spec's end-of-line is
    CRLF, LF or CR; a read may end anywhere, inside a character or a line)."""

    line_ending: Literal["lf", "crlf", "cr"] = Field(
        default="lf",
        description="Every SSE line break of a streamed answer (JSON bodies keep theirs).",
    )
    reads: ReadPattern | tuple[PositiveInt, ...] | None = Field(
        default=None,
        description="Where the body's reads end: `bytewise`, `mid-character` (inside every "
        "multi-byte UTF-8 sequence), `mid-line` (inside every line), or read sizes in "
        "bytes (the rest is one last read).  Unset: one read per event.",
    )


class ServedItem(StrictModel):
    """One output item of a served response: its type and id as the provider sent them,
    and how many of the response's blocks, in order, it became (none: an item with no
    neutral form, such as a hosted tool's call)."""

    type: str
    id: str | None = None
    blocks: NonNegativeInt = 0


class ServedIds(StrictModel):
    """The ids a response was served under, kept when it is read back from a recording:
    a stateful provider's later requests name them (OpenAI Responses
    ``previous_response_id``, an input item's id), so they must be the real ones."""

    response: str = Field(min_length=1)
    items: tuple[ServedItem, ...] = ()


class ScriptedResponse(StrictModel):
    """One assistant response the provider serves, in neutral blocks, or a ``fault``
    (an HTTP error answer: no blocks, stop ``no_finish``, which a case may omit)."""

    stop: Stop
    blocks: tuple[ContentBlock, ...] = ()
    noise: tuple[Noise, ...] = Field(
        default=(),
        description="Events the wire allows anywhere and a client must tolerate.",
    )
    fault: Fault | None = Field(
        default=None, description="Answer with a transient HTTP error instead of a response."
    )
    interleaved_calls: bool = Field(
        default=False,
        description="Chat Completions stream directive: the argument fragments of "
        "consecutive tool calls arrive interleaved, round-robin by index (rule 31).",
    )
    empty_final_output: bool = Field(
        default=False,
        description="OpenAI Responses stream directive: the terminal event's "
        "`response.output` is `[]` although every item was streamed (rule 23).",
    )
    gemini_call_ids: bool = Field(
        default=False,
        description="Gemini render directive: each functionCall part carries the call's "
        "`id`.  Real Gemini leaves it out (25 of the 27 calls in pydantic-ai's recorded "
        "test_google cassettes), so by default the wire does too: a client names the "
        "call itself and pairs its functionResponse by order.  Other wires always send ids.",
    )
    framing: Framing | None = Field(
        default=None,
        description="Byte-level framing of the served body: line endings, read boundaries.",
    )
    if_continued: bool = Field(
        default=False,
        description="Served only to a target that goes on with the tool loop after a cut "
        "turn (answering its cut calls with error results); a target that ends the turn "
        "there skips it.",
    )
    if_retried: bool = Field(
        default=False,
        description="Served only to a target that sends the identical request again after "
        "a dropped stream (the previous response, `no_finish`); a target that goes on or "
        "ends there skips it.",
    )
    halt: Literal["accepted", "lost"] | None = Field(
        default=None,
        description="Whether a target whose library stops the conversation right after "
        "this response (it raises instead of going on: a command's exit 93) loses nothing "
        "the provider would keep (`accepted`) or loses the user's turn (`lost`); unset, "
        "the turn's own end decides (`cases.schema.halt_accepted`).",
    )
    ids: ServedIds | None = Field(
        default=None,
        description="OpenAI Responses: the ids a recorded response was served under (its "
        "`resp_` id, each output item's type and id), so the recording's later requests "
        "that name them resolve; unset, the provider mints them.",
    )

    @model_validator(mode="before")
    @classmethod
    def _fault_stop(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("fault") is not None and "stop" not in data:
            return {**data, "stop": "no_finish"}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> ScriptedResponse:
        if self.fault is not None and self.stop != "no_finish":
            raise ValueError("a fault cuts its answer: stop no_finish")
        if self.ids is not None and sum(i.blocks for i in self.ids.items) != len(self.blocks):
            raise ValueError("the served items of `ids` hold every block, each once, in order")
        if self.fault is not None and self.fault.response_failed and not self.fault.mid_stream:
            raise ValueError("response_failed ends a stream: it needs mid_stream")
        if self.fault is not None and not self.fault.mid_stream and (self.blocks or self.noise):
            raise ValueError(
                "a fault answers with an error: no blocks, no noise (unless mid_stream)"
            )
        if self.if_retried and self.if_continued:
            raise ValueError("a response answers a retry or a continuation, not both")
        calls = [b for b in self.blocks if isinstance(b, ToolCall)]
        if self.stop == "tool_calls" and not calls:
            raise ValueError("stop `tool_calls` needs at least one tool_call block")
        ids = [c.id for c in calls]
        if len(ids) != len(set(ids)):
            raise ValueError("tool_call ids repeat within one response")
        return self


# ---------------------------------------------------------------- the outcome


@dataclass(frozen=True)
class FinalOutput:
    """What a target selects as the conversation's output (a subagent's result).

    ``text`` is ``None`` when nothing was selected; ``complete`` is false when the run
    ended incomplete (truncated, refused, cancelled); ``stop`` is the final stop reason.
    """

    text: str | None
    complete: bool
    stop: Stop | None = None
