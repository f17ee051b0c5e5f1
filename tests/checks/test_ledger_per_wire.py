"""The ledger's invariants hold as strongly as each wire's provider checks its payloads:
Gemini checks only functionCall signatures, so a thought's signature joined, moved or
re-ordered is a `should` that names its cost there, while the same merge is a `must` on
Anthropic, which checks every thinking signature."""

from __future__ import annotations

from harness.broken.hoist_thinking import HoistThinkingAdapter
from harness.broken.merge_episodes import MergeEpisodesAdapter
from tests.support import library_case, run_cell


def test_a_joined_gemini_thought_warns() -> None:
    result, _ = run_cell(
        MergeEpisodesAdapter(), library_case("gemini-back-to-back-signed-thoughts-split"), "gemini"
    )
    assert result.verdict == "pass"
    assert {w.severity for w in result.warnings} == {"should"}


def test_gemini_thoughts_moved_around_their_calls_warn_and_name_the_cost() -> None:
    result, _ = run_cell(
        HoistThinkingAdapter(),
        library_case("gemini-saved-interleaved-runs-replayed-as-recorded"),
        "gemini",
    )
    assert result.verdict == "pass"
    [order, *_] = [w for w in result.warnings if w.check == "invariant/ledger-order"]
    assert order.severity == "should"
    assert "reasoning continuity, not a rejection" in order.message


def test_the_same_join_on_anthropic_fails() -> None:
    result, _ = run_cell(
        MergeEpisodesAdapter(),
        library_case("back-to-back-signed-thinking-blocks-kept-apart"),
        "anthropic-messages",
    )
    assert result.verdict == "fail"
    assert any(v.severity == "must" for v in result.violations)


def test_a_gemini_call_signature_stays_a_must() -> None:
    result, _ = run_cell(
        MergeEpisodesAdapter(), library_case("gemini-thought-runs-between-parallel-calls"), "gemini"
    )
    assert result.verdict == "fail"
