"""A toy request in neutral form."""

from __future__ import annotations

from typing import Any

from conformance.http import HttpRequest
from conformance.wires.context import RequestView, ValidationContext
from toy_wire_pack.toy_echo._body import body_of, neutral
from toy_wire_pack.toy_echo.wire import NAME


def parse(request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
    body = body_of(request.body)
    items = body.get("messages")
    messages = tuple(neutral(item) for item in items) if isinstance(items, list) else ()
    model = body.get("model")
    return RequestView(
        wire=NAME,
        model=model if isinstance(model, str) else None,
        messages=messages,
        raw=body,
    )


def history_items(view: RequestView) -> list[Any]:
    items = view.raw.get("messages")
    return list(items) if isinstance(items, list) else []
