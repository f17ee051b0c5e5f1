"""Rule 55: on a model with preserved thinking, a returned thinking block is valid only
after exactly the prefix it was produced after.

A block's prefix when it was produced is the request that got it — its top-level
``system``, its ``tools`` and its ``messages`` — followed by the blocks its own response
streamed before it (an assistant message the request ended with, a prefill or a paused
turn, is continued by that response).  Sent back, its prefix is what precedes it in the
new request.  The comparison is of content, not bytes: ``cache_control`` markers are
left out (the provider's documentation says so), and so are what a client may spell
either way without changing content — key order, a string content written as one text
block, keys whose value is null.  Earlier blocks of its own response are compared only
for where their message starts: what a client does inside the message the block sits in
is ``latest-thinking-immutable``'s and the ledger's business.  Tokens the run did not mint
(a saved history) have no known prefix and are not judged.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from conformance.vocabulary import Reasoning
from conformance.wires._anthropic_messages._blocks import REASONING_TYPES
from conformance.wires._anthropic_messages._models import binds_thinking_prefix
from conformance.wires._anthropic_messages._raw import CheckedRequest, type_of

#: One step of a flattened conversation: a message's start (its role) or one block.
_Step = tuple[str, Any]


def first_unbound(check: CheckedRequest) -> tuple[int, int, str] | None:
    """``(message, block, type)`` of the first returned thinking block whose prefix
    differs from the one it was produced after, on a model that binds it; ``None``."""
    body = check.body
    if not binds_thinking_prefix(body.get("model")) or _drops_instead(body):
        return None
    origins = _origins(check)
    if not origins:
        return None
    sent = list(_flat(body.get("messages")))
    for position, (step, block, at) in enumerate(_located(body.get("messages"))):
        if step != "block" or type_of(block) not in REASONING_TYPES:
            continue
        token = _token(block)
        origin = origins.get(token) if token is not None else None
        if origin is None:
            continue
        if not _same_prefix(origin, body, sent[:position]):
            return at[0], at[1], str(type_of(block))
    return None


def _drops_instead(body: dict[str, Any]) -> bool:
    """Whether the request asks for an invalid block to be dropped, not refused."""
    thinking = body.get("thinking")
    binding = thinking.get("block_binding") if isinstance(thinking, dict) else None
    return isinstance(binding, dict) and binding.get("prefix_mismatch_behavior") == "drop_block"


def _origins(check: CheckedRequest) -> dict[str, dict[str, Any]]:
    """Each token a served response minted, with the raw body of the request it answered."""
    by_index = dict(
        zip(
            check.context.served_at or range(len(check.context.served)),
            check.context.served,
            strict=False,
        )
    )
    found: dict[str, dict[str, Any]] = {}
    for view, index in check.context.answered:
        response = by_index.get(index)
        if response is None:
            continue
        for block in response.blocks:
            if isinstance(block, Reasoning) and block.origin is None:
                for token in (block.signature, block.data):
                    if token:
                        found.setdefault(token, view.raw)
    return found


def _token(block: dict[str, Any]) -> str | None:
    token = block.get("data") if type_of(block) == "redacted_thinking" else block.get("signature")
    return token if isinstance(token, str) else None


def _same_prefix(origin: dict[str, Any], body: dict[str, Any], before: Sequence[_Step]) -> bool:
    """Whether ``before`` (the steps ahead of a block in ``body``) starts with the prefix
    the block was produced after and goes on inside one assistant message only."""
    if _canonical(origin.get("system")) != _canonical(body.get("system")):
        return False
    if _canonical(origin.get("tools")) != _canonical(body.get("tools")):
        return False
    expected = list(_flat(origin.get("messages")))
    if not _ends_in_assistant(origin):  # else its response continued that message
        expected.append(("message", "assistant"))
    head, rest = list(before[: len(expected)]), before[len(expected) :]
    return head == expected and all(step == "block" for step, _ in rest)


def _ends_in_assistant(body: dict[str, Any]) -> bool:
    messages = body.get("messages")
    return (
        isinstance(messages, list)
        and bool(messages)
        and isinstance(messages[-1], dict)
        and messages[-1].get("role") == "assistant"
    )


def _located(messages: object) -> Iterator[tuple[str, Any, tuple[int, int]]]:
    """The flattened steps of ``messages`` with where each came from."""
    if not isinstance(messages, list):
        return
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            yield "message", None, (i, -1)
            continue
        yield "message", message.get("role"), (i, -1)
        for j, block in enumerate(_content(message.get("content"))):
            yield "block", block, (i, j)


def _flat(messages: object) -> Iterator[_Step]:
    for step, value, _ in _located(messages):
        yield (step, value if step == "message" else _canonical(value))


def _content(content: object) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list) else []


def _canonical(value: Any) -> Any:
    """``value`` with ``cache_control`` and null-valued keys left out, every string
    content as one text block, and objects compared without their key order."""
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if not isinstance(value, dict):
        return value
    found = {
        key: _canonical(_content(v) if key == "content" and isinstance(v, str) else v)
        for key, v in value.items()
        if key != "cache_control" and v is not None
    }
    return tuple(sorted(found.items(), key=lambda item: item[0]))
