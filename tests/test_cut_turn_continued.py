"""A turn whose finish says tool_calls but whose call arguments are cut: ending the turn
and continuing the tool loop (the cut call answered with an error result) are both
accepted (rule 33: "answer each call with an error result, or drop it").  The case
scripts the continuation as an ``if_continued`` response, which a target that ends the
turn passes over."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from conformance.cases.schema import Case, Turn
from conformance.reference import ReferenceAdapter
from conformance.reference.adapter import ReferenceSession
from conformance.runner import RunOptions, plan, run_job
from conformance.targets.resolve import target_from_object
from conformance.transcript import Transcript
from conformance.verdict import Result
from tests.support import library

CUT_TOOL_CALLS = {
    ("chat-tool-calls-finish-with-cut-arguments-not-run", "openai-chat"),
    ("chat-tool-calls-finish-cut-call-beside-complete-one", "openai-chat"),
    ("chat-tool-calls-finish-cut-call-beside-complete-one", "openai-chat:deepseek"),
}


class _ContinuesSession(ReferenceSession):
    """Answers (or drops) the cut calls as the reference does, then asks the model again
    once instead of ending the turn."""

    asked_again = False

    def continues(self) -> bool:
        if super().continues():
            return True
        if self.history.last_stop == "tool_calls" and not self.asked_again:
            self.asked_again = True
            return True
        return False


class _ContinuingAdapter(ReferenceAdapter):
    session_class = _ContinuesSession


def _case(case_id: str) -> Case:
    return next(c.case for c in library().cases if c.case.id == case_id)


def _run(target: object, case_id: str, column: str) -> tuple[Result, Transcript]:
    resolved = target_from_object(target)
    job = next(j for j in plan([_case(case_id)], resolved) if j.column == column)
    result, transcript = run_job(resolved, job, RunOptions(strict=False))
    assert transcript is not None
    return result, transcript


@pytest.mark.parametrize(("case_id", "column"), sorted(CUT_TOOL_CALLS))
def test_continuing_the_loop_after_a_cut_call_is_accepted(case_id: str, column: str) -> None:
    result, transcript = _run(_ContinuingAdapter(), case_id, column)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert len(transcript.exchanges) == 3
    assert [e.served for e in transcript.exchanges] == [0, 1, 2]


@pytest.mark.parametrize(("case_id", "column"), sorted(CUT_TOOL_CALLS))
def test_ending_the_turn_passes_over_the_continuation(case_id: str, column: str) -> None:
    result, transcript = _run(ReferenceAdapter(), case_id, column)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert [e.served for e in transcript.exchanges] == [0, 2]


def test_a_continuation_follows_a_cut_call() -> None:
    with pytest.raises(ValidationError, match="`if_continued` follows a response"):
        Turn.model_validate(
            {
                "user": "hi",
                "responses": [
                    {"stop": "end", "blocks": [{"kind": "text", "text": "a"}]},
                    {"if_continued": True, "stop": "end"},
                ],
            }
        )
