"""Hand-written OpenAI Responses, Chat Completions and Gemini streams for the reference
adapter's tests.

Deliberately independent of the suite's wire modules: these bytes are written from the
providers' streaming documentation (wire-rules 21–23, 31, 37, 43, 48), so the reference
is not tested against the renderers it is meant to cross-check.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from conformance._targets.api import CaseBrief, ToolDef, WireResponse
from conformance.vocabulary import Message, ThinkingConfig

from .sse_streams import READ_FILE, session

ADAPTIVE = ThinkingConfig(mode="adaptive")
FORMAT = "anthropic-claude-v1"


def wire_session(
    wire: str,
    *prompts: str,
    dialect: str | None = None,
    store: bool | None = None,
    history: tuple[Message, ...] = (),
    thinking: ThinkingConfig = ADAPTIVE,
    model: str = "model-under-test",
    tools: tuple[ToolDef, ...] = (READ_FILE,),
) -> CaseBrief:
    base = session(*prompts, thinking=thinking, history=history, tools=tools)
    return replace(base, wire=wire, dialect=dialect, store=store, model=model)


def sse(body: bytes) -> WireResponse:
    return WireResponse(200, {"content-type": "text/event-stream"}, body)


def json_response(body: Any) -> WireResponse:
    return WireResponse(200, {"content-type": "application/json"}, json.dumps(body).encode())


def _data(payload: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload, separators=(',', ':'))}\n\n".encode()


# ---------------------------------------------------------------- Responses


class ResponsesStream:
    """One Responses stream, item by item, as ``response.*`` events."""

    def __init__(self) -> None:
        self.events: list[bytes] = []
        self.output: list[dict[str, Any]] = []
        self.index = 0
        self.event("response.created", response={"id": "resp_1", "status": "in_progress"})

    def event(self, kind: str, **fields: Any) -> ResponsesStream:
        payload = {"type": kind, "sequence_number": len(self.events), **fields}
        self.events.append(_data(payload, kind))
        return self

    def added(self, item: dict[str, Any]) -> ResponsesStream:
        return self.event("response.output_item.added", output_index=self.index, item=item)

    def done(self, item: dict[str, Any]) -> ResponsesStream:
        self.event("response.output_item.done", output_index=self.index, item=item)
        self.output.append(item)
        self.index += 1
        return self

    def reasoning(
        self,
        id: str,
        *summary: str,
        encrypted: str | None = None,
        added_encrypted: str | None = None,
        finish: bool = True,
    ) -> ResponsesStream:
        start: dict[str, Any] = {"type": "reasoning", "id": id, "summary": []}
        start["encrypted_content"] = added_encrypted
        self.added(start)
        for number, text in enumerate(summary):
            part = {"output_index": self.index, "summary_index": number}
            self.event("response.reasoning_summary_part.added", **part)
            self.event("response.reasoning_summary_text.delta", delta=text, **part)
        if not finish:
            return self
        parts = [{"type": "summary_text", "text": s} for s in summary]
        item = {"type": "reasoning", "id": id, "summary": parts, "encrypted_content": encrypted}
        return self.done(item)

    def message(self, *chunks: str, refusal: bool = False, finish: bool = True) -> ResponsesStream:
        id = f"msg_{self.index}"
        self.added({"type": "message", "id": id, "role": "assistant", "content": []})
        kind = "response.refusal.delta" if refusal else "response.output_text.delta"
        for chunk in chunks:
            self.event(kind, output_index=self.index, content_index=0, delta=chunk)
        if not finish:
            return self
        text = "".join(chunks)
        part = (
            {"type": "refusal", "refusal": text}
            if refusal
            else {"type": "output_text", "text": text, "annotations": []}
        )
        item = {"type": "message", "id": id, "role": "assistant", "content": [part]}
        return self.done(item)

    def call(self, call_id: str, name: str, *chunks: str, finish: bool = True) -> ResponsesStream:
        item = {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name}
        self.added({**item, "arguments": ""})
        for chunk in chunks:
            kind = "response.function_call_arguments.delta"
            self.event(kind, output_index=self.index, delta=chunk)
        if not finish:
            return self
        return self.done({**item, "arguments": "".join(chunks), "status": "completed"})

    def completed(self, output: list[dict[str, Any]] | None = None) -> WireResponse:
        response = {"status": "completed", "output": self.output if output is None else output}
        return self.event("response.completed", response=response).cut()

    def incomplete(self, reason: str = "max_output_tokens") -> WireResponse:
        response = {
            "status": "incomplete",
            "incomplete_details": {"reason": reason},
            "output": self.output,
        }
        return self.event("response.incomplete", response=response).cut()

    def cut(self) -> WireResponse:
        return sse(b"".join(self.events))


# ---------------------------------------------------------------- Chat Completions


class ChatStream:
    """One Chat Completions stream: data-only chunks, then ``[DONE]``."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.delta(role="assistant")

    def delta(self, finish: str | None = None, **delta: Any) -> ChatStream:
        chunk = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "model-under-test",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        self.chunks.append(_data(chunk))
        return self

    def reasoning_content(self, *chunks: str) -> ChatStream:
        for chunk in chunks:
            self.delta(content=None, reasoning_content=chunk)
        return self

    def details(self, *details: dict[str, Any]) -> ChatStream:
        for detail in details:
            self.delta(reasoning_details=[detail])
        return self

    def content(self, *chunks: str) -> ChatStream:
        for chunk in chunks:
            self.delta(content=chunk)
        return self

    def call(
        self, index: int, id: str | None, name: str | None = None, args: str = ""
    ) -> ChatStream:
        fragment: dict[str, Any] = {"index": index, "function": {"arguments": args}}
        if id is not None:
            fragment = {**fragment, "id": id, "type": "function"}
            fragment["function"] = {"name": name, "arguments": args}
        return self.delta(tool_calls=[fragment])

    def finish(self, reason: str = "stop") -> WireResponse:
        self.delta(finish=reason)
        self.chunks.append(b"data: [DONE]\n\n")
        return self.cut()

    def cut(self) -> WireResponse:
        return sse(b"".join(self.chunks))


def text_detail(text: str = "", signature: str | None = None, index: int = 0) -> dict[str, Any]:
    """An OpenRouter ``reasoning.text`` detail (a signature-only one when text is "")."""
    detail: dict[str, Any] = {"type": "reasoning.text", "index": index, "format": FORMAT}
    if text:
        detail["text"] = text
    if signature is not None:
        detail["signature"] = signature
    return detail


# ---------------------------------------------------------------- Gemini


class GeminiStream:
    """One ``streamGenerateContent?alt=sse`` stream: one part per chunk."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def chunk(self, *parts: dict[str, Any], finish: str | None = None) -> GeminiStream:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
        if finish is not None:
            candidate["finishReason"] = finish
        self.chunks.append(_data({"candidates": [candidate], "modelVersion": "model-under-test"}))
        return self

    def thought(self, text: str, signature: str | None = None) -> GeminiStream:
        return self.chunk(_signed({"text": text, "thought": True}, signature))

    def text(self, text: str, signature: str | None = None) -> GeminiStream:
        return self.chunk(_signed({"text": text}, signature))

    def call(
        self, name: str, args: dict[str, Any], id: str | None = None, signature: str | None = None
    ) -> GeminiStream:
        call: dict[str, Any] = {"name": name, "args": args}
        if id is not None:
            call["id"] = id
        return self.chunk(_signed({"functionCall": call}, signature))

    def finish(self, reason: str = "STOP") -> WireResponse:
        return self.chunk(finish=reason).cut()

    def cut(self) -> WireResponse:
        return sse(b"".join(self.chunks))


def _signed(part: dict[str, Any], signature: str | None) -> dict[str, Any]:
    return part if signature is None else {**part, "thoughtSignature": signature}


__all__ = [
    "ADAPTIVE",
    "READ_FILE",
    "ChatStream",
    "GeminiStream",
    "ResponsesStream",
    "json_response",
    "text_detail",
    "wire_session",
]
