"""The OpenAI Chat Completions wire for the reference adapter, with its dialects.

One codec serves plain Chat, ``deepseek``, ``kimi``, ``openrouter``, ``gemini`` and
``ollama``; the brief's dialect picks where reasoning lives:

* plain, ``gemini``, ``ollama`` — nowhere: reasoning is neither read nor sent;
* ``deepseek``, ``kimi`` — ``delta.reasoning_content``, accumulated; sent back on every
  assistant message with ``tool_calls``, ``""`` when none was captured (rules 35, 36).
  On other assistant messages it is left out: the provider ignores it there (rule 35,
  F1), and never sending it keeps each request's prefix byte-stable all the same (rule 53);
* ``openrouter`` — ``delta.reasoning_details``, the whole array accumulated across
  deltas (rule 37): details with one ``index`` are one episode (a signature-only detail
  included), and the episode ends when another index, text or a call arrives.  Each
  episode is sent back as one detail, byte-exact, with the ``format`` its token came
  with; a text detail whose signature never arrived is not (the upstream would reject
  it, rule 3).

On ``gemini`` a call's thought signature arrives in ``extra_content.google`` of its
tool call and goes back there, byte-exact (rule 47).

Decoding: tool-call fragments are reassembled by ``index``; a new ``id`` at an index
already in use starts a new call (rule 31, the Ollama quirk).  ``finish_reason`` comes
on the last chunk; a stream without it is a cut.  A call whose arguments do not parse
under ``finish_reason: tool_calls`` is a truncated call (rule 33, settled in ``turns``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from conformance._reference.codec import Decoded, ProviderError, UnsupportedBlock, WireCodec
from conformance._reference.fragments import (
    BlockEnd,
    CallArguments,
    CallStart,
    Fragment,
    Key,
    ReasoningPiece,
    RedactedPiece,
    TextPiece,
)
from conformance._reference.guards import Guards
from conformance._reference.outbound import (
    calls_of,
    data_url,
    result_text,
    sendable,
    skips,
    split_system,
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

DEEPSEEK = "deepseek"
KIMI = "kimi"
OPENROUTER = "openrouter"
GEMINI = "gemini"
#: Dialects that carry reasoning as ``reasoning_content`` text.
REASONING_CONTENT = frozenset({DEEPSEEK, KIMI})
#: OpenRouter's budget when manual thinking names none.
DEFAULT_BUDGET = 1024

_FINISH: Mapping[str, Stop] = {
    "stop": "end",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "max_tokens",
    "content_filter": "refusal",
}


class OpenAIChatCodec(WireCodec):
    """Chat Completions: ``POST /v1/chat/completions``, streamed."""

    wire = "openai-chat"

    def __init__(self, brief: CaseBrief, guards: Guards) -> None:
        super().__init__(brief, guards)
        #: The ``format`` of each OpenRouter reasoning token this session received.
        self._formats: dict[str, str] = {}

    # ------------------------------------------------------------ decoding

    def decode(self, response: WireResponse) -> Decoded:
        if not 200 <= response.status < 300:
            raise ProviderError(response.status, response.body.decode(errors="replace"))
        chunks = _Chunks(self.brief.dialect, self._formats, self.guards)
        if not response.streaming:
            choice = _first_choice(response.json())
            message = choice.get("message") or {}
            chunks.delta(message, whole=True)
            finish = choice.get("finish_reason")
            return chunks.decoded(_FINISH.get(finish or "", "end"), ended=True)
        finish = None
        for sse in events(response.body):
            chunk = sse.json
            if sse.data.strip() == "[DONE]":
                break
            if chunk is None:
                continue
            if "error" in chunk:
                finish = None  # a mid-stream error: the turn was cut
                break
            choice = _first_choice(chunk)
            chunks.delta(choice.get("delta") or {}, whole=False)
            finish = choice.get("finish_reason") or finish
        if finish is None:
            return chunks.decoded("no_finish", ended=False)
        return chunks.decoded(_FINISH.get(finish, "end"), ended=True)

    def recovered_call_id(self, number: int) -> str:
        return f"call_recovered_{number}"

    # ------------------------------------------------------------ requests

    def missing_token(self, block: Reasoning) -> bool:
        """OpenRouter hands reasoning back to the upstream that minted it, which checks
        its token: behind an Anthropic model a text detail needs its signature (thinking
        without one is rejected, rule 3); behind a Google model thought text is never
        signed and goes back as it came (rule 37: the whole array, unmodified).  An
        encrypted detail needs its data; a summary needs nothing; the other dialects
        send no tokens at all."""
        if self.brief.dialect != OPENROUTER:
            return False
        if block.redacted:
            return not block.data
        google_upstream = self.brief.model.startswith("google/")
        return not block.signature and not block.summary and not google_upstream

    def request(self, history: Sequence[Message]) -> WireRequest:
        system, conversation = split_system(self.brief, history)
        messages: list[dict[str, Any]] = []
        if system is not None:
            messages.append({"role": "system", "content": system})
        for message in conversation:
            blocks = sendable(self, message)
            if message.role == "assistant":
                rendered = self._assistant(self.arrange(blocks, repair=False))
                if rendered is not None:
                    messages.append(rendered)
            elif message.role == "tool":
                messages.extend(_tool_message(b) for b in blocks)
            elif blocks:
                messages.append({"role": message.role, "content": _content(blocks)})
        return WireRequest(body=self._body(messages), path="/v1/chat/completions")

    def _assistant(self, blocks: tuple[Block, ...]) -> dict[str, Any] | None:
        """One assistant message, or ``None`` when nothing in it can be sent."""
        text = "".join(b.text for b in blocks if isinstance(b, Text))
        calls = calls_of(blocks)
        for block in blocks:
            if isinstance(block, Media | ToolResult):
                raise UnsupportedBlock(f"an assistant message cannot carry a {block.kind} block")
        if skips(not text and not calls, self.guards):
            return None
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = [_tool_call(c) for c in calls]
        reasoning = [b for b in blocks if isinstance(b, Reasoning)]
        if calls and self.brief.dialect == GEMINI:
            message["tool_calls"] = [self._gemini_call(c) for c in calls]
        if self.brief.dialect in REASONING_CONTENT:
            if calls and self.guards.on("reasoning-content-on-tool-turns"):
                message["reasoning_content"] = "".join(r.text for r in reasoning)
        elif self.brief.dialect == OPENROUTER and reasoning:
            message["reasoning_details"] = [
                self._detail(r, index) for index, r in enumerate(reasoning)
            ]
        return message

    def _gemini_call(self, call: ToolCall) -> dict[str, Any]:
        """A call on Gemini's endpoint, its thought signature in ``extra_content``."""
        rendered = _tool_call(call)
        if call.signature and self.guards.on("call-signature-in-extra-content"):
            rendered["extra_content"] = {"google": {"thought_signature": call.signature}}
        return rendered

    def _detail(self, block: Reasoning, index: int) -> dict[str, Any]:
        """One OpenRouter reasoning detail, as the stream delivered it merged (rule 37)."""
        detail: dict[str, Any]
        if block.redacted:
            detail = {"type": "reasoning.encrypted", "data": block.data}
        elif block.summary and not block.text:
            detail = {"type": "reasoning.summary", "summary": "".join(block.summary)}
        else:
            detail = {"type": "reasoning.text", "text": block.text}
            if block.signature is not None:
                detail["signature"] = block.signature
        if block.id is not None:
            detail["id"] = block.id
        token = block.data if block.redacted else block.signature
        if token and token in self._formats:
            detail["format"] = self._formats[token]
        detail["index"] = index
        return detail

    def _body(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        brief = self.brief
        body: dict[str, Any] = {"model": brief.model, "messages": messages}
        if brief.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": dict(t.parameters),
                    },
                }
                for t in brief.tools
            ]
        if brief.dialect is None:
            body["max_completion_tokens"] = brief.max_tokens
        else:
            body["max_tokens"] = brief.max_tokens
        thinking = brief.thinking
        if brief.dialect in REASONING_CONTENT and thinking.mode != "off":
            body["thinking"] = {"type": "enabled"}
        elif brief.dialect == GEMINI and thinking.mode != "off":
            body["reasoning_effort"] = "high"
        elif brief.dialect == OPENROUTER and thinking.mode == "manual":
            body["reasoning"] = {"max_tokens": thinking.budget_tokens or DEFAULT_BUDGET}
        elif brief.dialect == OPENROUTER and thinking.mode == "adaptive":
            body["reasoning"] = {"enabled": True}
        if brief.tool_choice is not None and brief.tools:
            body["tool_choice"] = _tool_choice(brief.tool_choice)
        body["stream"] = True
        return body


# ---------------------------------------------------------------- rendering


def _tool_call(call: ToolCall) -> dict[str, Any]:
    arguments = (
        call.arguments
        if isinstance(call.arguments, str)
        else json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))
    )
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def _tool_message(block: Block) -> dict[str, Any]:
    if not isinstance(block, ToolResult):
        raise UnsupportedBlock(f"a tool message cannot carry a {block.kind} block")
    return {"role": "tool", "tool_call_id": block.call_id, "content": result_text(block)}


def _content(blocks: tuple[Block, ...]) -> str | list[dict[str, Any]]:
    """A user or system message's content: a string when it is one text."""
    if len(blocks) == 1 and isinstance(blocks[0], Text):
        return blocks[0].text
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, Text):
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, Media) and block.mime.startswith("image/"):
            parts.append({"type": "image_url", "image_url": {"url": data_url(block)}})
        else:
            raise UnsupportedBlock(f"a {block.kind} block has no Chat content part here")
    return parts


# ---------------------------------------------------------------- decoding


def _first_choice(body: Mapping[str, Any]) -> Mapping[str, Any]:
    for choice in body.get("choices") or ():
        if isinstance(choice, dict) and choice.get("index", 0) == 0:
            return choice
    return {}


class _Chunks:
    """Deltas (or one whole message) -> fragments, for one dialect."""

    def __init__(self, dialect: str | None, formats: dict[str, str], guards: Guards) -> None:
        self._dialect = dialect
        self._formats = formats
        self._guards = guards
        self.fragments: list[Fragment] = []
        self._calls: dict[int, tuple[Key, str]] = {}  # index -> (key, id) of its call
        self._started = 0
        self._detail: Key | None = None  # the OpenRouter episode being received
        self._summary: list[str] = []

    def delta(self, delta: Mapping[str, Any], whole: bool) -> None:
        """One delta, or one whole message (whose calls each arrive in one piece)."""
        if self._dialect in REASONING_CONTENT and delta.get("reasoning_content"):
            self.fragments.append(ReasoningPiece("reasoning", text=delta["reasoning_content"]))
        elif self._dialect == OPENROUTER:
            for detail in delta.get("reasoning_details") or ():
                if isinstance(detail, dict):
                    self._reasoning_detail(detail)
        if delta.get("content"):
            self._end_detail()
            self.fragments.append(TextPiece("content", delta["content"]))
        for position, call in enumerate(delta.get("tool_calls") or ()):
            if isinstance(call, dict):
                self._end_detail()
                self._call(position if whole else call.get("index", 0), call)

    def _reasoning_detail(self, detail: Mapping[str, Any]) -> None:
        key = f"detail{detail.get('index', 0)}"
        if key != self._detail:
            self._end_detail()
            self._detail = key
        kind = detail.get("type")
        token = ""
        if kind == "reasoning.text":
            token = detail.get("signature") or ""
            text = detail.get("text") or ""
            piece = ReasoningPiece(key, text=text, signature=token, id=detail.get("id") or "")
            self.fragments.append(piece)
        elif kind == "reasoning.encrypted":
            token = detail.get("data") or ""
            self.fragments.append(RedactedPiece(key, token, detail.get("id") or ""))
        elif kind == "reasoning.summary":
            self._summary.append(detail.get("summary") or "")
        if token and detail.get("format"):
            self._formats[token] = detail["format"]

    def _end_detail(self) -> None:
        """The OpenRouter episode being received is over: its summary, then its end."""
        if self._detail is None:
            return
        if self._summary:
            summary = ("".join(self._summary),)
            self.fragments.append(ReasoningPiece(self._detail, summary=summary))
            self._summary = []
        self.fragments.append(BlockEnd(self._detail))
        self._detail = None

    def _call(self, index: int, call: Mapping[str, Any]) -> None:
        function = call.get("function") or {}
        known = self._calls.get(index)
        call_id = call.get("id")
        fresh = bool(call_id) and known is not None and call_id != known[1]
        if known is None or (fresh and self._guards.on("new-id-starts-new-call")):
            key: Key = f"call{self._started}"
            self._started += 1
            self._calls[index] = (key, call_id or "")
            name = function.get("name") or ""
            signature = _extra_signature(call) if self._dialect == GEMINI else ""
            self.fragments.append(CallStart(key, call_id or "", name, signature=signature))
        key = self._calls[index][0]
        if function.get("arguments"):
            self.fragments.append(CallArguments(key, function["arguments"]))

    def decoded(self, stop: Stop, ended: bool) -> Decoded:
        self._end_detail()
        return Decoded(tuple(self.fragments), stop, ended)


def _extra_signature(call: Mapping[str, Any]) -> str:
    """The thought signature Gemini's endpoint puts on a call (rule 47), as sent."""
    extra = call.get("extra_content")
    google = extra.get("google") if isinstance(extra, dict) else None
    value = google.get("thought_signature") if isinstance(google, dict) else None
    return value if isinstance(value, str) else ""


def _tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    """Chat Completions' spelling: ``auto``, ``required``, ``none`` or a named function."""
    if choice.name is not None:
        return {"type": "function", "function": {"name": choice.name}}
    return "required" if choice.mode == "any" else choice.mode
