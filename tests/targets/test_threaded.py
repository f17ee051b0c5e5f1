"""A client talking through a message thread gets the verdict a stateless client gets
(rules 56-59): the provider judges the conversation it rebuilds.  Clients that send a
wrong delta fail with the rule their rebuilt conversation breaks."""

from __future__ import annotations

import json
from typing import ClassVar

import pytest

from conformance._provider.scripted import ScriptedProvider
from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._runner import RunOptions, session_for
from conformance._targets.adapter import drive_adapter
from conformance.verdict import Result
from conformance.wires._registry import get_wire
from harness.threaded import ThreadedReference, ThreadedSession
from tests.support import column_results, failing, judged, library, run_library
from tests.targets.merge_adjacent import _MergeAdjacentSession

A = "anthropic-messages"
TOOL_LOOP = "thread-interleaved-tool-loop-continued-with-results-only"
PAUSED = "thread-pause-turn-resumed-with-no-new-message"
RETRIED = "thread-continue-retried-after-overloaded-not-duplicated"
CASES = (
    TOOL_LOOP,
    PAUSED,
    RETRIED,
    "interleaved-episodes-across-tool-loop",
    "interleaved-two-episodes-one-response",
    "pause-turn-server-tool-blocks-resent",
    "anthropic-overloaded-error-event-mid-tool-use",
    "back-to-back-signed-thinking-blocks-kept-apart",
)


class _ThreadedMergeAdjacent(ThreadedSession, _MergeAdjacentSession):
    pass


class ThreadedMergeAdjacent(ReferenceAdapter):
    """The merge-adjacent bug, sent through a thread."""

    name: ClassVar[str] = "threaded-merge-adjacent-signed-thinking"
    session_class: ClassVar[type[ReferenceSession]] = _ThreadedMergeAdjacent


def results(target_name: str, cases: tuple[str, ...] = CASES) -> dict[str, Result]:
    return column_results(target_name, A, cases, RunOptions(timeout=30))


def threads_of(case_id: str) -> list[str | None]:
    """The ``thread.type`` of each request the threaded reference sends on the case."""
    case = next(c.case for c in library().cases if c.case.id == case_id)
    provider = ScriptedProvider(case, get_wire(A))
    session = session_for(case, A, None)
    drive_adapter(ThreadedReference(), session, provider, "/v1/messages", False)
    return [
        (json.loads(e.request.body).get("thread") or {}).get("type") for e in provider.exchanges
    ]


def test_the_threaded_reference_continues_its_threads() -> None:
    assert threads_of(TOOL_LOOP) == ["create", "continue", "continue"]
    assert threads_of(PAUSED) == ["create", "continue"]
    # The fault leaves the thread where it was: the retry continues from the same id.
    assert threads_of(RETRIED) == ["create", "continue", "continue"]


def test_a_threaded_client_gets_the_stateless_client_s_verdict() -> None:
    stateless = results("reference")
    threaded = results("tests.targets.threaded:ThreadedReference")
    assert set(stateless) == set(threaded) == set(CASES)
    assert {case: judged(r) for case, r in threaded.items()} == {
        case: judged(r) for case, r in stateless.items()
    }
    assert {r.verdict for r in threaded.values()} == {"pass"}


def test_a_bug_sent_through_a_thread_fails_as_it_does_without() -> None:
    stateless = results("tests.targets.merge_adjacent:MergeAdjacentSignedThinking")
    threaded = results(f"{__name__}:ThreadedMergeAdjacent")
    assert stateless["back-to-back-signed-thinking-blocks-kept-apart"].verdict == "fail"
    assert {case: judged(r) for case, r in threaded.items()} == {
        case: judged(r) for case, r in stateless.items()
    }


@pytest.mark.parametrize(
    ("variant", "case", "rule"),
    [
        ("ThreadedDuplicatedMessage", TOOL_LOOP, "anthropic-messages/tool-result-matched"),
        ("ThreadedDuplicatedMessage", RETRIED, "anthropic-messages/tool-result-matched"),
        ("ThreadedWrongPrevious", TOOL_LOOP, "anthropic-messages/thread-not-found"),
        ("ThreadedWrongPrevious", PAUSED, "anthropic-messages/thread-not-found"),
        ("ThreadedResentHistory", TOOL_LOOP, "anthropic-messages/tool-use-answered"),
        ("ThreadedWithoutToolResults", TOOL_LOOP, "expect"),
        ("ThreadedWithoutToolResults", RETRIED, "expect"),
    ],
)
def test_a_wrong_delta_fails_with_the_rule_it_breaks(variant: str, case: str, rule: str) -> None:
    (result,) = results(f"tests.targets.threaded:{variant}", (case,)).values()
    assert result.verdict == "fail"
    assert result.violations[0].check == rule


def test_a_missing_tool_result_is_also_named_by_its_thread_rule() -> None:
    (result,) = results("tests.targets.threaded:ThreadedWithoutToolResults", (TOOL_LOOP,)).values()
    assert "anthropic-messages/thread-calls-unanswered" in {v.check for v in result.warnings}


def test_a_resent_history_is_also_named_by_its_thread_rule() -> None:
    (result,) = results("tests.targets.threaded:ThreadedResentHistory", (PAUSED,)).values()
    assert result.verdict == "pass"  # the rebuilt conversation breaks no documented rule
    assert {v.check for v in result.warnings} == {"anthropic-messages/thread-delta-resent"}


def test_on_an_unsupported_model_the_client_falls_back_and_passes() -> None:
    case = "thread-unsupported-model-falls-back-to-the-whole-conversation"
    assert threads_of(case) == ["create", None, None]
    (result,) = results("tests.targets.threaded:ThreadedReference", (case,)).values()
    assert result.verdict == "pass"
    assert result.violations == ()


def test_the_threaded_reference_passes_the_whole_library_strictly() -> None:
    """Every column, strictly and on any evidence: threads break nothing (the other
    columns run it as the reference)."""
    assert failing(run_library(ThreadedReference(), strict=True, evidence="any")) == set()
