"""Rule 10: a prefill (a final assistant message) must not end with whitespace; the same
text earlier in the conversation, or as the last user input, is fine."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.http import HttpRequest
from conformance.model import Options
from conformance.wires.anthropic_messages import WIRE
from conformance.wires.anthropic_messages.rules import PREFILL_TRAILING_WHITESPACE
from conformance.wires.base import ValidationContext


def errors(*messages: dict[str, Any]) -> list[str]:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": list(messages)}
    context = ValidationContext(number=1, options=Options(), served=())
    view = WIRE.parse(HttpRequest("POST", "/v1/messages", json.dumps(body).encode()), context)
    return [v.message for v in WIRE.validate(view, context)]


USER = {"role": "user", "content": "Write the list."}


@pytest.mark.parametrize("content", ["Steps:\n\n1. ", [{"type": "text", "text": "<contents>\n"}]])
def test_a_prefill_ending_in_whitespace_is_refused(content: object) -> None:
    assert errors(USER, {"role": "assistant", "content": content}) == [
        PREFILL_TRAILING_WHITESPACE.error
    ]


def test_trimmed_prefills_and_earlier_messages_pass() -> None:
    assert errors(USER, {"role": "assistant", "content": "Steps:\n\n1."}) == []
    earlier = {"role": "assistant", "content": "Steps:\n\n1. "}
    assert errors(USER, earlier, {"role": "user", "content": "go on "}) == []
