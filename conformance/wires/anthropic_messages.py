"""The Anthropic Messages wire, ``POST /v1/messages``.

Four jobs: render a scripted turn as Anthropic sends it (SSE events, or the JSON
message), parse a request body into the neutral view, validate it with the rules of
``reference/wire-rules.md`` section A, answering with Anthropic's real error texts, and
read a recorded answer back into a scripted turn.

Rules read the raw body, not the neutral view: Anthropic's errors point at the body's own
message and block indices, and some rules turn on keys the neutral view cannot hold (a
``thinking`` block without its ``signature`` key, for one).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from conformance.cases.schema import Case, Noise, ScriptedResponse
from conformance.http import HttpRequest, HttpResponse, json_response
from conformance.model import (
    Block,
    ContentBlock,
    Media,
    Message,
    Reasoning,
    Role,
    Text,
    ThinkingConfig,
    ToolCall,
    ToolResult,
)
from conformance.wires import values
from conformance.wires.base import (
    RenderContext,
    RequestParseError,
    RequestView,
    ResponseReadError,
    Rule,
    RuleViolation,
    ValidationContext,
    Wire,
)
from conformance.wires.reading import call_arguments, neutral_response, read_json_body, required
from conformance.wires.sse import format_event, fragments, read_events

ENDPOINT = "/v1/messages"

#: The neutral stop, as Anthropic's ``stop_reason`` spells it.
STOP_REASONS: dict[str, str] = {
    "end": "end_turn",
    "tool_calls": "tool_use",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
    "pause": "pause_turn",
}
#: Stops that cut the stream before its terminal events.  Anthropic has no ``cancelled``
#: stop reason (a realism problem), so it is rendered as the cut it most resembles.
CUT_STOPS = frozenset({"no_finish", "cancelled"})
#: Stops under which a response may end inside a thinking block or a tool call.
TRUNCATED_STOPS = frozenset({"max_tokens", "no_finish"})

#: The event a client has never seen: rule 1 says unknown event types must be tolerated.
FUTURE_EVENT = "conformance_future_event"
#: The beta under which a manual thinking budget may exceed ``max_tokens`` (with tools).
INTERLEAVED_BETA = "interleaved-thinking-2025-05-14"

REASONING_TYPES = frozenset({"thinking", "redacted_thinking"})
#: Content block types the Messages API accepts in a message.  Server-tool result blocks
#: (``web_search_tool_result`` and their growing family) are accepted by their suffix, so
#: a client passing them through verbatim (rule 14) is never rejected.
KNOWN_BLOCK_TYPES = frozenset(
    {
        "text",
        "image",
        "document",
        "search_result",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "tool_result",
        "server_tool_use",
        "mcp_tool_use",
        "mcp_tool_result",
        "container_upload",
    }
)
SERVER_RESULT_SUFFIX = "_tool_result"
#: The keys each block type cannot do without (``thinking`` has rules of its own).
REQUIRED_BLOCK_KEYS: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "image": ("source",),
    "tool_use": ("id", "name", "input"),
    "tool_result": ("tool_use_id",),
    "redacted_thinking": ("data",),
}

LEADING_THINKING_TEXT = (
    "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "
    "We recommend you include thinking blocks from previous turns. To avoid this "
    "requirement, disable `thinking`. Please consult our documentation at "
    "https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking"
)

# ---------------------------------------------------------------- rules, in check order

FIELD_REQUIRED = Rule(
    id="anthropic-messages/field-required",
    ref="wire-rules §A (request shape)",
    statement=(
        "A request carries `model` and `max_tokens`, each message its `role` and `content`, "
        "and each block the keys its type requires."
    ),
    source=(
        "Messages API reference (required parameters); pydantic-style text in the same form "
        "as the `…thinking.signature: Field required` error that wire-rules rule 3 quotes"
    ),
    error="{at}: Field required",
)
UNKNOWN_BLOCK_TYPE = Rule(
    id="anthropic-messages/unknown-block-type",
    ref="wire-rules §A (request shape); seed §7",
    statement="Every block of a message's content has a type the Messages API knows.",
    source=(
        "seed §7 (unsupported blocks are rejected, not dropped); pydantic tagged-union text as "
        "Anthropic answers it in public bug reports (not catalogued in wire-rules.md)"
    ),
    error=(
        "messages.{i}.content.{j}: Input tag '{tag}' found using 'type' does not match any "
        "of the expected tags: {expected}"
    ),
)
THINKING_SIGNATURE_REQUIRED = Rule(
    id="anthropic-messages/thinking-signature-required",
    ref="wire-rules §A3",
    statement="A thinking block carries the signature that arrived in its signature_delta.",
    source=(
        "wire-rules rule 3: langchain-ai/langchain PR#29971; OpenRouterTeam/ai-sdk-provider#423; "
        "OnesoftQwQ/opencode-go-copilot v1.12.2 (rule 8)"
    ),
    error="messages.{i}.content.{j}.thinking.signature: Field required",
)
THINKING_TEXT_REQUIRED = Rule(
    id="anthropic-messages/thinking-text-required",
    ref="wire-rules §A4",
    statement='A signature-only thinking block keeps its `"thinking": ""` key.',
    source="wire-rules rule 4: langchain-ai/langchain#38638, #38639",
    error="messages.{i}.content.{j}.thinking.thinking: Field required",
)
TOOL_INPUT_OBJECT = Rule(
    id="anthropic-messages/tool-input-object",
    ref="wire-rules §A2, §A16",
    statement="A tool_use block's `input` is a JSON object, never the raw argument text.",
    source=(
        "wire-rules rule 2 (the final tool_use.input is always an object) and rule 16 "
        "(truncated calls); text from anthropics/claude-code#6696 and "
        "anthropics/anthropic-sdk-typescript#648 (pydantic-style, not in wire-rules.md)"
    ),
    error="messages.{i}.content.{j}.tool_use.input: Input should be a valid dictionary",
)
USER_NONEMPTY = Rule(
    id="anthropic-messages/user-message-nonempty",
    ref="wire-rules §A15",
    statement="A user message has non-empty content.",
    source="wire-rules rule 15: anthropics/claude-code#6774, #3196",
    error="messages.{i}: user messages must have non-empty content",
)
MESSAGE_NONEMPTY = Rule(
    id="anthropic-messages/message-nonempty",
    ref="wire-rules §A15; F3",
    statement="Only a final assistant message may have empty content.",
    source=(
        "wire-rules rule 15: corespeed-io/zypher-agent PR#122, coder/mux PR#1251; F3: "
        "experientiallabs/experiential PR#804 got HTTP 200 for assistant `content: []`, so "
        "the final position is accepted"
    ),
    error=(
        "messages.{i}: all messages must have non-empty content except for the optional "
        "final assistant message"
    ),
)
TEXT_NONEMPTY = Rule(
    id="anthropic-messages/text-nonempty",
    ref="wire-rules §A15",
    statement="A text block is never empty.",
    source="wire-rules rule 15: experientiallabs/experiential PR#804; vercel/ai PR#5783",
    error="messages: text content blocks must be non-empty",
)
TEXT_NONWHITESPACE = Rule(
    id="anthropic-messages/text-nonwhitespace",
    ref="wire-rules §A15",
    statement="A text block holds more than whitespace.",
    source="wire-rules rule 15: anthropics/claude-code#6774, #3196",
    error="messages: text content blocks must contain non-whitespace text",
)
FORCED_TOOL_CHOICE = Rule(
    id="anthropic-messages/forced-tool-choice-with-thinking",
    ref="wire-rules §A11",
    statement="With manual thinking, tool_choice is `auto` or `none`, never forcing a tool.",
    source=(
        "wire-rules rule 11: thinking-tool-workflows doc; run-llama/llama_index#19641; "
        "mastra-ai/mastra#7507"
    ),
    error="Thinking may not be enabled when tool_choice forces tool use.",
)
BUDGET_BELOW_MAX_TOKENS = Rule(
    id="anthropic-messages/budget-below-max-tokens",
    ref="wire-rules §A12",
    statement=(
        "With manual thinking, budget_tokens < max_tokens, unless interleaved thinking "
        "(beta header) runs with tools."
    ),
    source=(
        "wire-rules rule 12c: sigoden/aichat#1304; extended-thinking doc (the budget may "
        "exceed max_tokens with interleaved thinking and tools); the text is the prefix "
        "wire-rules.md quotes"
    ),
    error="`max_tokens` must be greater than `thinking.budget_tokens`",
)
TOOL_USE_ANSWERED = Rule(
    id="anthropic-messages/tool-use-answered",
    ref="wire-rules §A13",
    statement="Every tool_use is answered by a tool_result in the very next (user) message.",
    source=(
        "wire-rules rule 13: anthropics/anthropic-sdk-typescript#653; anthropics/claude-code"
        "#1237, #2697, #13460; Kilo-Org/kilocode#5163"
    ),
    error=(
        "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
        "after: {ids}. Each `tool_use` block must have a corresponding `tool_result` block "
        "in the next message."
    ),
)
TOOL_RESULT_MATCHED = Rule(
    id="anthropic-messages/tool-result-matched",
    ref="wire-rules §A13",
    statement="Every tool_result answers a tool_use of the message right before it.",
    source="wire-rules rule 13: decocms/studio#1803; anthropics/claude-code#13460",
    error=(
        "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
        "{ids}. Each `tool_result` block must have a corresponding `tool_use` block in the "
        "previous message."
    ),
)
TOOL_RESULTS_FIRST = Rule(
    id="anthropic-messages/tool-results-first",
    ref="wire-rules §A13",
    statement="The tool_result blocks open the message that answers a tool_use message.",
    source=(
        "wire-rules rule 13 (its quote drops the index prefix and the backticks); exact text "
        "from anthropics/claude-code#37 and theredsix/cerebellum#5"
    ),
    error=(
        "messages.{i}: Did not find {n} `tool_result` block(s) at the beginning of this "
        "message. Messages following `tool_use` blocks must begin with a matching number of "
        "`tool_result` blocks."
    ),
)
FINAL_BLOCK_THINKING = Rule(
    id="anthropic-messages/final-block-not-thinking",
    ref="wire-rules §A9",
    statement="No assistant message ends with a thinking block.",
    source="wire-rules rule 9: tailcallhq/forgecode#2107",
    error="messages.{i}: The final block in an assistant message cannot be `thinking`.",
)
THINKING_OFF_FINAL_ASSISTANT = Rule(
    id="anthropic-messages/thinking-off-final-assistant",
    ref="wire-rules §A9",
    statement="With thinking off, an assistant message in final position holds no thinking.",
    source="wire-rules rule 9: tailcallhq/forgecode#1853, #1195",
    error=(
        "messages.{i}.content.{j}: When thinking is disabled, an `assistant` message in the "
        "final position cannot contain `thinking`. To use thinking blocks, enable `thinking` "
        "in your request."
    ),
)
LEADING_THINKING = Rule(
    id="anthropic-messages/leading-thinking",
    ref="wire-rules §A6; seed §86, §93",
    statement=(
        "With manual thinking, the assistant message of the running tool loop starts with "
        "its thinking, unless its turn had none."
    ),
    source=(
        "wire-rules rule 6: epam/ai-dial-adapter-bedrock PR#290 (full text); vercel/ai#8865; "
        "BerriAI/litellm#15601; seed §93 (a tool turn without thinking is left alone)"
    ),
    error=LEADING_THINKING_TEXT,
)
SIGNATURE_VALID = Rule(
    id="anthropic-messages/signature-valid",
    ref="wire-rules §A3, §A8",
    statement=(
        "Every thinking block's signature is one this provider minted, byte for byte "
        "(never fabricated, foreign, joined or cut)."
    ),
    source=(
        "wire-rules rules 3 and 8: OpenRouterTeam/ai-sdk-provider#423; "
        "code-yeongyu/oh-my-openagent#2775; ding113/claude-code-hub#518"
    ),
    error="messages.{i}.content.{j}: Invalid `signature` in `thinking` block",
)
LATEST_IMMUTABLE = Rule(
    id="anthropic-messages/latest-thinking-immutable",
    ref="wire-rules §A5, §A7",
    statement=(
        "The thinking and redacted_thinking blocks of the latest assistant message come back "
        "exactly as the response sent them: same text, signature, data, count and order."
    ),
    source=(
        "wire-rules rules 5 and 7: anthropics/claude-code#19539, #25361; "
        "Yeachan-Heo/gajae-code#4247; lidge-jun/opencodex PR#5140; BerriAI/litellm#9058"
    ),
    error=(
        "messages.{i}.content.{j}: `thinking` or `redacted_thinking` blocks in the latest "
        "assistant message cannot be modified. These blocks must remain as they were in the "
        "original response."
    ),
)

RULES: tuple[Rule, ...] = (
    FIELD_REQUIRED,
    UNKNOWN_BLOCK_TYPE,
    THINKING_SIGNATURE_REQUIRED,
    THINKING_TEXT_REQUIRED,
    TOOL_INPUT_OBJECT,
    FORCED_TOOL_CHOICE,
    BUDGET_BELOW_MAX_TOKENS,
    USER_NONEMPTY,
    MESSAGE_NONEMPTY,
    TEXT_NONEMPTY,
    TEXT_NONWHITESPACE,
    TOOL_USE_ANSWERED,
    TOOL_RESULT_MATCHED,
    TOOL_RESULTS_FIRST,
    FINAL_BLOCK_THINKING,
    THINKING_OFF_FINAL_ASSISTANT,
    LEADING_THINKING,
    SIGNATURE_VALID,
    LATEST_IMMUTABLE,
)


class AnthropicRequestView(RequestView):
    """The neutral view plus the ``anthropic-beta`` values, which rule 12c reads."""

    betas: tuple[str, ...] = ()


# ---------------------------------------------------------------- small helpers


# ---------------------------------------------------------------- rendering


def _content_block_start(block: ContentBlock) -> dict[str, Any] | None:
    """The ``content_block`` of a block's ``content_block_start`` (None: not renderable)."""
    if isinstance(block, Reasoning):
        if block.redacted:
            return {"type": "redacted_thinking", "data": block.data or ""}
        return {"type": "thinking", "thinking": "", "signature": ""}
    if isinstance(block, Text):
        return {"type": "text", "text": ""}
    if isinstance(block, ToolCall):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
    return None


def _deltas(block: ContentBlock) -> list[dict[str, Any]]:
    """The ``delta`` objects of a block's ``content_block_delta`` events, in order."""
    if isinstance(block, Reasoning):
        if block.redacted:
            return []
        thoughts = fragments(block.text, block.chunks)
        signature = fragments(block.signature or "", block.signature_chunks)
        return [{"type": "thinking_delta", "thinking": piece} for piece in thoughts] + [
            {"type": "signature_delta", "signature": piece} for piece in signature
        ]
    if isinstance(block, Text):
        return [{"type": "text_delta", "text": p} for p in fragments(block.text, block.chunks)]
    if isinstance(block, ToolCall):
        return [
            {"type": "input_json_delta", "partial_json": piece}
            for piece in fragments(values.argument_text(block), block.chunks)
        ]
    return []


def _message_json(block: ContentBlock) -> dict[str, Any] | None:
    """A block as it appears in a non-streamed message's ``content``.

    An unsigned thinking block (cut inside it) gets ``"signature": ""``: the value a
    client assembling the stream ends up with, since ``content_block_start`` carries
    ``""`` and no signature_delta follows.
    """
    if isinstance(block, Reasoning):
        if block.redacted:
            return {"type": "redacted_thinking", "data": block.data or ""}
        return {"type": "thinking", "thinking": block.text, "signature": block.signature or ""}
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolCall):
        arguments = block.arguments if isinstance(block.arguments, dict) else {}
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": arguments}
    return None


def _noise_event(noise: Noise) -> tuple[str, dict[str, Any]]:
    if noise == "ping":
        return "ping", {"type": "ping"}
    return FUTURE_EVENT, {"type": FUTURE_EVENT}


def _output_tokens(blocks: Sequence[ContentBlock]) -> int:
    """A plausible, deterministic output size: about four characters a token."""
    size = 0
    for block in blocks:
        if isinstance(block, Reasoning):
            size += len(block.text) + len(block.data or "")
        elif isinstance(block, Text):
            size += len(block.text)
        elif isinstance(block, ToolCall):
            size += len(values.argument_text(block))
    return max(1, size // 4)


@dataclass(frozen=True)
class _Identity:
    """The deterministic ids and usage of one rendered response."""

    message_id: str
    request_id: str
    input_tokens: int
    output_tokens: int

    @classmethod
    def of(cls, response: ScriptedResponse, context: RenderContext) -> _Identity:
        seed = values.digest(context.case_id, context.index)
        return cls(
            message_id="msg_" + values.digest("message", seed)[:24],
            request_id="req_" + values.digest("request", seed)[:24],
            input_tokens=100 + int(values.digest("input", seed)[:6], 16) % 900,
            output_tokens=_output_tokens(response.blocks),
        )


def _stream_events(
    response: ScriptedResponse, context: RenderContext, identity: _Identity
) -> list[tuple[str, dict[str, Any]]]:
    """Every SSE event of a streamed response, as (event name, data) pairs.

    Noise goes round-robin into the gaps between blocks (right after the opening ping
    when there is no such gap), so a cut stream still ends on its last delta.
    """
    rendered = [
        (start, _deltas(block))
        for block in response.blocks
        if (start := _content_block_start(block)) is not None
    ]
    gaps = max(len(rendered) - 1, 0)
    noise_after: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    for k, noise in enumerate(response.noise):
        noise_after.setdefault(k % gaps if gaps else -1, []).append(_noise_event(noise))
    cut = response.stop in CUT_STOPS
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": identity.message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": context.model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": identity.input_tokens, "output_tokens": 1},
                },
            },
        ),
        ("ping", {"type": "ping"}),
        *noise_after.get(-1, []),
    ]
    for index, (start, deltas) in enumerate(rendered):
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        if cut and index == len(rendered) - 1:
            return events
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        events += noise_after.get(index, [])
    if cut:
        return events
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": STOP_REASONS[response.stop], "stop_sequence": None},
                "usage": {"output_tokens": identity.output_tokens},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


# ---------------------------------------------------------------- parsing


def _content_block(item: object) -> ContentBlock | None:
    """A raw block other than ``tool_result`` in neutral form (None: the neutral vocabulary
    has no such block, so the view leaves it out)."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "thinking":
        return Reasoning(
            text=values.text(item.get("thinking")),
            signature=values.optional_text(item.get("signature")),
        )
    if kind == "redacted_thinking":
        return Reasoning(redacted=True, data=values.optional_text(item.get("data")))
    if kind == "text":
        return Text(text=values.text(item.get("text")))
    if kind == "tool_use":
        raw_input = item.get("input", {})
        arguments = raw_input if isinstance(raw_input, dict) else values.compact(raw_input)
        return ToolCall(
            id=values.text(item.get("id")), name=values.text(item.get("name")), arguments=arguments
        )
    if kind == "image":
        source = item.get("source")
        if isinstance(source, dict) and source.get("type") == "base64":
            return Media(
                mime=values.text(source.get("media_type")), data=values.text(source.get("data"))
            )
    return None


def _block(item: object) -> Block | None:
    """A raw message block in neutral form, ``tool_result`` included."""
    if isinstance(item, dict) and item.get("type") == "tool_result":
        content = item.get("content")
        parsed: str | tuple[ContentBlock, ...] = ""
        if isinstance(content, str):
            parsed = content
        elif isinstance(content, list):
            parsed = tuple(b for b in map(_content_block, content) if b is not None)
        return ToolResult(
            call_id=values.text(item.get("tool_use_id")),
            content=parsed,
            is_error=item.get("is_error") is True,
        )
    return _content_block(item)


def _neutral_messages(
    raw_messages: Sequence[object],
) -> tuple[list[Message], list[tuple[str, tuple[str, ...]]]]:
    """Neutral messages and their locations; tool_result runs become ``tool`` messages."""
    messages: list[Message] = []
    locations: list[tuple[str, tuple[str, ...]]] = []
    for i, raw in enumerate(raw_messages):
        if not isinstance(raw, dict) or raw.get("role") not in ("user", "assistant"):
            continue
        role: Role = "user" if raw["role"] == "user" else "assistant"
        at = f"messages.{i}"
        runs: list[tuple[Role, list[Block], list[str]]] = []
        content = raw.get("content")
        if isinstance(content, str) and content:
            runs.append((role, [Text(text=content)], [f"{at}.content"]))
        elif isinstance(content, list):
            for j, item in enumerate(content):
                block = _block(item)
                if block is None:
                    continue
                target: Role = "tool" if isinstance(block, ToolResult) else role
                if not runs or runs[-1][0] != target:
                    runs.append((target, [], []))
                runs[-1][1].append(block)
                runs[-1][2].append(f"{at}.content.{j}")
        for run_role, blocks, where in runs or [(role, [], [])]:
            messages.append(Message(role=run_role, blocks=tuple(blocks)))
            locations.append((at, tuple(where)))
    return messages, locations


def _system(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(
            b["text"]
            for b in value
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return None


def _thinking(value: object) -> ThinkingConfig:
    if not isinstance(value, dict):
        return ThinkingConfig()
    if value.get("type") == "enabled":
        budget = values.integer(value.get("budget_tokens"))
        return ThinkingConfig(
            mode="manual", budget_tokens=budget if budget and budget > 0 else None
        )
    if value.get("type") == "adaptive":
        return ThinkingConfig(mode="adaptive")
    return ThinkingConfig()


# ---------------------------------------------------------------- validation


@dataclass(frozen=True)
class _Raw:
    """One entry of the body's ``messages``, read leniently (garbage reads as empty).

    ``keys`` is None when the entry is not a JSON object at all.
    """

    index: int
    keys: frozenset[str] | None
    role: object
    content: object
    blocks: tuple[tuple[int, dict[str, Any]], ...]

    @classmethod
    def of(cls, index: int, raw: object) -> _Raw:
        if not isinstance(raw, dict):
            return cls(index, None, None, None, ())
        content = raw.get("content")
        items = content if isinstance(content, list) else []
        blocks = tuple((j, b) for j, b in enumerate(items) if isinstance(b, dict))
        return cls(index, frozenset(raw), raw.get("role"), content, blocks)

    def of_type(self, *types: str) -> list[tuple[int, dict[str, Any]]]:
        return [(j, b) for j, b in self.blocks if _kind(b) in types]

    @property
    def empty(self) -> bool:
        return self.content == "" or self.content == []

    @property
    def first_kind(self) -> str | None:
        """The type of the first content block (None when there is none to read)."""
        first = self.content[0] if isinstance(self.content, list) and self.content else None
        return _kind(first) if isinstance(first, dict) else None

    @property
    def last_kind(self) -> str | None:
        last = self.content[-1] if isinstance(self.content, list) and self.content else None
        return _kind(last) if isinstance(last, dict) else None

    @property
    def tool_use_ids(self) -> list[str]:
        return [b["id"] for _, b in self.of_type("tool_use") if isinstance(b.get("id"), str)]

    def tool_result_ids(self) -> list[tuple[int, str]]:
        return [
            (j, b["tool_use_id"])
            for j, b in self.of_type("tool_result")
            if isinstance(b.get("tool_use_id"), str)
        ]

    def leading_result_ids(self) -> set[str]:
        """The ids of the unbroken run of tool_result blocks that opens the content."""
        found: set[str] = set()
        for item in self.content if isinstance(self.content, list) else []:
            if not isinstance(item, dict) or item.get("type") != "tool_result":
                break
            if isinstance(item.get("tool_use_id"), str):
                found.add(item["tool_use_id"])
        return found

    def neutral(self) -> list[ContentBlock]:
        return [b for _, item in self.blocks if (b := _content_block(item)) is not None]


def _kind(block: dict[str, Any]) -> str | None:
    """A raw block's ``type`` when it is a string (anything else is no known type)."""
    kind = block.get("type")
    return kind if isinstance(kind, str) else None


Token = tuple[str, str]


def _tokens(blocks: Sequence[Block]) -> set[Token]:
    """What ties a message to the response it came from: signatures, data, call ids."""
    found: set[Token] = set()
    for block in blocks:
        if isinstance(block, Reasoning) and block.origin is None:
            if block.signature:
                found.add(("signature", block.signature))
            if block.data:
                found.add(("data", block.data))
        elif isinstance(block, ToolCall) and block.origin is None and block.id:
            found.add(("call", block.id))
    return found


Episode = tuple[str, str | None, str | None]


def _episode(block: Reasoning) -> Episode:
    if block.redacted:
        return ("redacted_thinking", None, block.data)
    return ("thinking", block.text, block.signature)


def _raw_episode(item: dict[str, Any]) -> Episode:
    if item.get("type") == "redacted_thinking":
        return ("redacted_thinking", None, values.optional_text(item.get("data")))
    return (
        "thinking",
        values.optional_text(item.get("thinking")),
        values.optional_text(item.get("signature")),
    )


def _replayable(block: Block) -> bool:
    """A reasoning block a client can send back: minted here, and signed or redacted."""
    return (
        isinstance(block, Reasoning)
        and block.origin is None
        and (block.redacted or block.signature is not None)
    )


def _every_block(blocks: Sequence[Block]) -> Iterator[Block]:
    for block in blocks:
        yield block
        if isinstance(block, ToolResult) and not isinstance(block.content, str):
            yield from block.content


@dataclass(frozen=True)
class _Check:
    """One request under validation, with what the provider remembers of the session."""

    view: RequestView
    context: ValidationContext
    messages: tuple[_Raw, ...]

    @property
    def body(self) -> dict[str, Any]:
        return self.view.raw

    @property
    def manual(self) -> bool:
        return self.view.thinking.mode == "manual"

    def at(self, index: int) -> _Raw | None:
        return self.messages[index] if 0 <= index < len(self.messages) else None

    def originals(self) -> list[tuple[Block, ...]]:
        """Every assistant turn the provider produced: served responses and the saved
        history's assistant messages, oldest first."""
        found = [m.blocks for m in self.context.history if m.role == "assistant"]
        return found + [tuple(r.blocks) for r in self.context.served]

    def origin_of(self, message: _Raw) -> list[tuple[Block, ...]]:
        """The turn(s) a request's assistant message was built from, matched by token."""
        tokens = _tokens(message.neutral())
        return [blocks for blocks in self.originals() if tokens & _tokens(blocks)]

    def minted(self) -> set[str]:
        history = (b for m in self.context.history for b in _every_block(m.blocks))
        served = (b for r in self.context.served for b in r.blocks)
        return {
            b.signature
            for source in (history, served)
            for b in source
            if isinstance(b, Reasoning) and b.origin is None and b.signature is not None
        }


def _violation(rule: Rule, location: str | None = None, **fields: object) -> RuleViolation:
    """The rule broken at ``location``, its error text filled in with ``fields``."""
    return RuleViolation(rule, rule.error.format(**fields), location)


def _field_required(check: _Check) -> Iterator[RuleViolation]:
    for field in ("model", "max_tokens"):
        if field not in check.body:
            yield _violation(FIELD_REQUIRED, field, at=field)
    for message in check.messages:
        missing = [
            f"messages.{message.index}.{key}"
            for key in ("role", "content")
            if message.keys is not None and key not in message.keys
        ]
        for j, block in message.blocks:
            kind = _kind(block)
            missing += [
                f"messages.{message.index}.content.{j}.{kind}.{key}"
                for key in REQUIRED_BLOCK_KEYS.get(kind or "", ())
                if key not in block
            ]
        for at in missing:
            yield _violation(FIELD_REQUIRED, at, at=at)


def _unknown_block_type(check: _Check) -> Iterator[RuleViolation]:
    expected = ", ".join(f"'{t}'" for t in sorted(KNOWN_BLOCK_TYPES))
    for message in check.messages:
        for j, block in message.blocks:
            kind = _kind(block)
            if kind is None or kind in KNOWN_BLOCK_TYPES or kind.endswith(SERVER_RESULT_SUFFIX):
                continue
            at = f"messages.{message.index}.content.{j}"
            yield _violation(
                UNKNOWN_BLOCK_TYPE, at, i=message.index, j=j, tag=kind, expected=expected
            )


def _thinking_keys(check: _Check) -> Iterator[RuleViolation]:
    for rule, key in (
        (THINKING_SIGNATURE_REQUIRED, "signature"),
        (THINKING_TEXT_REQUIRED, "thinking"),
    ):
        for message in check.messages:
            for j, block in message.of_type("thinking"):
                if key not in block:
                    at = f"messages.{message.index}.content.{j}.thinking.{key}"
                    yield _violation(rule, at, i=message.index, j=j)


def _tool_input_object(check: _Check) -> Iterator[RuleViolation]:
    for message in check.messages:
        for j, block in message.of_type("tool_use"):
            if "input" in block and not isinstance(block["input"], dict):
                at = f"messages.{message.index}.content.{j}.tool_use.input"
                yield _violation(TOOL_INPUT_OBJECT, at, i=message.index, j=j)


def _thinking_config(check: _Check) -> Iterator[RuleViolation]:
    if not check.manual:
        return
    choice = check.body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
        yield _violation(FORCED_TOOL_CHOICE, "tool_choice")
    budget, limit = check.view.thinking.budget_tokens, check.view.max_tokens
    betas = check.view.betas if isinstance(check.view, AnthropicRequestView) else ()
    interleaved = INTERLEAVED_BETA in betas and bool(check.view.tools)
    if budget is not None and limit is not None and budget >= limit and not interleaved:
        yield _violation(BUDGET_BELOW_MAX_TOKENS, "thinking.budget_tokens")


def _nonempty(check: _Check) -> Iterator[RuleViolation]:
    final = len(check.messages) - 1
    for message in check.messages:
        at = f"messages.{message.index}"
        if message.role == "user" and message.empty:
            yield _violation(USER_NONEMPTY, at, i=message.index)
        elif message.role == "assistant" and message.empty and message.index != final:
            yield _violation(MESSAGE_NONEMPTY, at, i=message.index)
    for message in check.messages:
        for j, block in message.of_type("text"):
            text = block.get("text")
            at = f"messages.{message.index}.content.{j}"
            if text == "":
                yield _violation(TEXT_NONEMPTY, at)
            elif isinstance(text, str) and not text.strip():
                yield _violation(TEXT_NONWHITESPACE, at)


def _tool_pairing(check: _Check) -> Iterator[RuleViolation]:
    """Rule 13, message by message.  A tool_use message that ends the request has no
    next message yet, so nothing is asked of it."""
    for message in check.messages:
        before = check.at(message.index - 1)
        if message.role == "user":
            offered = set(before.tool_use_ids) if before and before.role == "assistant" else set()
            stray = [(j, i) for j, i in message.tool_result_ids() if i not in offered]
            if stray:
                j = stray[0][0]
                yield _violation(
                    TOOL_RESULT_MATCHED,
                    f"messages.{message.index}.content.{j}",
                    i=message.index,
                    j=j,
                    ids=", ".join(i for _, i in stray),
                )
        after = check.at(message.index + 1)
        if message.role != "assistant" or not message.tool_use_ids or after is None:
            continue
        answered = after.tool_result_ids() if after.role == "user" else []
        leading = after.leading_result_ids() if after.role == "user" else set()
        missing = [i for i in message.tool_use_ids if i not in leading]
        if any(i in missing for _, i in answered):
            at = f"messages.{after.index}"
            yield _violation(TOOL_RESULTS_FIRST, at, i=after.index, n=len(missing))
        elif missing:
            at = f"messages.{message.index}"
            yield _violation(TOOL_USE_ANSWERED, at, i=message.index, ids=", ".join(missing))


def _trailing_thinking(check: _Check) -> Iterator[RuleViolation]:
    for message in check.messages:
        if message.role == "assistant" and message.last_kind == "thinking":
            yield _violation(FINAL_BLOCK_THINKING, f"messages.{message.index}", i=message.index)
    final = check.at(len(check.messages) - 1)
    if check.view.thinking.mode == "off" and final is not None and final.role == "assistant":
        for j, _ in final.of_type("thinking")[:1]:
            at = f"messages.{final.index}.content.{j}"
            yield _violation(THINKING_OFF_FINAL_ASSISTANT, at, i=final.index, j=j)


def _leading_thinking(check: _Check) -> Iterator[RuleViolation]:
    """Rule 6, only inside a running tool loop: the request ends with tool results that
    answer the assistant message right before them."""
    if not check.manual or len(check.messages) < 2:
        return
    last, turn = check.messages[-1], check.messages[-2]
    in_loop = (
        last.role == "user"
        and bool(last.of_type("tool_result"))
        and turn.role == "assistant"
        and bool(turn.tool_use_ids)
    )
    if not in_loop or turn.first_kind in REASONING_TYPES:
        return
    dropped = any(_replayable(b) for blocks in check.origin_of(turn) for b in blocks)
    if turn.of_type(*REASONING_TYPES) or dropped:
        at = f"messages.{turn.index}.content.0"
        yield _violation(LEADING_THINKING, at, i=turn.index, found=turn.first_kind)


def _signature_valid(check: _Check) -> Iterator[RuleViolation]:
    minted = check.minted()
    for message in check.messages:
        if message.role != "assistant":
            continue
        for j, block in message.of_type("thinking"):
            if "signature" not in block:
                continue
            signature = block["signature"]
            if not isinstance(signature, str) or signature not in minted:
                at = f"messages.{message.index}.content.{j}"
                yield _violation(SIGNATURE_VALID, at, i=message.index, j=j)


def _latest_immutable(check: _Check) -> Iterator[RuleViolation]:
    """Rules 5 and 7 on the latest assistant message: its reasoning blocks, in order,
    equal the replayable reasoning of the turn(s) it was built from.  Where text and
    tool_use sit around them is not this rule's business."""
    latest = next((m for m in reversed(check.messages) if m.role == "assistant"), None)
    if latest is None:
        return
    sent = [(j, _raw_episode(b)) for j, b in latest.of_type(*REASONING_TYPES)]
    origin = check.origin_of(latest)
    if not sent or not origin:
        return
    expected = [
        _episode(b)
        for blocks in origin
        for b in blocks
        if isinstance(b, Reasoning) and _replayable(b)
    ]
    if [episode for _, episode in sent] == expected:
        return
    differs = (k for k, (_, e) in enumerate(sent) if k >= len(expected) or e != expected[k])
    k = next(differs, len(sent) - 1)
    at = f"messages.{latest.index}.content.{sent[k][0]}"
    yield _violation(LATEST_IMMUTABLE, at, i=latest.index, j=sent[k][0])


CHECKS = (
    _field_required,
    _unknown_block_type,
    _thinking_keys,
    _tool_input_object,
    _thinking_config,
    _nonempty,
    _tool_pairing,
    _trailing_thinking,
    _leading_thinking,
    _signature_valid,
    _latest_immutable,
)


# ---------------------------------------------------------------- realism


def _block_problems(block: Block, *, scripted: bool, truncated: bool, last: bool) -> list[str]:
    """Why Anthropic never sends this block (``scripted``: in a served response)."""
    problems: list[str] = []
    if isinstance(block, Text | ToolCall) and block.signature is not None:
        problems.append(f"a {block.kind} block carries a signature; Anthropic signs only thinking")
    if isinstance(block, Media) and scripted:
        problems.append("Anthropic responses carry no media blocks")
    if (
        isinstance(block, ToolCall)
        and isinstance(block.arguments, str)
        and scripted
        and not truncated
    ):
        problems.append(
            "a tool_use with unparsed arguments outside a truncated response (stop max_tokens "
            "or no_finish); a router mislabelling a cut call (rule 33) is a Chat-wire shape"
        )
    if not isinstance(block, Reasoning):
        return problems
    if block.id is not None or block.summary is not None:
        problems.append("reasoning with an item id or a summary (OpenAI Responses shapes)")
    if block.redacted:
        if not block.data:
            problems.append("a redacted_thinking block without data")
        if block.text or block.signature is not None:
            problems.append(
                "a redacted_thinking block carries text or a signature; it has only data"
            )
        return problems
    if scripted and block.signature_chunks is not None and len(block.signature_chunks) > 1:
        problems.append(
            "a signature over several signature_delta events; Anthropic documents one per "
            "thinking block"
        )
    if scripted and block.signature is None and not (truncated and last):
        problems.append(
            "an unsigned thinking block; Anthropic signs every one unless the response is cut "
            "inside it (its last block, stop max_tokens or no_finish)"
        )
    return problems


# ---------------------------------------------------------------- reading recorded responses

#: ``stop_reason`` back to the neutral stop: the render table inverted, plus the reasons
#: the Messages API documents that a script never renders.
READ_STOPS: dict[str, str] = {
    **{reason: stop for stop, reason in STOP_REASONS.items()},
    "stop_sequence": "end",
    "model_context_window_exceeded": "max_tokens",
}
#: Per delta type: the block type it belongs to and the field it appends to.  Other
#: delta types (``citations_delta``, any added later) carry nothing neutral: skipped.
DELTA_FIELDS: dict[str, tuple[str, str]] = {
    "text_delta": ("text", "text"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("thinking", "signature"),
    "input_json_delta": ("tool_use", "partial_json"),
}


def _read_block(
    item: object, at: str, arguments: dict[str, Any] | str | None = None
) -> ContentBlock | None:
    """A content block of the answer in neutral form (None: no neutral form, such as
    server-tool blocks).  ``arguments`` replaces ``input`` for a streamed call, whose
    input is the JSON text its deltas carried.  An empty signature is none: what a block
    cut before its signature_delta holds."""
    if not isinstance(item, dict):
        raise ResponseReadError("the content block is not an object", at)
    kind = item.get("type")
    if kind == "thinking":
        signature = item.get("signature")
        return Reasoning(
            text=required(item, "thinking", str, at),
            signature=signature if isinstance(signature, str) and signature else None,
        )
    if kind == "redacted_thinking":
        return Reasoning(redacted=True, data=required(item, "data", str, at))
    if kind == "text":
        return Text(text=required(item, "text", str, at))
    if kind == "tool_use":
        return ToolCall(
            id=required(item, "id", str, at),
            name=required(item, "name", str, at),
            arguments=required(item, "input", dict, at) if arguments is None else arguments,
        )
    return None


def _provider_error(data: dict[str, Any], at: str) -> ResponseReadError:
    """Anthropic's error (an ``error`` event, or an error body) as a read error."""
    error = data.get("error")
    error = error if isinstance(error, dict) else {}
    kind, message = error.get("type"), error.get("message")
    return ResponseReadError(f"provider error {kind}: {message}", at)


def _stop(reason: str, at: str) -> str:
    if reason not in READ_STOPS:
        raise ResponseReadError(f"unknown stop_reason {reason!r}", at)
    return READ_STOPS[reason]


@dataclass
class _Streamed:
    """A content block being read from a stream: its ``content_block_start`` object,
    which the deltas extend, and the input JSON text of a call."""

    item: dict[str, Any]
    at: str
    json: str = ""
    stopped: bool = False

    def block(self) -> ContentBlock | None:
        arguments = None
        if self.item.get("type") == "tool_use" and (self.json or not self.stopped):
            arguments = call_arguments(self.json, complete=self.stopped)
        return _read_block(self.item, self.at, arguments)


def _read_stream(body: bytes) -> ScriptedResponse:
    """Rule 1's assembly: blocks by ``index``, deltas appended per index, the stop from
    ``message_delta``; ``message_start``, ``ping`` and unknown event types are skipped
    (the streaming doc asks clients to handle unknown event types, and the versioning
    page lists new streaming event types among the changes a version may get:
    docs.anthropic.com/en/api/messages-streaming, /en/api/versioning).  Without a
    stop_reason the stream was cut: ``no_finish``, with every block started so far."""
    blocks: dict[int, _Streamed | None] = {}  # None: a block with no neutral form
    stop = "no_finish"
    at = "byte 0"
    for event in read_events(body):
        data = event.object()
        kind = data.get("type") if isinstance(data.get("type"), str) else event.name
        at = event.at(kind)
        if kind == "error":
            raise _provider_error(data, at)
        if kind == "content_block_start":
            index = required(data, "index", int, at)
            item = required(data, "content_block", dict, at)
            if index in blocks:
                raise ResponseReadError(f"content block {index} starts twice", at)
            known = item.get("type") in {*REASONING_TYPES, "text", "tool_use"}
            blocks[index] = _Streamed(dict(item), at) if known else None
        elif kind in ("content_block_delta", "content_block_stop"):
            index = required(data, "index", int, at)
            if index not in blocks:
                raise ResponseReadError(f"content block {index} was never started", at)
            streamed = blocks[index]
            if streamed is None:
                continue
            if kind == "content_block_stop":
                streamed.stopped = True
                continue
            _extend(streamed, required(data, "delta", dict, at), at)
        elif kind == "message_delta":
            delta = required(data, "delta", dict, at)
            if delta.get("stop_reason") is not None:
                stop = _stop(required(delta, "stop_reason", str, at), at)
    found = [s.block() for _, s in sorted(blocks.items()) if s is not None]
    return neutral_response(stop, [b for b in found if b is not None], at)


def _extend(streamed: _Streamed, delta: dict[str, Any], at: str) -> None:
    kind = delta.get("type")
    if not isinstance(kind, str) or kind not in DELTA_FIELDS:
        return
    block_type, field = DELTA_FIELDS[kind]
    if streamed.item.get("type") != block_type:
        raise ResponseReadError(f"a {kind} for a {streamed.item.get('type')} block", at)
    piece = required(delta, field, str, at)
    if field == "partial_json":
        streamed.json += piece
    else:
        streamed.item[field] = values.text(streamed.item.get(field)) + piece


def _read_message(body: bytes) -> ScriptedResponse:
    message = read_json_body(body)
    if message.get("type") == "error":
        raise _provider_error(message, "body")
    content = required(message, "content", list, "body")
    stop = _stop(required(message, "stop_reason", str, "body"), "stop_reason")
    found = [_read_block(item, f"content.{j}") for j, item in enumerate(content)]
    return neutral_response(stop, [b for b in found if b is not None], "body")


# ---------------------------------------------------------------- the wire


class AnthropicMessages(Wire):
    """Anthropic's Messages API: ``POST /v1/messages``, streamed or not."""

    name: ClassVar[str] = "anthropic-messages"
    rules: ClassVar[tuple[Rule, ...]] = RULES

    # ------------------------------------------------------------ serving

    def serves(self, request: HttpRequest) -> bool:
        return request.method.upper() == "POST" and request.path == ENDPOINT

    def endpoint(self, model: str, stream: bool) -> str:
        """One path for every model; streaming is asked for in the body (``stream``)."""
        return ENDPOINT

    def wants_stream(self, request: HttpRequest, view: RequestView) -> bool:
        return view.stream

    def render(self, response: ScriptedResponse, context: RenderContext) -> HttpResponse:
        identity = _Identity.of(response, context)
        if not context.stream:
            return self._render_message(response, context, identity)
        chunks = tuple(
            format_event(name, data) for name, data in _stream_events(response, context, identity)
        )
        headers = (
            ("content-type", "text/event-stream; charset=utf-8"),
            ("cache-control", "no-cache"),
            ("request-id", identity.request_id),
        )
        return HttpResponse(200, b"".join(chunks), headers, chunks)

    def _render_message(
        self, response: ScriptedResponse, context: RenderContext, identity: _Identity
    ) -> HttpResponse:
        """The JSON message.  A cut (``no_finish``) has no JSON form: the nearest thing a
        non-streaming client meets is Anthropic's internal-error answer (500 api_error)."""
        headers = {"request-id": identity.request_id}
        if response.stop in CUT_STOPS:
            error = {"type": "api_error", "message": "Internal server error"}
            body = {"type": "error", "error": error, "request_id": identity.request_id}
            return json_response(500, body, headers)
        content = [j for b in response.blocks if (j := _message_json(b)) is not None]
        message = {
            "id": identity.message_id,
            "type": "message",
            "role": "assistant",
            "model": context.model,
            "content": content,
            "stop_reason": STOP_REASONS[response.stop],
            "stop_sequence": None,
            "usage": {
                "input_tokens": identity.input_tokens,
                "output_tokens": identity.output_tokens,
            },
        }
        return json_response(200, message, headers)

    def error_response(self, violation: RuleViolation) -> HttpResponse:
        rule = violation.rule
        request_id = "req_" + values.digest("error", rule.id, violation.message)[:24]
        body = {
            "type": "error",
            "error": {"type": rule.error_type, "message": violation.message},
            "request_id": request_id,
        }
        return json_response(rule.status, body, {"request-id": request_id})

    # ------------------------------------------------------------ reading responses

    def read_response(
        self, body: bytes, streaming: bool, *, dialect: str | None = None
    ) -> ScriptedResponse:
        return _read_stream(body) if streaming else _read_message(body)

    # ------------------------------------------------------------ parsing

    def parse(self, request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
        """The body in neutral form.  Error texts: Anthropic's own for a body that is not
        JSON (``The request body is not valid JSON: <decoder message>``, seen in
        anthropics/claude-code#6464); pydantic-style for the wrong shapes."""
        try:
            body = json.loads(request.body)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise RequestParseError(f"The request body is not valid JSON: {error}") from None
        if not isinstance(body, dict):
            raise RequestParseError("Input should be a valid dictionary")
        if "messages" not in body:
            raise RequestParseError("messages: Field required", at="messages")
        if not isinstance(body["messages"], list):
            raise RequestParseError("messages: Input should be a valid list", at="messages")
        messages, locations = _neutral_messages(body["messages"])
        tools = body.get("tools")
        beta = request.header("anthropic-beta") or ""
        return AnthropicRequestView(
            wire=self.name,
            model=values.optional_text(body.get("model")),
            stream=body.get("stream") is True,
            system=_system(body.get("system")),
            tools=tuple(
                t["name"]
                for t in (tools if isinstance(tools, list) else ())
                if isinstance(t, dict) and isinstance(t.get("name"), str)
            ),
            thinking=_thinking(body.get("thinking")),
            max_tokens=values.integer(body.get("max_tokens")),
            messages=tuple(messages),
            locations=tuple(locations),
            raw=body,
            betas=tuple(b.strip() for b in beta.split(",") if b.strip()),
        )

    # ------------------------------------------------------------ rules

    def validate(self, view: RequestView, context: ValidationContext) -> list[RuleViolation]:
        raw_messages = view.raw.get("messages")
        messages = raw_messages if isinstance(raw_messages, list) else []
        check = _Check(view, context, tuple(_Raw.of(i, m) for i, m in enumerate(messages)))
        return [violation for run in CHECKS for violation in run(check)]

    # ------------------------------------------------------------ realism (lint)

    def realism(self, case: Case, dialect: str | None = None) -> list[str]:
        problems: list[str] = []
        for t, turn in enumerate(case.given.turns):
            for r, response in enumerate(turn.responses):
                where = f"turns.{t}.responses.{r}"
                if response.stop == "cancelled":
                    problems.append(f"{where}: stop `cancelled`; Anthropic has no such stop_reason")
                truncated = response.stop in TRUNCATED_STOPS
                for b, block in enumerate(response.blocks):
                    last = b == len(response.blocks) - 1
                    problems += [
                        f"{where}.blocks.{b}: {p}"
                        for p in _block_problems(
                            block, scripted=True, truncated=truncated, last=last
                        )
                    ]
        for m, message in enumerate(case.given.history):
            if message.role != "assistant":
                continue
            for b, saved in enumerate(message.blocks):
                if getattr(saved, "origin", None) is None:
                    problems += [
                        f"history.{m}.blocks.{b}: {p}"
                        for p in _block_problems(saved, scripted=False, truncated=False, last=False)
                    ]
        return problems
