"""The OpenAI Responses wire for the reference adapter.

Decoding (rule 21–23, 29): the output is assembled from the item events, never
from ``response.completed.output`` alone (that is only a fallback for a stream that sent
no item events).  Each item becomes fragments when its ``output_item.done`` arrives —
the complete item, with its complete ``encrypted_content`` (rule 22) — followed by a
``BlockEnd``: every reasoning item is an episode of its own (§108).  An item the stream
never finished contributes what its deltas said, without a token and without a
``BlockEnd``.  ``response.incomplete`` is a clean terminal state (rule 29); a stream
without a terminal event, or ending in ``error`` / ``response.failed``, is a cut.

Requests replay the whole conversation as input items, statelessly, never by
``previous_response_id``: each stored assistant message becomes its output items in
order — reasoning ``{id, summary, encrypted_content}`` with ``summary: []`` kept
(rule 24), immediately followed by the item it produced (rule 26), messages and
``function_call`` items (``call_id``, no item id) — and tool messages become
``function_call_output`` items after their calls (rule 28).  Every reasoning item of the
history is kept, so the current tool loop's always are (rule 27).  A reasoning item is
sent by its id plus whatever the provider gave: with ``store`` true (the default) the id
refers to the stored item, with ``store: false`` only an item carrying its
``encrypted_content`` can be sent, and the request asks for it (rule 25).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance._reference.codec import Decoded, ProviderError, UnsupportedBlock, WireCodec
from conformance._reference.fragments import (
    BlockEnd,
    CallArguments,
    CallStart,
    Fragment,
    ReasoningPiece,
    TextPiece,
)
from conformance._reference.guards import Guards
from conformance._reference.outbound import (
    data_url,
    result_text,
    sendable,
    split_system,
    without_trailing_reasoning,
)
from conformance._reference.sse import events
from conformance._targets.api import CaseBrief, WireRequest, WireResponse
from conformance.vocabulary import (
    Block,
    Media,
    Message,
    Reasoning,
    Stop,
    Text,
    ToolCall,
    ToolChoice,
    ToolResult,
)

ENCRYPTED_CONTENT = "reasoning.encrypted_content"
_INCOMPLETE: Mapping[str, Stop] = {"max_output_tokens": "max_tokens", "content_filter": "refusal"}
_TERMINAL = frozenset({"response.completed", "response.incomplete"})


class OpenAIResponsesCodec(WireCodec):
    """OpenAI Responses: ``POST /v1/responses``, streamed."""

    wire = "openai-responses"
    reasoning_needs_follower = True

    def __init__(self, brief: CaseBrief, guards: Guards) -> None:
        super().__init__(brief, guards)
        #: Encrypted reasoning the provider said it cannot verify (rule 30).
        self._unverifiable: set[str] = set()

    # ------------------------------------------------------------ decoding

    def decode(self, response: WireResponse) -> Decoded:
        if not 200 <= response.status < 300:
            raise ProviderError(response.status, response.body.decode(errors="replace"))
        if response.streaming:
            return self._decode_stream(response.body)
        body = response.json()
        items = _Items(self.guards)
        for index, item in enumerate(body.get("output") or ()):
            items.whole(index, item, item.get("encrypted_content") or "")
        return items.decoded(body.get("status"), body.get("incomplete_details"))

    def _decode_stream(self, body: bytes) -> Decoded:
        items = _Items(self.guards)
        for sse in events(body):
            event = sse.json
            if event is None:
                continue
            kind = event.get("type") or sse.name
            if kind in _TERMINAL:
                final = event.get("response") or {}
                # Rule 23: the terminal output only as a fallback; one backend sends
                # ``output: []`` after streaming every item.
                if not items.seen or not self.guards.on("output-from-item-events"):
                    items = _Items(self.guards)
                    for index, item in enumerate(final.get("output") or ()):
                        items.whole(index, item, item.get("encrypted_content") or "")
                status = final.get("status") or kind.removeprefix("response.")
                return items.decoded(status, final.get("incomplete_details"))
            if kind in ("error", "response.failed"):
                break  # nothing after an error counts: the turn was cut
            items.event(kind, event)
        return items.cut()

    def recovered_call_id(self, number: int) -> str:
        return f"call_recovered_{number}"

    # ------------------------------------------------------------ requests

    def missing_token(self, block: Reasoning) -> bool:
        """An input reasoning item needs its id; without ``store`` the id refers to
        nothing, so it needs its encrypted_content too (rule 25).  A token the provider
        said it cannot verify is as good as none (rule 30)."""
        if block.signature is not None and block.signature in self._unverifiable:
            return True
        return block.id is None or (self.brief.store is False and not block.signature)

    def repairs(self, response: WireResponse, history: Sequence[Message]) -> bool:
        """Rule 30: ``invalid_encrypted_content`` -> leave out every reasoning item sent so
        far and retry once (pydantic-ai PR#5482); a second such answer is not retried."""
        if response.status != 400 or b"invalid_encrypted_content" not in response.body:
            return False
        tokens = {
            b.signature
            for m in history
            for b in m.blocks
            if isinstance(b, Reasoning) and b.signature is not None
        }
        fresh = tokens - self._unverifiable
        if not fresh or not self.guards.on("drop-unverifiable-reasoning"):
            return False
        self._unverifiable |= fresh
        return True

    def request(self, history: Sequence[Message]) -> WireRequest:
        system, conversation = split_system(self.brief, history)
        items: list[dict[str, Any]] = []
        for message in conversation:
            blocks = sendable(self, message)
            if message.role == "assistant":
                arranged = self.arrange(blocks, repair=False)
                items.extend(
                    _output_item(b) for b in without_trailing_reasoning(arranged, self.guards)
                )
            elif message.role == "tool":
                items.extend(_call_output(b) for b in blocks)
            elif blocks:
                content = [_input_part(b) for b in blocks]
                items.append({"type": "message", "role": message.role, "content": content})
        return WireRequest(body=self._body(system, items), path="/v1/responses")

    def _body(self, system: str | None, items: list[dict[str, Any]]) -> dict[str, Any]:
        brief = self.brief
        body: dict[str, Any] = {"model": brief.model}
        if system is not None:
            body["instructions"] = system
        body["input"] = items
        if brief.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.parameters),
                }
                for t in brief.tools
            ]
        if brief.thinking.mode != "off":
            body["reasoning"] = {"effort": "medium", "summary": "auto"}
        body["max_output_tokens"] = brief.max_tokens
        if brief.store is not None:
            body["store"] = brief.store
        include = list(brief.include or ())
        if (
            brief.store is False
            and ENCRYPTED_CONTENT not in include
            and self.guards.on("include-encrypted-content")
        ):
            include.append(ENCRYPTED_CONTENT)
        if include:
            body["include"] = include
        if brief.tool_choice is not None and brief.tools:
            body["tool_choice"] = _tool_choice(brief.tool_choice)
        body["stream"] = True
        return body


# ---------------------------------------------------------------- rendering


def _output_item(block: Block) -> dict[str, Any]:
    if isinstance(block, Reasoning):
        if block.redacted:
            raise UnsupportedBlock("a redacted reasoning block has no Responses item")
        item: dict[str, Any] = {
            "type": "reasoning",
            "id": block.id,
            "summary": [{"type": "summary_text", "text": s} for s in block.summary or ()],
        }
        if block.signature is not None:
            item["encrypted_content"] = block.signature
        return item
    if isinstance(block, Text):
        content = [{"type": "output_text", "text": block.text}]
        return {"type": "message", "role": "assistant", "content": content}
    if isinstance(block, ToolCall):
        return {
            "type": "function_call",
            "call_id": block.id,
            "name": block.name,
            "arguments": _arguments(block),
        }
    raise UnsupportedBlock(f"an assistant message cannot carry a {block.kind} block")


def _arguments(call: ToolCall) -> str:
    """The arguments as the JSON text the wire carries (raw text when never parsed)."""
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))


def _call_output(block: Block) -> dict[str, Any]:
    if not isinstance(block, ToolResult):
        raise UnsupportedBlock(f"a tool message cannot carry a {block.kind} block")
    return {"type": "function_call_output", "call_id": block.call_id, "output": result_text(block)}


def _input_part(block: Block) -> dict[str, Any]:
    if isinstance(block, Text):
        return {"type": "input_text", "text": block.text}
    if isinstance(block, Media) and block.mime.startswith("image/"):
        return {"type": "input_image", "image_url": data_url(block)}
    raise UnsupportedBlock(f"a {block.kind} block has no Responses input part here")


# ---------------------------------------------------------------- decoding


@dataclass
class _Pending:
    """An item between its ``output_item.added`` and its ``output_item.done``."""

    item: dict[str, Any]
    summary: list[str] = field(default_factory=list)
    text: str = ""
    arguments: str = ""


class _Items:
    """Output items -> fragments, one whole item at a time, in the order they finish."""

    def __init__(self, guards: Guards) -> None:
        self._guards = guards
        self._pending: dict[int, _Pending] = {}
        self.fragments: list[Fragment] = []
        self.seen = False
        self._calls = False
        self._refused = False

    def event(self, kind: str, event: Mapping[str, Any]) -> None:
        index = event.get("output_index", 0)
        if kind == "response.output_item.added":
            self.seen = True
            self._pending[index] = _Pending(dict(event.get("item") or {}))
            return
        if kind == "response.output_item.done":
            self.seen = True
            pending = self._pending.pop(index, None)
            item = event.get("item") or {}
            self.whole(index, item, self._encrypted(item, pending))
            return
        pending = self._pending.get(index)
        if pending is None:
            return
        if kind in (
            "response.reasoning_summary_part.added",
            "response.reasoning_summary_text.delta",
        ):
            part = event.get("summary_index", 0)
            pending.summary.extend("" for _ in range(part + 1 - len(pending.summary)))
            pending.summary[part] += event.get("delta") or ""
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            pending.text += event.get("delta") or ""
            self._refused = self._refused or kind == "response.refusal.delta"
        elif kind == "response.function_call_arguments.delta":
            pending.arguments += event.get("delta") or ""

    def _encrypted(self, done: Mapping[str, Any], pending: _Pending | None) -> str:
        """Rule 22: ``output_item.added`` may hold a truncated encrypted_content."""
        if self._guards.on("encrypted-content-from-done"):
            return done.get("encrypted_content") or ""
        return (pending.item.get("encrypted_content") or "") if pending else ""

    def whole(self, index: int, item: Mapping[str, Any], signature: str) -> None:
        """A complete item: its fragments, then the end of its block."""
        kind = item.get("type")
        if kind == "reasoning":
            summary = tuple(
                part.get("text") or ""
                for part in item.get("summary") or ()
                if isinstance(part, dict)
            )
            self.fragments.append(
                ReasoningPiece(index, id=item.get("id") or "", summary=summary, signature=signature)
            )
        elif kind == "message":
            self.fragments.append(TextPiece(index, self._message_text(item)))
        elif kind == "function_call":
            self._calls = True
            self.fragments.append(_call_start(index, item))
            self.fragments.append(CallArguments(index, item.get("arguments") or ""))
        else:
            return  # built-in tool calls and future item types have no neutral form
        self.fragments.append(BlockEnd(index))

    def _message_text(self, item: Mapping[str, Any]) -> str:
        texts: list[str] = []
        for part in item.get("content") or ():
            if part.get("type") == "refusal":
                self._refused = True
                texts.append(part.get("refusal") or "")
            else:
                texts.append(part.get("text") or "")
        return "".join(texts)

    def _partial(self, index: int, pending: _Pending) -> None:
        """An item the stream never finished: what its deltas said, with no token (the
        one ``output_item.added`` carried may be incomplete, rule 22) and no end."""
        item = pending.item
        kind = item.get("type")
        if kind == "reasoning":
            piece = ReasoningPiece(index, id=item.get("id") or "", summary=tuple(pending.summary))
            self.fragments.append(piece)
        elif kind == "message" and pending.text:
            self.fragments.append(TextPiece(index, pending.text))
        elif kind == "function_call":
            self.fragments.append(_call_start(index, item))
            self.fragments.append(CallArguments(index, pending.arguments))

    def _flush(self) -> None:
        for index, pending in sorted(self._pending.items()):
            self._partial(index, pending)
        self._pending.clear()

    def decoded(self, status: object, details: object) -> Decoded:
        """The turn after a terminal state: ``completed`` or ``incomplete`` (rule 29)."""
        self._flush()
        stop: Stop
        if status == "incomplete":
            reason = details.get("reason") if isinstance(details, dict) else None
            stop = _INCOMPLETE.get(str(reason), "max_tokens")
        elif status not in (None, "completed"):
            return Decoded(tuple(self.fragments), "no_finish", False)
        elif self._refused:
            stop = "refusal"
        else:
            stop = "tool_calls" if self._calls else "end"
        return Decoded(tuple(self.fragments), stop, True)

    def cut(self) -> Decoded:
        self._flush()
        return Decoded(tuple(self.fragments), "no_finish", False)


def _call_start(index: int, item: Mapping[str, Any]) -> CallStart:
    return CallStart(index, item.get("call_id") or "", item.get("name") or "")


def _tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    """Responses' spelling: ``auto``, ``required``, ``none`` or a named function."""
    if choice.name is not None:
        return {"type": "function", "name": choice.name}
    return "required" if choice.mode == "any" else choice.mode
