"""A recorded toy answer back into a scripted turn."""

from __future__ import annotations

import json

from conformance.errors import ResponseReadError
from conformance.vocabulary import Block, Reasoning, ScriptedResponse, Text


def read(body: bytes, streaming: bool, dialect: str | None = None) -> ScriptedResponse:
    try:
        answer = json.loads(body)
    except ValueError:
        raise ResponseReadError("the answer is not JSON", "byte 0") from None
    if not isinstance(answer, dict):
        raise ResponseReadError("the answer is not a JSON object", "byte 0")
    blocks: list[Block] = []
    if isinstance(answer.get("token"), str):
        blocks.append(Reasoning(signature=answer["token"]))
    if isinstance(answer.get("text"), str):
        blocks.append(Text(text=answer["text"]))
    return ScriptedResponse(stop="end", blocks=tuple(blocks))
