"""A scripted turn as the toy server answers it: one JSON object."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from conformance.http import HttpResponse
from conformance.verdict import Violation
from conformance.vocabulary import Message, Reasoning, ScriptedResponse, Text
from conformance.wires.context import RenderContext

_JSON = (("content-type", "application/json"),)


def _item(role: str, blocks: Sequence[object]) -> dict[str, Any]:
    item: dict[str, Any] = {"role": role}
    text = "".join(b.text for b in blocks if isinstance(b, Text))
    if text:
        item["text"] = text
    token = next((b.signature for b in blocks if isinstance(b, Reasoning) and b.signature), None)
    if token:
        item["token"] = token
    return item


def render(response: ScriptedResponse, context: RenderContext) -> HttpResponse:
    answer = _item("assistant", response.blocks)
    return HttpResponse(200, json.dumps(answer).encode(), _JSON)


def render_error(violation: Violation) -> HttpResponse:
    body = {"error": violation.message}
    return HttpResponse(violation.broken.status, json.dumps(body).encode(), _JSON)


def render_history(messages: Sequence[Message], dialect: str | None) -> dict[str, Any]:
    return {"messages": [_item(m.role, m.blocks) for m in messages]}
