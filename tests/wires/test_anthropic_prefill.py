"""Rule 10: a prefill (a final assistant message) must not end with whitespace; the same
text earlier in the conversation, or as the last user input, is fine.  With thinking on
there is no prefill at all (issue 13: before, only the whitespace half was checked)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.http import HttpRequest
from conformance.verdict import Violation
from conformance.vocabulary import Options
from conformance.wires._anthropic_messages import WIRE
from conformance.wires._anthropic_messages.rules import (
    PREFILL_TRAILING_WHITESPACE,
    PREFILL_WITH_THINKING,
)
from conformance.wires.context import ValidationContext

MANUAL = {"type": "enabled", "budget_tokens": 1024}


def violations(*messages: dict[str, Any], thinking: object = None) -> list[Violation]:
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 2048}
    if thinking is not None:
        body["thinking"] = thinking
    body["messages"] = list(messages)
    context = ValidationContext(number=1, options=Options(), served=())
    view = WIRE.parse(HttpRequest("POST", "/v1/messages", json.dumps(body).encode()), context)
    return list(WIRE.validate(view, context))


def errors(*messages: dict[str, Any], thinking: object = None) -> list[str]:
    return [v.message for v in violations(*messages, thinking=thinking)]


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


@pytest.mark.parametrize("content", ["{", [{"type": "text", "text": "{"}]])
def test_a_prefill_with_manual_thinking_is_refused(content: object) -> None:
    [found] = violations(USER, {"role": "assistant", "content": content}, thinking=MANUAL)
    assert found.rule == PREFILL_WITH_THINKING
    assert found.at == "messages.1.content.0.type"
    assert found.message.startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        "`text`. When `thinking` is enabled"
    )
    assert found.evidence == "observed"  # the rule's own: Aider-AI/aider#3820


def test_with_adaptive_thinking_the_refusal_is_inferred_and_without_thinking_none() -> None:
    prefill = {"role": "assistant", "content": "{"}
    [found] = violations(USER, prefill, thinking={"type": "adaptive"})
    assert (found.rule, found.evidence) == (PREFILL_WITH_THINKING, "inferred")
    assert errors(USER, prefill) == []
    assert errors(USER, prefill, thinking={"type": "disabled"}) == []


def test_with_thinking_a_request_ending_on_the_user_or_on_other_blocks_passes() -> None:
    assert errors(USER, thinking=MANUAL) == []
    earlier = {"role": "assistant", "content": "Sure."}
    assert errors(USER, earlier, {"role": "user", "content": "go on"}, thinking=MANUAL) == []
