"""Issue 13 (§A12c/d, seed §85): the interleaved-thinking beta header.  Only a manual
budget above ``max_tokens`` makes it required (with tools); a client that leaves it out
then gets "`max_tokens` must be greater than `thinking.budget_tokens`".  The beta is the
user's to configure (``options.betas``); the reference sends what is configured on every
request, and leaves the interleaved beta out for adaptive thinking (rule 12d)."""

from __future__ import annotations

import dataclasses

from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.anthropic import INTERLEAVED_BETA, AnthropicCodec
from conformance._reference.guards import Guards
from conformance.vocabulary import ThinkingConfig
from tests.support import library_case, run_cell

from .sse_streams import MANUAL, session

CASE = "anthropic-budget-over-max-tokens-needs-interleaved-beta"
GUARD = "configured-betas-every-request"


def headers(
    thinking: ThinkingConfig, *disabled: str, betas: tuple[str, ...] = (INTERLEAVED_BETA,)
) -> dict[str, str]:
    configured = dataclasses.replace(session(thinking=thinking), betas=betas)
    codec = AnthropicCodec(configured, Guards(disabled))
    return dict(codec.request([]).headers)


def test_the_configured_betas_are_sent_and_nothing_else() -> None:
    assert headers(MANUAL)["anthropic-beta"] == INTERLEAVED_BETA
    both = ("context-1m-2025-08-07", INTERLEAVED_BETA)
    assert headers(MANUAL, betas=both)["anthropic-beta"] == ",".join(both)
    assert "anthropic-beta" not in headers(MANUAL, betas=())  # none configured, none sent
    assert "anthropic-beta" not in headers(ThinkingConfig(mode="adaptive"))  # rule 12d
    assert headers(ThinkingConfig(mode="adaptive"), betas=both)["anthropic-beta"] == both[0]
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
