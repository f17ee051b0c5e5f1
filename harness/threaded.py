"""A client that talks to Anthropic through a message thread, as the SDKs' tool runners
do by default (rules 56-59), built on the reference: it post-processes the reference's
request JSON.  The first request (and any request after the history changed under the
thread) is a ``create`` with the whole conversation; every later one a ``continue``
naming the latest response and carrying only the messages the thread does not hold
(``messages: []`` to resume a paused turn).  On ``thread_unsupported_request`` it falls
back to stateless requests, on ``thread_not_found`` it replays with a ``create``.  It
keeps its own copy of what the thread holds, from the replies it received, as the SDKs
do.  On every other wire it is the reference.

``delta`` and ``previous`` are the seams the broken variants (``harness.broken``,
``tests.targets.threaded``) replace.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._targets.api import CallToRun, WireRequest, WireResponse

WIRE = "anthropic-messages"
BETA = "message-threads-2026-08-12"


def sse_events(body: bytes) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    text = body.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    for chunk in text.split("\n\n"):
        data = "".join(
            line[len("data:") :].strip() for line in chunk.split("\n") if line.startswith("data:")
        )
        if data:
            try:
                event = json.loads(data)
            except ValueError:
                continue
            if isinstance(event, dict):
                found.append(event)
    return found


def _streamed(body: bytes) -> tuple[str, list[dict[str, Any]]] | None:
    """The id and content of a streamed reply that completed (``message_stop``)."""
    message_id: str | None = None
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    done = False
    for event in sse_events(body):
        kind = event.get("type")
        if kind == "message_start":
            message_id = event["message"]["id"]
        elif kind == "content_block_start":
            blocks[event["index"]] = dict(event["content_block"])
        elif kind == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            if delta["type"] == "text_delta":
                block["text"] = block.get("text", "") + delta["text"]
            elif delta["type"] == "thinking_delta":
                block["thinking"] = block.get("thinking", "") + delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] = block.get("signature", "") + delta["signature"]
            elif delta["type"] == "input_json_delta":
                partial[event["index"]] = partial.get(event["index"], "") + delta["partial_json"]
        elif kind == "content_block_stop" and event["index"] in partial:
            try:
                parsed = json.loads(partial[event["index"]])
            except ValueError:
                parsed = {}
            blocks[event["index"]]["input"] = parsed if isinstance(parsed, dict) else {}
        elif kind == "message_stop":
            done = True
        elif kind == "error":
            return None
    if not done or message_id is None:
        return None
    return message_id, [blocks[i] for i in sorted(blocks)]


def reply_of(response: WireResponse) -> tuple[str, list[dict[str, Any]]] | None:
    """The id and content of a reply the thread stored, or ``None``."""
    if response.status != 200:
        return None
    if response.streaming:
        return _streamed(response.body)
    message = response.json()
    if not isinstance(message, dict) or message.get("stop_reason") is None:
        return None
    return str(message["id"]), list(message.get("content") or [])


def held_after(sent: Sequence[Any], content: list[dict[str, Any]]) -> list[Any]:
    """What the thread holds once it stored a reply to ``sent``: the reply continues a
    final assistant message, else it is a new one."""
    held = list(sent)
    last = held[-1] if held else None
    if isinstance(last, dict) and last.get("role") == "assistant":
        earlier = last.get("content")
        if isinstance(earlier, str):
            earlier = [{"type": "text", "text": earlier}] if earlier else []
        held[-1] = {**last, "content": [*(earlier or []), *content]}
    else:
        held.append({"role": "assistant", "content": content})
    return held


def _error_code(response: WireResponse) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    code = details.get("error_code") if isinstance(details, dict) else None
    return code if isinstance(code, str) else None


class ThreadedSession(ReferenceSession):
    """The reference's requests, sent through a message thread."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held: list[Any] | None = None  # what the thread holds, as this client tracks it
        self.latest: str | None = None
        self.sent: list[Any] = []  # the full messages of the pending request
        self.stateless = False

    def next_request(self) -> WireRequest:
        request = super().next_request()
        if self.brief.wire != WIRE:
            return request
        raw = request.body
        body: dict[str, Any] = json.loads(raw) if isinstance(raw, bytes) else dict(raw)
        self.sent = list(body["messages"])
        if self.stateless:
            return request
        headers = dict(request.headers)
        betas = [b for b in headers.get("anthropic-beta", "").split(",") if b.strip()]
        headers["anthropic-beta"] = ",".join([*betas, BETA])
        held = self.held
        if self.latest is not None and held is not None and self.sent[: len(held)] == held:
            threaded = {k: v for k, v in body.items() if k not in ("system", "tools")}
            threaded["messages"] = self.delta(held, self.sent)
            threaded["thread"] = {"type": "continue", "previous_message_id": self.previous()}
        else:
            threaded = {**body, "thread": {"type": "create"}}
        return WireRequest(body=threaded, headers=headers, path=request.path)

    def delta(self, held: list[Any], sent: list[Any]) -> list[Any]:
        """The messages the thread does not hold yet (the seam the broken variants use)."""
        return sent[len(held) :]

    def previous(self) -> str | None:
        return self.latest

    def retries(self, response: WireResponse) -> bool:
        code = _error_code(response)
        if code == "thread_unsupported_request":
            self.stateless = True  # the SDKs' fallback: the whole conversation, no thread
            return True
        if code == "thread_not_found":
            self.latest = self.held = None  # replay the whole conversation with a create
            return True
        return super().retries(response)

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        reply = reply_of(response)
        if reply is not None and not self.stateless and self.brief.wire == WIRE:
            self.latest, content = reply
            self.held = held_after(self.sent, content)
        return super().receive(response)


class ThreadedReference(ReferenceAdapter):
    name: ClassVar[str] = "threaded-reference"
    session_class: ClassVar[type[ReferenceSession]] = ThreadedSession
