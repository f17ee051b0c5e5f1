"""The ledger hints of every wire, as data: what a payload pairs with and how strongly it
must come back, per block kind."""

from __future__ import annotations

import pytest

from conformance.vocabulary import Block, Media, Reasoning, Text, ToolCall, ToolResult
from conformance.wires._registry import get_wire
from conformance.wires._thought_signatures import SENTINELS
from conformance.wires.hints import LedgerHints

THOUGHT = Reasoning(text="t", signature="c2ln", id="rs_1")
REDACTED = Reasoning(redacted=True, data="ZGF0YQ==")
SAID = Text(text="said", signature="c2ln")
CALL = ToolCall(id="call_a", name="read", arguments={})
PICTURE = Media(mime="image/png", data="AAAA")
RESULT = ToolResult(call_id="call_a", content="x")
BLOCKS: tuple[Block, ...] = (THOUGHT, REDACTED, SAID, CALL, PICTURE, RESULT)


def companions(hints: LedgerHints) -> list[str | None]:
    return [hints.companion(block) for block in BLOCKS]


def severities(hints: LedgerHints) -> list[str]:
    return [hints.severity(block) for block in BLOCKS]


def test_the_defaults_pair_reasoning_and_text_by_content_and_calls_by_id() -> None:
    hints = LedgerHints()
    assert companions(hints) == ["t", "redacted", "said", "call_a", None, None]
    assert severities(hints) == ["must"] * len(BLOCKS)
    assert hints.sentinels == frozenset()
    assert hints.reasoning_between_calls


@pytest.mark.parametrize("name", ["anthropic-messages", "openai-chat"])
def test_anthropic_and_chat_pair_by_the_defaults(name: str) -> None:
    hints = get_wire(name).hints
    assert companions(hints) == companions(LedgerHints())
    assert severities(hints) == severities(LedgerHints())


def test_only_chat_knows_geminis_placeholder_signatures_among_the_default_wires() -> None:
    """Gemini's endpoint (the ``gemini`` dialect) documents two dummy signatures a client
    may put on a call whose signature it lost (rule 45): no payload there; Anthropic has
    none."""
    assert get_wire("anthropic-messages").hints.sentinels == frozenset()
    assert get_wire("openai-chat").hints.sentinels == frozenset(
        {"skip_thought_signature_validator", "context_engineering_is_the_way_to_go"}
    )


def test_only_chat_cannot_place_reasoning_between_calls() -> None:
    assert not get_wire("openai-chat").hints.reasoning_between_calls
    others = ("anthropic-messages", "openai-responses", "gemini")
    assert all(get_wire(name).hints.reasoning_between_calls for name in others)


def test_responses_pairs_a_reasoning_item_with_its_id() -> None:
    hints = get_wire("openai-responses").hints
    assert companions(hints) == ["rs_1", None, "said", "call_a", None, None]
    assert severities(hints) == ["must"] * len(BLOCKS)


def test_gemini_owes_call_signatures_as_must_and_pairs_only_calls() -> None:
    hints = get_wire("gemini").hints
    assert companions(hints) == [None, None, None, "call_a", None, None]
    assert severities(hints) == ["should", "should", "should", "must", "should", "should"]
    assert hints.sentinels == SENTINELS
