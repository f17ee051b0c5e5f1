"""Issue 13 (§A12c/d, seed §85): the interleaved-thinking beta header.  Only a manual
budget above ``max_tokens`` makes it required (with tools); a client that leaves it out
then gets "`max_tokens` must be greater than `thinking.budget_tokens`"."""

from __future__ import annotations

from conformance.model import ThinkingConfig
from conformance.reference.adapter import ReferenceAdapter
from conformance.reference.anthropic import INTERLEAVED_BETA, AnthropicCodec
from conformance.reference.guards import Guards
from tests.support import library_case, run_cell

from .sse_streams import MANUAL, session

CASE = "anthropic-budget-over-max-tokens-needs-interleaved-beta"
GUARD = "interleaved-beta-with-manual-thinking"


def headers(thinking: ThinkingConfig, *disabled: str) -> dict[str, str]:
    codec = AnthropicCodec(session(thinking=thinking), Guards(disabled))
    return dict(codec.request([]).headers)


def test_the_beta_goes_with_manual_thinking_only() -> None:
    assert headers(MANUAL)["anthropic-beta"] == INTERLEAVED_BETA
    assert "anthropic-beta" not in headers(ThinkingConfig(mode="adaptive"))  # rule 12d
    assert "anthropic-beta" not in headers(ThinkingConfig())
    assert "anthropic-beta" not in headers(MANUAL, GUARD)


def test_without_the_beta_a_budget_above_max_tokens_is_refused() -> None:
    broken = ReferenceAdapter(disabled=frozenset({GUARD}))
    result, transcript = run_cell(broken, library_case(CASE), "anthropic-messages")
    assert result.verdict == "fail"
    assert "anthropic-messages/budget-below-max-tokens" in str(result.model_dump())
    assert len(transcript.exchanges) == 1  # refused at once: the loop never starts
    assert run_cell(ReferenceAdapter(), library_case(CASE), "anthropic-messages")[0].verdict == (
        "pass"
    )
