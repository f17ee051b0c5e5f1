"""Output-token recovery (seed §65–§70): a client that goes on from ``max_tokens`` cuts
and merges the continuation into the cut turn passes the recovery cases; each review
probe put back fails the case about its shape (or, where only a design document asks
for the behaviour, gets its warning); a client that ends the turn is never served the
continuation nor its tool loop."""

from __future__ import annotations

import pytest

from conformance._cases.continuation import continuation_loops
from conformance._reference import ReferenceAdapter
from conformance._targets.api import Adapter
from harness.broken.coalescing import (
    CoalesceAlwaysDropAdapter,
    CoalesceKeepDanglingAdapter,
    CoalesceOverPopAdapter,
    CoalesceSwappedAdapter,
)
from harness.coalescing import CoalescingAdapter, KeptApartAdapter
from tests.support import library_case, run_cell

A, OR, G = "anthropic-messages", "openai-chat:openrouter", "gemini"
CUT_THINKING = "max-tokens-recovery-cut-thinking-not-replayed-when-continuation-calls-tool"
SIGNED = "max-tokens-recovery-signed-thinking-kept-before-continuation-call"
GEMINI_CALL = "gemini-max-tokens-recovery-unsigned-thought-before-continuation-call"
GEMINI_NO_CALL = "gemini-max-tokens-recovery-unsigned-thought-kept-without-call"
CELLS = [
    (CUT_THINKING, A),
    (CUT_THINKING, OR),
    (SIGNED, A),
    (SIGNED, OR),
    (GEMINI_CALL, G),
    (GEMINI_NO_CALL, G),
]

#: The cells each broken variant fails, with what shows it.
FAILS: dict[type[Adapter], set[tuple[str, str]]] = {
    # §126: the signed cut block dropped from the merged turn only breaks a design
    # `should` (below): request 3 is then what a client that resends the cut request sends
    CoalesceOverPopAdapter: set(),
    # §131: the signed cut detail after the call (OpenRouter's ledger order); the cut text
    # after the call on Gemini. On Anthropic the trailing thinking is dropped on the way
    # out, so only the design `should` sees it.
    CoalesceSwappedAdapter: {(SIGNED, OR), (GEMINI_CALL, G)},
    # §65 / M2: the unsigned block beside the call (rule 3 rejects it)
    CoalesceKeepDanglingAdapter: {(CUT_THINKING, A), (CUT_THINKING, OR)},
    # §133 only breaks a design `should` (below)
    CoalesceAlwaysDropAdapter: set(),
}


@pytest.mark.parametrize(("case_id", "column"), CELLS)
def test_a_merging_recovery_passes_and_is_served_every_continuation(
    case_id: str, column: str
) -> None:
    result, transcript = run_cell(CoalescingAdapter(), library_case(case_id), column)
    assert result.verdict == "pass", (result.reason, result.violations)
    responses = library_case(case_id).given.responses
    assert [e.served for e in transcript.exchanges] == list(range(len(responses)))


@pytest.mark.parametrize(("case_id", "column"), CELLS)
def test_ending_the_cut_turn_passes_over_the_continuation_and_its_tool_loop(
    case_id: str, column: str
) -> None:
    case = library_case(case_id)
    result, transcript = run_cell(ReferenceAdapter(), case, column)
    assert result.verdict == "pass", (result.reason, result.violations)
    served = {e.served for e in transcript.exchanges}
    optional = {i for i, r in enumerate(case.given.responses) if r.if_continued}
    assert not served & (optional | continuation_loops(case))
    assert transcript.served_count() == len(case.given.responses)


@pytest.mark.parametrize("adapter", list(FAILS), ids=lambda a: a.name)
def test_each_review_probe_fails_the_cells_of_its_shape(adapter: type[Adapter]) -> None:
    failed = {
        (case_id, column)
        for case_id, column in CELLS
        if run_cell(adapter(), library_case(case_id), column)[0].verdict == "fail"
    }
    assert failed == FAILS[adapter]


@pytest.mark.parametrize(
    ("adapter", "case_id", "column"),
    [
        (CoalesceKeepDanglingAdapter, GEMINI_CALL, G),
        (CoalesceAlwaysDropAdapter, GEMINI_NO_CALL, G),
        (CoalesceOverPopAdapter, SIGNED, A),
        (CoalesceOverPopAdapter, SIGNED, OR),
        (CoalesceSwappedAdapter, SIGNED, A),
    ],
)
def test_the_design_shoulds_warn(adapter: type[Adapter], case_id: str, column: str) -> None:
    """The provider accepts these requests: Gemini the unsigned thought kept or dropped
    (§65's drop and §66's keep), Anthropic a merged turn without the cut signed block
    (§67's over-pop sends what a client that resends the cut request sends). They rest on
    the design document alone, so breaking them is a warning, and a failure only under
    ``--strict``."""
    result, _ = run_cell(adapter(), library_case(case_id), column)
    assert result.verdict == "pass"
    assert any(w.check == "expect" for w in result.warnings)
    assert run_cell(adapter(), library_case(case_id), column, strict=True)[0].verdict == "fail"
    merged, _ = run_cell(CoalescingAdapter(), library_case(case_id), column)
    assert not any(w.check == "expect" for w in merged.warnings)


def test_only_a_continuations_own_loop_counts_as_its_tool_loop() -> None:
    assert continuation_loops(library_case(CUT_THINKING)) == {2}
    assert continuation_loops(library_case(GEMINI_CALL)) == {3}
    assert continuation_loops(library_case(GEMINI_NO_CALL)) == frozenset()


def test_the_next_prompt_skips_the_continuation_and_its_tool_loop() -> None:
    """With a second turn scripted, the provider answers its prompt from that turn, not
    with the answer to the continuation's tool results."""
    data = library_case(CUT_THINKING).model_dump(mode="json", exclude_none=True, by_alias=True)
    data["expect"] = data["expect"][:1]  # the request count differs with a second turn
    data["given"]["turns"].append(
        {
            "user": "Thanks.",
            "responses": [{"stop": "end", "blocks": [{"kind": "text", "text": "ok"}]}],
        }
    )
    case = type(library_case(CUT_THINKING)).model_validate(data)
    result, transcript = run_cell(ReferenceAdapter(), case, A)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert [e.served for e in transcript.exchanges] == [0, 3]


# ---------------------------------------------------------------- preserved thinking

#: The twin of SIGNED on a model that binds each thinking block to its prefix (rule 55).
BOUND = "preserved-thinking-max-tokens-recovery-keeps-each-block-after-its-own-prefix"


@pytest.mark.parametrize(
    "adapter", [CoalescingAdapter, CoalesceOverPopAdapter, CoalesceSwappedAdapter]
)
def test_a_model_that_binds_thinking_refuses_every_merge(adapter: type[Adapter]) -> None:
    """Suite fix 17 revisited: on such a model the provider tells the over-pop (and the
    merge it comes from) apart from a resend of the cut request, since the continuation's
    thinking was produced after the cut turn and the nudge."""
    result, _ = run_cell(adapter(), library_case(BOUND), A)
    assert result.verdict == "fail"
    assert [v.check for v in result.violations] == ["anthropic-messages/thinking-prefix-bound"]


@pytest.mark.parametrize("adapter", [KeptApartAdapter, ReferenceAdapter])
def test_the_pieces_kept_apart_or_the_turn_ended_pass_there(adapter: type[Adapter]) -> None:
    for case_id in (BOUND, SIGNED):
        result, _ = run_cell(adapter(), library_case(case_id), A)
        assert result.verdict == "pass", (case_id, result.reason, result.violations)
