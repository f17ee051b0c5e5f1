"""A turn whose finish says tool_calls but whose call arguments are cut: ending the turn
and continuing the tool loop (the cut call answered with an error result) are both
accepted (rule 33: "answer each call with an error result, or drop it").  The case
scripts the continuation as an ``if_continued`` response, which a target that ends the
turn passes over."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import pytest
from pydantic import ValidationError

from conformance._cases.schema import Turn
from conformance._reference import ReferenceAdapter
from conformance._reference.adapter import ReferenceSession
from conformance._reference.turns import settle
from conformance._targets.api import CallToRun, WireResponse
from conformance.vocabulary import TRUNCATING_STOPS, ToolCall, ToolResult
from tests.support import library, library_case, run_cell

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


@pytest.mark.parametrize(("case_id", "column"), sorted(CUT_TOOL_CALLS))
def test_continuing_the_loop_after_a_cut_call_is_accepted(case_id: str, column: str) -> None:
    result, transcript = run_cell(_ContinuingAdapter(), library_case(case_id), column)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert len(transcript.exchanges) == 3
    assert [e.served for e in transcript.exchanges] == [0, 1, 2]


@pytest.mark.parametrize(("case_id", "column"), sorted(CUT_TOOL_CALLS))
def test_ending_the_turn_passes_over_the_continuation(case_id: str, column: str) -> None:
    result, transcript = run_cell(ReferenceAdapter(), library_case(case_id), column)
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


# ------------------------------------------------ calls cut by the output limit or a drop


def _cut_by_limit() -> set[tuple[str, str]]:
    """Every cell whose turn is cut by ``max_tokens`` / ``length`` / a dropped stream while
    it holds a tool call, and scripts the continuation ``if_continued``."""
    cells: set[tuple[str, str]] = set()
    for loaded in library().cases:
        for turn in loaded.case.given.turns:
            answers = [r for r in turn.responses if not r.if_retried]
            for before, response in pairwise(answers):
                holds_call = any(isinstance(b, ToolCall) for b in before.blocks)
                if response.if_continued and before.stop in TRUNCATING_STOPS and holds_call:
                    cells |= {(loaded.case.id, column) for column in loaded.case.wires}
    return cells


CUT_BY_LIMIT = _cut_by_limit()


def test_every_cut_by_limit_case_scripts_the_continuation() -> None:
    """The cases whose cut turn holds a call accept going on (rule 33)."""
    assert {case for case, _ in CUT_BY_LIMIT} >= {
        "chat-length-cut-call-not-run",
        "chat-length-cut-turn-runs-none-of-its-calls",
        "deepseek-length-cut-call-after-tool-round",
        "responses-incomplete-mid-function-call-not-run",
        "truncation-max-tokens-mid-tool-use-partial-json",
        "truncation-no-finish-mid-tool-use",
        "gemini-max-tokens-complete-calls-not-run",
        "gemini-max-tokens-partial-thought-after-call-not-merged",
        "truncation-max-tokens-dangling-episode-after-tool-call",
        "empty-terminal-max-tokens-after-tool-turn-not-replayed",
        "empty-terminal-output-last-nonempty-text",
        "responses-incomplete-after-text-reports-earlier-text",
        # pi-ai 0.73.1 ran the whole call of this cut Gemini turn and went on: accepted.
        "gemini-max-tokens-unsigned-tail-after-call-drop-accepted",
        # pydantic-ai 2.68.0 and openai-agents 0.24.0 ran the whole call and went on.
        "anthropic-max-tokens-complete-tool-use-not-run",
    }


NOT_RUN = "not run: the response was cut before this call was complete"


class _AnswersCutCallsSession(ReferenceSession):
    """Keeps every call of a cut turn (a cut one with ``{}``, the arguments a client that
    cannot parse them sends) and answers each with an error result, unrun (earendil-works/pi
    PR#6285); ``go_on`` then asks the model again once instead of ending the turn."""

    go_on = False
    runs_them = False
    _pending = False

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        decoded = self.codec.decode(response)
        blocks = self.consolidate(decoded)
        if decoded.stop not in TRUNCATING_STOPS:
            settled = settle(blocks, decoded.stop, self._offered(), self.guards, self._new_id)
            self.history.add_assistant(settled.blocks, decoded.stop)
            self.history.add_tool_results(settled.answered)
            return list(settled.calls)
        kept = tuple(
            b.model_copy(update={"arguments": {}})
            if isinstance(b, ToolCall) and not b.complete
            else b
            for b in blocks
        )
        calls = [b for b in kept if isinstance(b, ToolCall)]
        self.history.add_assistant(kept, decoded.stop)
        if self.runs_them:
            return [
                CallToRun(c.id, c.name, c.arguments) for c in calls if isinstance(c.arguments, dict)
            ]
        self.history.add_tool_results(
            [ToolResult(call_id=c.id, content=NOT_RUN, is_error=True) for c in calls]
        )
        self._pending = self.go_on and bool(calls)
        return []

    def continues(self) -> bool:
        if self._pending:
            self._pending = False
            return True
        return super().continues()


class _AnswersAndEndsSession(_AnswersCutCallsSession):
    pass


class _AnswersAndGoesOnSession(_AnswersCutCallsSession):
    go_on = True


class _RunsCutCallsSession(_AnswersCutCallsSession):
    runs_them = True


def _adapter(session: type[ReferenceSession]) -> ReferenceAdapter:
    class _Adapter(ReferenceAdapter):
        session_class = session

    return _Adapter()


@pytest.mark.parametrize(("case_id", "column"), sorted(CUT_BY_LIMIT))
@pytest.mark.parametrize(
    "reaction",
    ["ends, dropping the cut call", "ends, answering it unrun", "answers it unrun and goes on"],
)
def test_every_reaction_rule_33_accepts_passes(case_id: str, column: str, reaction: str) -> None:
    session = {
        "ends, dropping the cut call": ReferenceSession,
        "ends, answering it unrun": _AnswersAndEndsSession,
        "answers it unrun and goes on": _AnswersAndGoesOnSession,
    }[reaction]
    result, transcript = run_cell(_adapter(session), library_case(case_id), column)
    assert result.verdict == "pass", (result.reason, result.violations)
    served = [e.served for e in transcript.exchanges]
    continuation = next(
        i for i, r in enumerate(library_case(case_id).given.responses) if r.if_continued
    )
    if session is _AnswersAndGoesOnSession:
        assert continuation in served  # the continuation answered the loop that went on
    else:
        assert continuation not in served  # passed over: the turn ended at the cut
    assert None not in served  # no request beyond the script, none rejected


@pytest.mark.parametrize(("case_id", "column"), sorted(CUT_BY_LIMIT))
def test_running_a_call_of_the_cut_turn_fails(case_id: str, column: str) -> None:
    """Running a call whose arguments were cut is a must; running a complete call of a
    cut turn is a should (the provider accepts the request either way)."""
    result, _ = run_cell(_adapter(_RunsCutCallsSession), library_case(case_id), column)
    if _cut_arguments(case_id):
        assert result.verdict == "fail"
        assert any(v.severity == "must" for v in result.violations)
    else:
        assert result.verdict == "pass", (result.reason, result.violations)
        strict, _ = run_cell(
            _adapter(_RunsCutCallsSession), library_case(case_id), column, strict=True
        )
        assert strict.verdict == "fail"
        assert any(v.severity == "should" for v in strict.violations), strict.violations


def _cut_arguments(case_id: str) -> bool:
    """Whether a truncated response of the case holds a call whose arguments are cut."""
    return any(
        isinstance(b, ToolCall) and not b.complete
        for r in library_case(case_id).given.responses
        if r.stop in TRUNCATING_STOPS
        for b in r.blocks
    )


def test_a_continuation_may_follow_a_call_cut_by_the_output_limit() -> None:
    call = {"kind": "tool_call", "id": "c1", "name": "t", "arguments": {"a": 1}}
    turn = Turn.model_validate(
        {
            "user": "hi",
            "responses": [
                {"stop": "max_tokens", "blocks": [call]},
                {"if_continued": True, "stop": "end", "blocks": [{"kind": "text", "text": "a"}]},
            ],
        }
    )
    assert turn.responses[1].if_continued
    with pytest.raises(ValidationError, match="`if_continued` follows a response"):
        Turn.model_validate(
            {
                "user": "hi",
                "responses": [
                    {"stop": "tool_calls", "blocks": [call]},
                    {"if_continued": True, "stop": "end"},
                ],
            }
        )
