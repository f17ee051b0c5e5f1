"""A client that keeps an OpenAI Responses conversation on the provider's side (rules
60-62), built on the reference: it post-processes the reference's request JSON, as
``harness.threaded`` does for Anthropic's message threads.

``ChainedReference`` chains each request on the previous response with
``previous_response_id`` and sends only the input items since it: the tool outputs of a
tool round, the next user message.  ``ConversationReference`` does the same through a
``conversation`` object, whose items the provider appends server-side.  Either one
chains only when the whole input the reference would send is exactly what the provider
holds plus a delta: the reference's input of the last request it got a reply to, then
that reply's output items as the reference replays them.  When the reference changed
the history under the chain (an earlier turn's reasoning pruned, a reply rewritten by
XML recovery, a cut turn settled) it sends the whole input again, unchained (a new
conversation object in conversation mode); with ``store: false`` nothing is stored, so
it always sends the whole input (rule 60).  A transient fault moves nothing: its retry
chains on the same response with the same delta.  On ``previous_response_not_found`` it
sends the whole input again.  On every other wire it is the reference.

``delta`` is the seam the broken variant (``harness.broken.responses_wrong_delta``)
replaces.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._targets.api import CallToRun, WireRequest, WireResponse
from harness.threaded import sse_events

WIRE = "openai-responses"
#: The output item types of the model's side a client replays (the rest of the input is
#: the client's own: messages of other roles, tool outputs).
_MODEL_ITEMS = frozenset({"reasoning", "function_call", "message"})
#: Response statuses whose output the provider stored and a request may chain on.
_STORED = frozenset({"completed", "incomplete"})


def _streamed(body: bytes) -> tuple[str, list[dict[str, Any]]] | None:
    """The id and output items of a streamed response that reached a stored end: the
    items from ``output_item.done`` (a final event may list no output)."""
    response_id: str | None = None
    items: list[dict[str, Any]] = []
    ended = False
    for event in sse_events(body):
        kind = event.get("type")
        response = event.get("response")
        if kind == "response.created" and isinstance(response, dict):
            response_id = response.get("id")
        elif kind == "response.output_item.done" and isinstance(event.get("item"), dict):
            items.append(event["item"])
        elif kind in ("response.completed", "response.incomplete"):
            ended = True
        elif kind in ("response.failed", "error"):
            return None
    if not ended or not isinstance(response_id, str):
        return None
    return response_id, items


def reply_of(response: WireResponse) -> tuple[str, list[dict[str, Any]]] | None:
    """The id and output items of a response the provider stored, or ``None``."""
    if response.status != 200:
        return None
    if response.streaming:
        return _streamed(response.body)
    found = response.json()
    if not isinstance(found, dict) or found.get("status") not in _STORED:
        return None
    output = found.get("output")
    items = [i for i in output if isinstance(i, dict)] if isinstance(output, list) else []
    return str(found["id"]), items


def _key(item: Any) -> tuple[str, str] | None:
    """What identifies a model-side item across the provider's output and the client's
    replay of it: a reasoning item by its id, a call by its ``call_id``, a message by its
    text.  ``None``: an item of the client's own side."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type", "message" if item.get("role") == "assistant" else None)
    if kind not in _MODEL_ITEMS or (kind == "message" and item.get("role") != "assistant"):
        return None
    if kind == "reasoning":
        return ("reasoning", str(item.get("id")))
    if kind == "function_call":
        return ("function_call", str(item.get("call_id")))
    content = item.get("content")
    parts = content if isinstance(content, list) else [{"text": content}]
    text = "".join(str(p.get("text", p.get("refusal", ""))) for p in parts if isinstance(p, dict))
    return ("message", text)


class ChainedSession(ReferenceSession):
    """The reference's requests, chained on the previous response."""

    #: ``previous_response_id`` (the default) or ``conversation``.
    mode: ClassVar[str] = "previous_response_id"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.base: list[Any] | None = None  # the input of the request the reply answered
        self.reply: list[tuple[str, str] | None] = []  # that reply's items, by key
        self.latest: str | None = None  # that reply's response id
        self.sent: list[Any] = []  # the whole input of the pending request
        self.conversations = 0  # conversation objects this session has filled
        self.filled = False  # whether the current conversation object holds anything

    def _conversation(self) -> str:
        seed = f"{self.brief.case}\x1f{self.conversations}".encode()
        return "conv_" + hashlib.sha256(seed).hexdigest()[:48]

    def next_request(self) -> WireRequest:
        request = super().next_request()
        if self.brief.wire != WIRE:
            return request
        raw = request.body
        body: dict[str, Any] = json.loads(raw) if isinstance(raw, bytes) else dict(raw)
        whole = body.get("input")
        if body.get("store") is False or not isinstance(whole, list):
            self.base = None
            return request  # nothing is stored (rule 60): the whole input, unchained
        self.sent = list(whole)
        delta = self._chainable(self.sent)
        if delta is None:
            self.latest = None
            if self.mode == "conversation":
                if self.filled:  # the whole input again would duplicate what it holds
                    self.conversations += 1
                    self.filled = False
                body = {**body, "conversation": self._conversation()}
            return WireRequest(body=body, headers=request.headers, path=request.path)
        chained = {**body, "input": self.delta(delta)}
        if self.mode == "conversation":
            chained["conversation"] = self._conversation()
        else:
            chained["previous_response_id"] = self.previous()
        return WireRequest(body=chained, headers=request.headers, path=request.path)

    def _chainable(self, whole: list[Any]) -> tuple[list[Any], list[Any]] | None:
        """``(the replayed reply, the delta)`` when ``whole`` is what the provider holds
        plus new items, else ``None``."""
        base = self.base
        if self.latest is None or base is None or whole[: len(base)] != base:
            return None
        rest = whole[len(base) :]
        end = next((k for k, item in enumerate(rest) if _key(item) is None), len(rest))
        replayed, delta = rest[:end], rest[end:]
        if [_key(item) for item in replayed] != self.reply:
            return None  # the reference replays the reply otherwise than it was stored
        return replayed, delta

    def delta(self, parts: tuple[list[Any], list[Any]]) -> list[Any]:
        """The input items of a chained request: the items since the reply (the seam
        the broken variant replaces)."""
        return parts[1]

    def previous(self) -> str | None:
        return self.latest

    def retries(self, response: WireResponse) -> bool:
        if _error_code(response) == "previous_response_not_found":
            self.latest = self.base = None  # send the whole input again
            return True
        return super().retries(response)

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        reply = reply_of(response) if self.brief.wire == WIRE else None
        if reply is not None and self.sent:
            self.latest, items = reply
            self.base = list(self.sent)
            self.reply = [_key(item) for item in items if _key(item) is not None]
        elif self.brief.wire == WIRE:
            # An answer that stored nothing this client can name (a failed or cut
            # stream): a chain goes on from the last stored response, but a
            # conversation may hold this one's items, so the next request starts a
            # fresh one.
            self.latest = None if self.mode == "conversation" else self.latest
        self.filled = self.filled or self.sent != []
        return super().receive(response)


def _error_code(response: WireResponse) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else None


class ConversationSession(ChainedSession):
    """The reference's requests, continued through a ``conversation`` object."""

    mode: ClassVar[str] = "conversation"


class ChainedReference(ReferenceAdapter):
    name: ClassVar[str] = "chained-reference"
    session_class: ClassVar[type[ReferenceSession]] = ChainedSession


class ConversationReference(ReferenceAdapter):
    name: ClassVar[str] = "conversation-reference"
    session_class: ClassVar[type[ReferenceSession]] = ConversationSession
