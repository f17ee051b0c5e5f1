"""Hand-written Anthropic Messages SSE streams for the reference adapter's tests.

Deliberately independent of the suite's wire module: these bytes are written from the
streaming documentation (wire-rules 1–5), so the reference is not tested against the
renderer it is meant to cross-check.
"""

from __future__ import annotations

import json
from typing import Any

from conformance._targets.api import CaseBrief, ToolDef, WireResponse
from conformance.vocabulary import Message, ThinkingConfig

READ_FILE = ToolDef(
    name="read_file",
    description="Read a file",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
    result="file contents",
)
BASH = ToolDef(
    name="bash",
    description="Run a command",
    parameters={
        "type": "object",
        "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}},
    },
    result="ok",
)


def event(kind: str, **fields: Any) -> bytes:
    data = json.dumps({"type": kind, **fields}, separators=(",", ":"))
    return f"event: {kind}\ndata: {data}\n\n".encode()


class Stream:
    """Builds one streamed response block by block, with explicit indexes."""

    def __init__(self) -> None:
        message: dict[str, Any] = {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": "model-under-test",
            "content": [],
            "stop_reason": None,
        }
        self.events: list[bytes] = [event("message_start", message=message)]
        self.index = 0

    def raw(self, chunk: bytes) -> Stream:
        self.events.append(chunk)
        return self

    def ping(self) -> Stream:
        return self.raw(event("ping"))

    def thinking(
        self, *chunks: str, signature: str | tuple[str, ...] | None = None, stop: bool = True
    ) -> Stream:
        block = {"type": "thinking", "thinking": ""}
        self.raw(event("content_block_start", index=self.index, content_block=block))
        for chunk in chunks:
            delta = {"type": "thinking_delta", "thinking": chunk}
            self.raw(event("content_block_delta", index=self.index, delta=delta))
        pieces = (signature,) if isinstance(signature, str) else (signature or ())
        for piece in pieces:
            delta = {"type": "signature_delta", "signature": piece}
            self.raw(event("content_block_delta", index=self.index, delta=delta))
        return self._stop(stop)

    def redacted(self, data: str) -> Stream:
        block = {"type": "redacted_thinking", "data": data}
        self.raw(event("content_block_start", index=self.index, content_block=block))
        return self._stop(True)

    def text(self, *chunks: str) -> Stream:
        block = {"type": "text", "text": ""}
        self.raw(event("content_block_start", index=self.index, content_block=block))
        for chunk in chunks:
            delta = {"type": "text_delta", "text": chunk}
            self.raw(event("content_block_delta", index=self.index, delta=delta))
        return self._stop(True)

    def tool_use(self, id: str, name: str, *json_chunks: str, stop: bool = True) -> Stream:
        block = {"type": "tool_use", "id": id, "name": name, "input": {}}
        self.raw(event("content_block_start", index=self.index, content_block=block))
        for chunk in json_chunks:
            delta = {"type": "input_json_delta", "partial_json": chunk}
            self.raw(event("content_block_delta", index=self.index, delta=delta))
        return self._stop(stop)

    def end(self, stop_reason: str = "end_turn") -> WireResponse:
        delta = {"stop_reason": stop_reason, "stop_sequence": None}
        self.raw(event("message_delta", delta=delta, usage={"output_tokens": 1}))
        return self.raw(event("message_stop")).cut()

    def cut(self) -> WireResponse:
        """The bytes so far, with no terminal event (a transport cut)."""
        return sse(b"".join(self.events))

    def _stop(self, stop: bool) -> Stream:
        if stop:
            self.raw(event("content_block_stop", index=self.index))
        self.index += 1
        return self


def sse(body: bytes) -> WireResponse:
    return WireResponse(200, {"content-type": "text/event-stream"}, body)


MANUAL = ThinkingConfig(mode="manual", budget_tokens=2048)


def session(
    *prompts: str,
    tools: tuple[ToolDef, ...] = (READ_FILE,),
    thinking: ThinkingConfig = MANUAL,
    history: tuple[Message, ...] = (),
    system: str | None = "You are terse.",
) -> CaseBrief:
    return CaseBrief(
        case="reference-test",
        wire="anthropic-messages",
        dialect=None,
        model="model-under-test",
        system=system,
        prompts=prompts,
        tools=tools,
        thinking=thinking,
        max_tokens=4096,
        history=history,
    )
