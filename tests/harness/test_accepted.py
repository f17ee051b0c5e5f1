"""Each accepted-variant adapter gets no ``fail`` and no ``error`` on any cell.

The mirror image of ``test_broken``: each variant is the reference with one spelling a
widely used library sends and the provider accepts (issue 15).  Where the class was a
``should``, the run is strict, so a warning would show too.
"""

from __future__ import annotations

import json

import pytest

from conformance._cases.library import load_library
from conformance._reference.adapter import ReferenceAdapter
from conformance._runner import RunOptions, plan, run_jobs
from conformance._targets.api import Adapter
from conformance._targets.resolve import target_from_object
from harness.accepted import (
    ACCEPTED_ADAPTERS,
    AnswerCutCallsAdapter,
    BlankTextKeptAdapter,
    EmptyAssistantKeptAdapter,
    EmptyReasoningContentAdapter,
    MovingBreakpointAdapter,
    NoErrorFlagAdapter,
    ReturnValueAdapter,
    UrlSafeSignatureAdapter,
    VerbatimOrderAdapter,
)
from tests.support import failing, library_case, reference_run, run_cell, run_library

#: Whether each variant runs strict: its class must not even warn.  The error flag stays
#: a ``should`` (a warning), and the verbatim order rests on design evidence (a warning
#: under any strictness: only ``--evidence any`` counts it).
STRICT: dict[type[Adapter], bool] = {
    UrlSafeSignatureAdapter: True,
    ReturnValueAdapter: True,
    EmptyReasoningContentAdapter: True,
    MovingBreakpointAdapter: True,
    VerbatimOrderAdapter: True,
    NoErrorFlagAdapter: False,
    AnswerCutCallsAdapter: True,
    BlankTextKeptAdapter: True,
    EmptyAssistantKeptAdapter: True,
}


def test_every_variant_is_listed() -> None:
    assert set(STRICT) == set(ACCEPTED_ADAPTERS)


@pytest.mark.parametrize("adapter", ACCEPTED_ADAPTERS, ids=lambda a: a.name)
def test_an_accepted_variant_has_no_fail_and_no_error(adapter: type[Adapter]) -> None:
    results = run_library(adapter(), strict=STRICT[adapter])
    ran = [r for r in results.values() if r.verdict != "n/a"]
    assert ran, "the variant ran no cell"
    assert failing(results) == set()


def test_the_no_error_flag_variant_is_warned_about_where_the_flag_is_owed() -> None:
    results = run_library(NoErrorFlagAdapter(), strict=True)
    assert ("truncation-max-tokens-dangling-episode-after-tool-call", "anthropic-messages") in (
        failing(results)
    )


def test_the_reference_passes_strict() -> None:
    assert failing(reference_run(strict=True)) == set()


def test_the_verbatim_order_fails_only_when_design_evidence_counts() -> None:
    """The design-only leading-thinking cells: warnings by default, failures under
    ``--evidence any`` (they failed by default before issue 15)."""
    resolved = target_from_object(VerbatimOrderAdapter())
    jobs = plan((c.case for c in load_library().cases), resolved)
    results = run_jobs(resolved, jobs, RunOptions(strict=False, evidence="any"))
    assert {r.case for r in results if r.verdict in ("fail", "error")} == {
        "leading-thinking-every-tool-turn-stable",
        "leading-thinking-manual-every-round-text-first",
        "leading-thinking-manual-first-run-only",
        "leading-thinking-manual-redacted-after-text-moves-first",
        "leading-thinking-manual-run-of-two-moves-together",
        "leading-thinking-manual-signature-only-block-after-text-moves-first",
        "leading-thinking-manual-text-first-response",
    }


def test_answering_a_cut_call_keeps_the_thinking_around_it() -> None:
    """The other repair rule 16 names: the cut tool_use stays (its input an empty object)
    with an error result, so the latest message keeps both thinking blocks and ends with
    the call; the reference sends none of that message's thinking instead."""
    case = library_case("anthropic-max-tokens-cut-call-after-interleaved-thinking")
    for adapter, kinds in (
        (AnswerCutCallsAdapter(), ["thinking", "text", "thinking", "tool_use"]),
        (ReferenceAdapter(), ["text"]),
    ):
        result, transcript = run_cell(adapter, case, "anthropic-messages", strict=True)
        assert result.verdict == "pass", (result.reason, result.violations)
        body = json.loads(transcript.exchanges[1].request.body)
        (assistant,) = [m for m in body["messages"] if m["role"] == "assistant"]
        assert [b["type"] for b in assistant["content"]] == kinds
