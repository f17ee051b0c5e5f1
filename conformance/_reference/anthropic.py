"""The Anthropic Messages wire for the reference adapter.

Decoding: SSE events (parsed with httpx-sse) or a JSON message become neutral fragments;
``ping`` and unknown event, block and delta types are tolerated (rule 1); a
stream without ``message_stop``, or with an ``error`` event, is a ``no_finish`` cut.

Requests are built from the replayable history in passes, each on neutral messages:

1. per message, keep what may be sent (``outbound.sendable``): reasoning needs its
   signature, or its data when redacted (rules 3, 5); anything without a Messages
   representation raises ``UnsupportedBlock`` (seed §7);
2. user input left empty is dropped (rule 15);
3. adjacent assistant messages are concatenated in order, never hoisted (seed §84);
   tool results open the user message that follows them (rule 13);
4. manual thinking: each tool-use message leads with its first thinking run (rule 6);
5. no assistant message ends with reasoning (rule 9): trailing reasoning is omitted
   after step 4, so a run that step 4 moved to the front is never lost (seed §95); a
   message without a tool_use that lost signed thinking that way sends no thinking at
   all, since a latest message's thinking is sent unchanged or not at all (rule 7);
6. an assistant message left empty is not sent (rule 15, seed §165).

Adjacent user prompts are not merged (the API joins consecutive turns itself), so a
request never rewrites a message the previous request already sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from conformance._reference.codec import Decoded, ProviderError, UnsupportedBlock, WireCodec
from conformance._reference.fragments import (
    BlockEnd,
    CallArguments,
    CallStart,
    Fragment,
    ReasoningPiece,
    RedactedPiece,
    ServerBlock,
    TextPiece,
)
from conformance._reference.outbound import (
    merge_turns,
    no_inner_system,
    sendable,
    skips,
    split_system,
    without_trailing_reasoning,
)
from conformance._reference.sse import events
from conformance._targets.api import WireRequest, WireResponse
from conformance.vocabulary import (
    Block,
    Media,
    Message,
    Reasoning,
    ServerToolResult,
    ServerToolUse,
    Stop,
    Text,
    ToolCall,
    ToolChoice,
    ToolResult,
)

API_VERSION = "2023-06-01"
INTERLEAVED_BETA = "interleaved-thinking-2025-05-14"
#: Budget for manual thinking when the brief names none (the API's minimum).
DEFAULT_BUDGET = 1024

_STOPS: Mapping[str, Stop] = {
    "end_turn": "end",
    "stop_sequence": "end",
    "tool_use": "tool_calls",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "refusal": "refusal",
    "pause_turn": "pause",
}
_DOCUMENT_TYPES = frozenset({"application/pdf"})

IsThinking = Callable[[Block], bool]


class AnthropicCodec(WireCodec):
    """Anthropic Messages: ``POST /v1/messages``, streamed."""

    wire = "anthropic-messages"

    # ------------------------------------------------------------ decoding

    def decode(self, response: WireResponse) -> Decoded:
        if not 200 <= response.status < 300:
            raise ProviderError(response.status, response.body.decode(errors="replace"))
        if response.streaming:
            return _decode_stream(response.body)
        return _decode_message(response.json())

    def recovered_call_id(self, number: int) -> str:
        return f"toolu_recovered_{number}"

    # ------------------------------------------------------------ requests

    def missing_token(self, block: Reasoning) -> bool:
        return not _token(block)

    def request(self, history: Sequence[Message]) -> WireRequest:
        system, conversation = split_system(self.brief, history)
        no_inner_system(conversation)
        kept = [Message(role=m.role, blocks=self._sendable(m)) for m in conversation]
        merged = merge_turns([m for m in kept if m.blocks or m.role == "assistant"])
        tool_turns = [i for i, m in enumerate(merged) if _has_call(m)]
        latest = tool_turns[-1] if tool_turns else None
        messages: list[Message] = []
        for i, message in enumerate(merged):
            if message.role == "assistant":
                message = self._final_shape(message, latest=i == latest)
                if skips(not message.blocks, self.guards):
                    continue
            messages.append(message)
        prefill = self._prefill(messages)
        if prefill is not None:
            messages.append(Message(role="assistant", blocks=(Text(text=prefill),)))
        return WireRequest(
            body=self._body(system, messages), headers=self._headers(), path="/v1/messages"
        )

    def arrange(self, blocks: tuple[Block, ...], repair: bool) -> tuple[Block, ...]:
        """The order of an assistant message's blocks.  ``repair``: manual thinking and
        the message carries a tool_use, so it must lead with thinking (rule 6)."""
        if not repair:
            return blocks
        if self.guards.on("leading-thinking-first-run"):
            return first_run_to_front(blocks, self._is_thinking)
        return all_to_front(blocks, self._is_thinking)

    def _final_shape(self, message: Message, latest: bool) -> Message:
        repair = (
            self.brief.thinking.mode == "manual"
            and _has_call(message)
            and (latest or self.guards.on("leading-thinking-every-tool-turn"))
        )
        arranged = self.arrange(message.blocks, repair)
        blocks = without_trailing_reasoning(arranged, self.guards)
        if len(blocks) < len(arranged) and not _has_call(message):
            blocks = self._all_thinking_or_none(blocks)
        return Message(role="assistant", blocks=blocks)

    def _all_thinking_or_none(self, blocks: tuple[Block, ...]) -> tuple[Block, ...]:
        """Step 5b: signed thinking dropped from the end of a message without a tool_use
        takes the message's other thinking with it.  Anthropic refuses a latest assistant
        message whose thinking was changed (rule 7) and accepts one that has none (thinking
        of a finished turn may be omitted); outside a tool loop nothing needs it first."""
        if self.guards.on("all-thinking-or-none"):
            return tuple(b for b in blocks if not isinstance(b, Reasoning))
        return blocks

    def _is_thinking(self, block: Block) -> bool:
        """Thinking for the leading-thinking rule; redacted_thinking counts (§96)."""
        if not isinstance(block, Reasoning):
            return False
        return not block.redacted or self.guards.on("leading-thinking-redacted-counts")

    def _sendable(self, message: Message) -> tuple[Block, ...]:
        """Step 1: the blocks of one stored message this wire may carry."""
        kept = sendable(self, message)
        if message.role == "assistant":
            for block in kept:
                if isinstance(block, Media | ToolResult):
                    raise UnsupportedBlock(
                        f"an assistant message cannot carry a {block.kind} block"
                    )
        return kept

    def _body(self, system: str | None, messages: Sequence[Message]) -> dict[str, Any]:
        brief = self.brief
        body: dict[str, Any] = {
            "model": brief.model,
            "max_tokens": brief.max_tokens,
            "stream": True,
        }
        if system is not None:
            body["system"] = system
        if brief.tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
                for t in brief.tools
            ]
        if self._thinking_type() == "enabled":
            budget = brief.thinking.budget_tokens or DEFAULT_BUDGET
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        elif self._thinking_type() == "adaptive":
            body["thinking"] = {"type": "adaptive"}
        if brief.tool_choice is not None and brief.tools:
            body["tool_choice"] = self._tool_choice(brief.tool_choice)
        body["messages"] = [
            {"role": m.role, "content": [_render(b) for b in m.blocks]} for m in messages
        ]
        return body

    def _prefill(self, messages: Sequence[Message]) -> str | None:
        """The assistant prefill that ends a turn's first request (the request ends on the
        user's prompt): none while thinking is on, never ending in whitespace (rule 10)."""
        text, last = self.brief.prefill, messages[-1] if messages else None
        if text is None or last is None or last.role != "user":
            return None
        if any(isinstance(b, ToolResult) for b in last.blocks):
            return None
        if self._thinking_type() is not None and self.guards.on("no-prefill-with-thinking"):
            return None
        if self.guards.on("prefill-no-trailing-whitespace"):
            text = text.rstrip()
        return text or None

    def _tool_choice(self, choice: ToolChoice) -> dict[str, str]:
        """The brief's tool choice; with manual thinking a forced one (``any``, a named
        tool) becomes ``auto``, the only forcing-free choice that keeps both the thinking
        configuration of the loop (rule 12) and the tools (rule 11)."""
        forced = choice.mode in ("any", "tool") and self._thinking_type() == "enabled"
        if forced and self.guards.on("forced-tool-choice-auto-with-thinking"):
            return {"type": "auto"}
        if choice.name is not None:
            return {"type": "tool", "name": choice.name}
        return {"type": choice.mode}

    def _thinking_type(self) -> str | None:
        """The ``thinking.type`` this model takes for the brief's mode: a manual budget
        becomes adaptive on the models that refuse ``enabled`` (rule 12b)."""
        mode = self.brief.thinking.mode
        refused = mode == "manual" and _adaptive_only(self.brief.model)
        if refused and self.guards.on("adaptive-thinking-on-new-models"):
            return "adaptive"
        return {"manual": "enabled", "adaptive": "adaptive"}.get(mode)

    def _headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json", "anthropic-version": API_VERSION}
        betas = self.brief.betas if self.guards.on("configured-betas-every-request") else ()
        if self._thinking_type() == "adaptive":  # rule 12d: not for adaptive models
            betas = tuple(beta for beta in betas if beta != INTERLEAVED_BETA)
        if betas:
            headers["anthropic-beta"] = ",".join(betas)
        return headers


# ---------------------------------------------------------------- block order


def _adaptive_only(model: str) -> bool:
    """Claude 4.7 and later (``claude-opus-4-7``, ``claude-sonnet-5``…) take only adaptive
    thinking; a name this does not recognise is not assumed to."""
    match = re.fullmatch(r"claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?", model)
    return match is not None and (int(match[1]), int(match[2] or 0)) >= (4, 7)


def first_run_to_front(blocks: tuple[Block, ...], is_thinking: IsThinking) -> tuple[Block, ...]:
    """Move only the first contiguous run of thinking to the front, as one unit (§88,
    §89); with no thinking at all nothing changes and nothing is invented (§93)."""
    start = next((i for i, b in enumerate(blocks) if is_thinking(b)), None)
    if start is None:
        return blocks
    end = start
    while end < len(blocks) and is_thinking(blocks[end]):
        end += 1
    return (*blocks[start:end], *blocks[:start], *blocks[end:])


def all_to_front(blocks: tuple[Block, ...], is_thinking: IsThinking) -> tuple[Block, ...]:
    """Hoist every thinking block to the front (the pre-fix merge, seed §84 base)."""
    return (
        *(b for b in blocks if is_thinking(b)),
        *(b for b in blocks if not is_thinking(b)),
    )


def _has_call(message: Message) -> bool:
    return any(isinstance(b, ToolCall) for b in message.blocks)


def _token(block: Reasoning) -> str | None:
    """The replay token a reasoning block needs on this wire (rule 3, rule 5)."""
    return block.data if block.redacted else block.signature


# ---------------------------------------------------------------- rendering


def _render(block: Block) -> dict[str, Any]:
    if isinstance(block, Reasoning):
        if block.redacted:
            return {"type": "redacted_thinking", **_present(data=block.data)}
        # The thinking key is always sent, even for "" (rule 4).
        return {"type": "thinking", "thinking": block.text, **_present(signature=block.signature)}
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolCall):
        if not isinstance(block.arguments, dict):
            raise UnsupportedBlock(
                f"tool call {block.id} has unparsed arguments; tool_use.input is an object"
            )
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.arguments}
    if isinstance(block, Media):
        return _media(block)
    if isinstance(block, ServerToolUse):
        return {
            "type": "server_tool_use",
            "id": block.id,
            "name": block.name,
            "input": block.arguments,
        }
    if isinstance(block, ServerToolResult):
        return {"type": block.type, "tool_use_id": block.call_id, "content": block.content}
    content: str | list[dict[str, Any]] = (
        block.content if isinstance(block.content, str) else [_render(b) for b in block.content]
    )
    result: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": block.call_id,
        "content": content,
    }
    if block.is_error:
        result["is_error"] = True
    return result


def _media(block: Media) -> dict[str, Any]:
    source = {"type": "base64", "media_type": block.mime, "data": block.data}
    if block.mime.startswith("image/"):
        return {"type": "image", "source": source}
    if block.mime in _DOCUMENT_TYPES:
        return {"type": "document", "source": source}
    raise UnsupportedBlock(f"media of type {block.mime} has no Messages block")


def _present(**fields: str | None) -> dict[str, str]:
    return {k: v for k, v in fields.items() if v is not None}


# ---------------------------------------------------------------- decoding


def _decode_stream(body: bytes) -> Decoded:
    fragments: list[Fragment] = []
    stop_reason: str | None = None
    ended = False
    servers: dict[int, tuple[Mapping[str, Any], list[str]]] = {}  # open server_tool_use
    for sse in events(body):
        event = sse.json
        if event is None:
            continue
        kind = event.get("type", sse.name)
        index = event.get("index", 0)
        if kind == "content_block_start":
            block = event.get("content_block", {})
            if block.get("type") == "server_tool_use":
                servers[index] = (block, [])  # its input arrives as input_json_delta
            else:
                fragments.extend(_block(index, block))
        elif kind == "content_block_delta" and index in servers:
            servers[index][1].append(event.get("delta", {}).get("partial_json") or "")
        elif kind == "content_block_delta":
            fragments.extend(_delta(index, event.get("delta", {})))
        elif kind == "content_block_stop":
            if index in servers:
                opened, parts = servers.pop(index)
                fragments.append(ServerBlock(index, _server_use(opened, "".join(parts))))
            fragments.append(BlockEnd(index))
        elif kind == "message_delta":
            stop_reason = event.get("delta", {}).get("stop_reason") or stop_reason
        elif kind == "message_stop":
            ended = True
        elif kind == "error":
            break  # a mid-stream error ends the stream: nothing after it counts
    stop: Stop = _STOPS.get(stop_reason or "", "end") if ended else "no_finish"
    return Decoded(tuple(fragments), stop, ended)


def _decode_message(message: Mapping[str, Any]) -> Decoded:
    fragments: list[Fragment] = []
    for index, block in enumerate(message.get("content") or ()):
        fragments.extend(_block(index, block))
        fragments.append(BlockEnd(index))
    stop = _STOPS.get(message.get("stop_reason") or "", "end")
    return Decoded(tuple(fragments), stop, True)


def _block(index: int, block: Mapping[str, Any]) -> list[Fragment]:
    """The fragments a content block opens with (a whole block in a JSON message)."""
    kind = block.get("type")
    if kind == "thinking":
        text, signature = block.get("thinking") or "", block.get("signature") or ""
        return [ReasoningPiece(index, text=text, signature=signature)]
    if kind == "redacted_thinking":
        return [RedactedPiece(index, block.get("data") or "")]
    if kind == "text":
        return [TextPiece(index, block.get("text") or "")]
    if kind == "tool_use":
        announced = block.get("input")
        arguments = announced if isinstance(announced, dict) else {}
        return [CallStart(index, block.get("id", ""), block.get("name", ""), arguments)]
    if kind == "server_tool_use":  # a whole block (a JSON message)
        return [ServerBlock(index, _server_use(block, ""))]
    if isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result":
        result = ServerToolResult(
            call_id=block.get("tool_use_id") or "", type=kind, content=block.get("content")
        )
        return [ServerBlock(index, result)]
    return []  # future block types have no neutral form


def _server_use(block: Mapping[str, Any], streamed: str) -> ServerToolUse:
    """A ``server_tool_use`` block, its input from the stream's deltas when there were
    any (rule 2: parsed once complete), else as announced."""
    arguments = block.get("input")
    if streamed:
        try:
            arguments = json.loads(streamed)
        except ValueError:
            arguments = {}
    return ServerToolUse(
        id=block.get("id") or "",
        name=block.get("name") or "",
        arguments=arguments if isinstance(arguments, dict) else {},
    )


def _delta(index: int, delta: Mapping[str, Any]) -> list[Fragment]:
    kind = delta.get("type")
    if kind == "thinking_delta":
        return [ReasoningPiece(index, text=delta.get("thinking") or "")]
    if kind == "signature_delta":
        return [ReasoningPiece(index, signature=delta.get("signature") or "")]
    if kind == "text_delta":
        return [TextPiece(index, delta.get("text") or "")]
    if kind == "input_json_delta":
        return [CallArguments(index, delta.get("partial_json") or "")]
    return []  # citations and future delta types
