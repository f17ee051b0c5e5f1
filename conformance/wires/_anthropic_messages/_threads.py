"""What the provider keeps of each message thread, and a threaded request's body rebuilt
with it (rules 56-58).

A ``create`` request opens a thread with its ``system``, ``tools`` and messages; the
reply is stored under the response ``id`` (``message_start``'s, or the JSON message's).
A ``continue`` names that id in ``previous_message_id`` and carries only the new
messages: the provider rebuilds the conversation (the stored messages, then the new
ones; the stored ``system`` and ``tools``) before it judges it, the way the Responses
wire expands ``previous_response_id`` (``openai_responses._state``).  The memory is
rebuilt from the provider's record of what it answered (``ValidationContext.answered``
and ``answered_bodies``), so it is the provider instance's own and needs no state here.

A reply is stored only when it completed: a scripted fault (an error answer, or an error
event mid-stream) and a cut stream leave the thread where it was, so the client's retry
continues from the same response.  A reply to a request that ended in an assistant
message (a paused turn, a prefill) continues that message, as the response does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conformance.vocabulary import ScriptedResponse
from conformance.wires._anthropic_messages._stops import CUT_STOPS
from conformance.wires._anthropic_messages._thread_rules import CREATE_ONLY
from conformance.wires._anthropic_messages._view import AnthropicRequestView, ThreadRequest
from conformance.wires._anthropic_messages.render import _message_content
from conformance.wires.context import ValidationContext

_MESSAGE_ID = re.compile(rb'"id"\s*:\s*"(msg_[^"\\]*)"')


@dataclass(frozen=True)
class StoredThread:
    """A thread as it stood after one response: what a ``continue`` naming it rebuilds."""

    system: Any
    tools: Any
    model: Any
    messages: tuple[Any, ...]
    has_system: bool
    has_tools: bool


@dataclass(frozen=True)
class Threads:
    """Every response a thread stored (by id), and those a later request continued."""

    stored: dict[str, StoredThread]
    continued: frozenset[str]

    @classmethod
    def of(cls, context: ValidationContext | None) -> Threads:
        if context is None:
            return cls({}, frozenset())
        responses = dict(
            zip(context.served_at or range(len(context.served)), context.served, strict=False)
        )
        bodies = context.answered_bodies
        stored: dict[str, StoredThread] = {}
        continued: set[str] = set()
        for k, (view, index) in enumerate(context.answered):
            if not isinstance(view, AnthropicRequestView) or view.thread is None:
                continue
            if view.thread.state not in ("created", "continued"):
                continue
            response = responses.get(index)
            reply = message_id(bodies[k]) if k < len(bodies) else None
            if response is None or reply is None or not completed(response):
                continue
            if view.thread.state == "continued" and view.thread.previous_message_id:
                continued.add(view.thread.previous_message_id)
            stored[reply] = StoredThread(
                system=view.raw.get("system"),
                tools=view.raw.get("tools"),
                model=view.raw.get("model"),
                messages=with_reply(view.raw.get("messages"), response),
                has_system="system" in view.raw,
                has_tools="tools" in view.raw,
            )
        return cls(stored, frozenset(continued))


def message_id(body: bytes) -> str | None:
    """The message ``id`` an answer carries (the JSON message's, or ``message_start``'s:
    the first ``msg_`` id in either)."""
    found = _MESSAGE_ID.search(body)
    return found[1].decode() if found is not None else None


def completed(response: ScriptedResponse) -> bool:
    """Whether the served response is a whole reply a thread stores."""
    return response.fault is None and response.stop not in CUT_STOPS


def with_reply(messages: object, response: ScriptedResponse) -> tuple[Any, ...]:
    """``messages`` with the response's reply as the thread holds it: a new assistant
    message, or the request's final assistant message continued.

    The reply is the API's own output, held server-side: a client that continues the
    thread never sends it, so the rules on what a client may send (no empty or
    whitespace-only text block, no empty message: rule 15) cannot be broken by it.  What
    the API keeps of a blank text block it generated is not published; the thread keeps
    the reply without them, and a reply left with no content adds no message, so the
    rebuilt conversation holds nothing a client could be refused for (a false red cell
    is the worst bug).  A client that re-sends the blank blocks itself (a ``create`` with
    the whole history, or a stateless request) is judged on them as before."""
    sent = list(messages) if isinstance(messages, list) else []
    content = [b for b in _message_content(response.blocks) if not _blank_text(b)]
    last = sent[-1] if sent else None
    if isinstance(last, dict) and last.get("role") == "assistant":
        earlier = last.get("content")
        if isinstance(earlier, str):
            earlier = [{"type": "text", "text": earlier}] if earlier else []
        joined = list(earlier) if isinstance(earlier, list) else []
        return (*sent[:-1], {**last, "content": joined + content})
    if not content:
        return tuple(sent)
    return (*sent, {"role": "assistant", "content": content})


def _blank_text(block: object) -> bool:
    """Whether a reply block is a text block with no non-whitespace text."""
    if not isinstance(block, dict) or block.get("type") != "text":
        return False
    text = block.get("text")
    return isinstance(text, str) and not text.strip()


def rebuild(
    body: dict[str, Any], context: ValidationContext | None
) -> tuple[dict[str, Any], ThreadRequest] | None:
    """The body the provider judges for a request carrying ``thread``, and how the
    thread resolved; ``None`` for a stateless request."""
    if "thread" not in body:
        return None
    thread = body["thread"]
    kind = thread.get("type") if isinstance(thread, dict) else None
    kind_text = kind if isinstance(kind, str) or kind is None else str(kind)
    if kind == "create":
        return body, ThreadRequest(kind="create", state="created")
    previous = thread.get("previous_message_id") if isinstance(thread, dict) else None
    if kind != "continue" or not isinstance(previous, str) or not previous:
        return body, ThreadRequest(kind=kind_text, state="malformed")
    memory = Threads.of(context)
    found = memory.stored.get(previous)
    if found is None:
        return body, ThreadRequest(kind=kind, state="not_found", previous_message_id=previous)
    if previous in memory.continued:
        state = "already_continued"
        return body, ThreadRequest(kind=kind, state=state, previous_message_id=previous)
    delta = body.get("messages")
    new = tuple(delta) if isinstance(delta, list) else ()
    rebuilt = {k: v for k, v in body.items() if k not in CREATE_ONLY}
    if found.has_system:
        rebuilt["system"] = found.system
    if found.has_tools:
        rebuilt["tools"] = found.tools
    rebuilt["messages"] = [*found.messages, *new]
    return rebuilt, ThreadRequest(
        kind=kind,
        state="continued",
        previous_message_id=previous,
        start=len(found.messages),
        create_only=tuple(f for f in CREATE_ONLY if f in body),
        stored_model=found.model if isinstance(found.model, str) else None,
        stored=found.messages,
        delta=new,
    )


def unseen_state(view: object, bodies: Sequence[bytes]) -> str | None:
    """Why a recorded request rests on a thread the earlier answers ``bodies`` do not
    show (a ``continue`` naming a response answered before the recording began), or
    ``None``: the audit leaves such a request unjudged."""
    thread = view.thread if isinstance(view, AnthropicRequestView) else None
    previous = thread.previous_message_id if thread is not None else None
    if previous is None or any(message_id_in(previous, body) for body in bodies):
        return None
    return (
        f"continues the message thread of {previous}, a response answered before the "
        "recording began, which the provider keeps server-side"
    )


def message_id_in(response_id: str, body: bytes) -> bool:
    """Whether ``body`` is the answer that minted ``response_id``."""
    pattern = rb'"id"\s*:\s*"' + re.escape(response_id.encode()) + rb'"'
    return re.search(pattern, body) is not None
