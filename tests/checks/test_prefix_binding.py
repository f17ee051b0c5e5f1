"""Rule 55, preserved thinking: a thinking block sent back after a prefix other than the
one it was produced after is refused on a model that binds it, and only there; what a
client may spell either way (cache_control, key order, string or block content) is not a
change; ``drop_block`` asks for a drop instead of the 400."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance._reference import ReferenceAdapter
from conformance.wires._anthropic_messages._models import binds_thinking_prefix
from tests.support import library_case, run_cell
from tests.targets.rewriting import rewriting
from tests.targets.thinking_ahead import ThinkingAheadAsUserText

A = "anthropic-messages"
BOUND = "preserved-thinking-cut-thinking-not-replayed-ahead-of-its-signed-turn"
UNBOUND = "truncation-max-tokens-dangling-episode-after-tool-call"
RULE = "anthropic-messages/thinking-prefix-bound"


def after_the_first(rewrite: Callable[[dict[str, Any]], None]) -> ReferenceAdapter:
    """The reference adapter with ``rewrite`` applied to the body of every request but
    the first (where no block has been produced yet)."""

    def later(body: dict[str, Any], number: int) -> None:
        if number > 1:
            rewrite(body)

    return rewriting(later)


def respelled(body: dict[str, Any]) -> None:
    """The same content spelled otherwise: a cache breakpoint on the prompt, its text as
    a string, every block's keys reversed."""
    first = body["messages"][0]
    text = first["content"][0]["text"] if isinstance(first["content"], list) else first["content"]
    first["content"] = text
    body["messages"][-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    for message in body["messages"][1:]:
        if isinstance(message["content"], list):
            message["content"] = [dict(reversed(list(b.items()))) for b in message["content"]]


def new_system(body: dict[str, Any]) -> None:
    body["system"] = "Today is 2026-12-07."


def drops_instead(body: dict[str, Any]) -> None:
    new_system(body)
    body["thinking"]["block_binding"] = {"prefix_mismatch_behavior": "drop_block"}


def test_a_message_put_ahead_of_a_signed_turn_is_refused_where_the_model_binds() -> None:
    result, _ = run_cell(ThinkingAheadAsUserText(), library_case(BOUND), A)
    assert result.verdict == "fail"
    [violation] = [v for v in result.violations if v.check == RULE]
    assert violation.evidence == "documented"
    assert "The block is bound to a different conversation" in violation.message


def test_the_same_shape_passes_where_the_model_does_not_bind() -> None:
    result, _ = run_cell(ThinkingAheadAsUserText(), library_case(UNBOUND), A)
    assert result.verdict == "pass", result.violations
    assert RULE not in {w.check for w in result.warnings}


@pytest.mark.parametrize("case_id", [BOUND, UNBOUND])
def test_the_reference_keeps_every_prefix(case_id: str) -> None:
    result, _ = run_cell(ReferenceAdapter(), library_case(case_id), A)
    assert result.verdict == "pass", result.violations


def test_respelling_the_same_content_is_not_a_change() -> None:
    result, _ = run_cell(after_the_first(respelled), library_case(BOUND), A)
    assert RULE not in {v.check for v in (*result.violations, *result.warnings)}


def test_a_changed_system_prompt_invalidates_the_blocks_after_it() -> None:
    result, _ = run_cell(after_the_first(new_system), library_case(BOUND), A)
    assert RULE in {v.check for v in result.violations}


def test_drop_block_asks_for_a_drop_not_a_400() -> None:
    result, _ = run_cell(after_the_first(drops_instead), library_case(BOUND), A)
    assert RULE not in {v.check for v in (*result.violations, *result.warnings)}


@pytest.mark.parametrize(
    ("model", "binds"),
    [
        ("claude-fable-5-1", True),
        ("claude-mythos-5-2", True),
        ("claude-opus-5-5", True),
        ("claude-sonnet-5-5-20260901", True),
        ("claude-haiku-5-5", True),
        ("claude-fable-5", False),
        ("claude-opus-5", False),
        ("claude-sonnet-4-5", False),
        ("gpt-5", False),
        (None, False),
    ],
)
def test_which_models_bind_thinking_to_its_prefix(model: str | None, binds: bool) -> None:
    assert binds_thinking_prefix(model) is binds
