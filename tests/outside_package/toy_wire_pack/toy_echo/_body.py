"""The toy wire's JSON body, read leniently (a body from code under test may hold
anything), and its messages in neutral form."""

from __future__ import annotations

import json
from typing import Any

from conformance.errors import RequestParseError
from conformance.vocabulary import Block, Message, Reasoning, Text

PATH = "/toy/v1/turns"


def body_of(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except ValueError:
        raise RequestParseError("the body is not JSON") from None
    if not isinstance(body, dict):
        raise RequestParseError("the body is not a JSON object")
    return body


def neutral(item: Any) -> Message:
    """One ``messages`` item as a neutral message: an assistant's token is its reasoning's
    signature (the ledger follows it like any replay token)."""
    if not isinstance(item, dict) or item.get("role") not in ("user", "assistant"):
        raise RequestParseError("a message is {role: user|assistant, text[, token]}")
    blocks: list[Block] = []
    token = item.get("token")
    if isinstance(token, str) and token:
        blocks.append(Reasoning(signature=token))
    text = item.get("text")
    if isinstance(text, str) and text:
        blocks.append(Text(text=text))
    return Message(role=item["role"], blocks=tuple(blocks))
