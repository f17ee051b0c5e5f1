"""A target may go on from a turn the provider cut short (``max_tokens``, ``no_finish``,
a cut tool call) or answered with nothing, instead of ending it: pydantic-ai asks again
with a nudge of its own ("please return text or call a tool"), the handling-stop-reasons
docs suggest asking again after ``max_tokens``. The provider accepts both, so the cases
about such turns script the continuation as an ``if_continued`` response; the provider
tells a continuation from a new turn by whether the request says one of the case's
prompts. Found running the suite on pydantic-ai: before, these cases failed it with
"request 3 is beyond the script"."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from conformance._cases.schema import Turn
from conformance._reference import ReferenceAdapter
from conformance._reference.adapter import ReferenceSession
from conformance._runner import plan
from conformance._targets.resolve import target_from_object
from conformance.vocabulary import Text, ToolCall
from tests.support import failing, library, library_case, reference_run, run_cell, run_library

NUDGE = "<system>Please return text or call a tool.</system>"
GOES_ON = (
    "chat-length-cut-call-not-run",
    "chat-length-cut-turn-runs-none-of-its-calls",
    "deepseek-length-cut-call-after-tool-round",
    "empty-terminal-max-tokens-after-tool-turn-not-replayed",
    "responses-incomplete-mid-function-call-not-run",
    "truncation-max-tokens-mid-tool-use-partial-json",
    "truncation-no-finish-mid-tool-use",
    "gemini-max-tokens-complete-calls-not-run",
    "truncation-max-tokens-dangling-episode-after-tool-call",
    "gemini-max-tokens-partial-thought-after-call-not-merged",
    "gemini-stop-with-no-parts-after-function-response",
    "empty-terminal-end-turn-after-tool-result-not-replayed",
    "truncation-no-finish-mid-thinking-after-tool-result",
    "max-tokens-recovery-cut-thinking-not-replayed-when-continuation-calls-tool",
    "max-tokens-recovery-signed-thinking-kept-before-continuation-call",
    "anthropic-max-tokens-cut-call-after-interleaved-thinking",
)


class _NudgingSession(ReferenceSession):
    """Ends no turn on a cut or empty response: adds a user nudge of its own and asks
    again, as pydantic-ai's agent loop does, after every such response (a continuation
    cut again is nudged again)."""

    def continues(self) -> bool:
        if super().continues():
            return True
        last = self.history.messages[-1]
        empty = last.role != "assistant" or not last.blocks
        cut = self.history.last_stop in ("max_tokens", "no_finish")
        said = self.asks_again_with()
        if (cut or empty) and said is not None:
            self.add_user(said)
            return True
        return False

    def asks_again_with(self) -> str | None:
        return NUDGE


class _NudgingAdapter(ReferenceAdapter):
    session_class = _NudgingSession


#: The one cell the nudging client fails on its own merit: it stores the text of a
#: ``response.failed`` stream and replays it in the nudge, which rule 21 forbids (the
#: failure is what it sends, not that it goes on).
OWN_FAULTS = {("responses-failed-event-mid-answer", "openai-responses")}


def test_going_on_after_every_cut_or_empty_response_passes_the_library() -> None:
    """Found by a client that asks again after every cut or empty response: 82 cells of
    36 cases failed it ("beyond the script", or an output judged only for ending the
    turn); the lint now makes every such response carry its continuation."""
    ending = failing(reference_run(strict=False))
    going_on = failing(run_library(_NudgingAdapter(), strict=False))
    assert going_on - ending == OWN_FAULTS


def _continued_cells() -> list[tuple[str, str]]:
    target = target_from_object(ReferenceAdapter())
    cases = [c.case for c in library().cases if any(r.if_continued for r in c.case.given.responses)]
    return [(job.case.id, job.column) for job in plan(cases, target)]


def _cells() -> list[tuple[str, str]]:
    target = target_from_object(ReferenceAdapter())
    return [(job.case.id, job.column) for c in GOES_ON for job in plan([library_case(c)], target)]


@pytest.mark.parametrize(("case_id", "column"), _cells())
def test_going_on_with_a_nudge_is_served_the_continuation(case_id: str, column: str) -> None:
    result, transcript = run_cell(_NudgingAdapter(), library_case(case_id), column)
    assert "beyond the script" not in (result.reason or "")
    assert all(v.check != "provider/beyond-script" for v in result.violations)
    assert result.verdict == "pass", (result.reason, result.violations)
    served = [e.served for e in transcript.exchanges]
    # a nudge is no identical retry, so an ``if_retried`` answer is passed over
    responses = library_case(case_id).given.responses
    assert served == [i for i, r in enumerate(responses) if not r.if_retried]


@pytest.mark.parametrize(("case_id", "column"), _continued_cells())
def test_ending_the_turn_still_passes_over_the_continuation(case_id: str, column: str) -> None:
    result, transcript = run_cell(ReferenceAdapter(), library_case(case_id), column)
    assert result.verdict == "pass", (result.reason, result.violations)
    responses = library_case(case_id).given.responses
    skipped = [i for i, r in enumerate(responses) if r.if_continued]
    assert skipped
    assert not set(skipped) & {e.served for e in transcript.exchanges}


@pytest.mark.parametrize(
    "first",
    [
        {"stop": "max_tokens", "blocks": [{"kind": "text", "text": "cut"}]},
        {"stop": "no_finish", "blocks": [{"kind": "text", "text": "cut"}]},
        {"stop": "end", "blocks": []},
        {"stop": "end", "blocks": [{"kind": "text", "text": "\n\n"}]},
    ],
)
def test_a_continuation_may_follow_a_truncated_or_empty_response(first: dict[str, object]) -> None:
    turn = Turn.model_validate(
        {"user": "hi", "responses": [first, {"if_continued": True, "stop": "end"}]}
    )
    assert turn.responses[1].if_continued


def test_a_continuation_never_follows_a_complete_answer() -> None:
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


REMINDER = "<system-reminder>The date is 2026-12-02.</system-reminder>"


class _RemindingSession(ReferenceSession):
    """Writes a reminder of its own before the prompt in every user message (as
    qwen-code does) and ends each cut or empty turn like the reference."""

    def add_user(self, text: str) -> None:
        super().add_user(f"{REMINDER}\n{text}")


class _RemindingAdapter(ReferenceAdapter):
    session_class = _RemindingSession


@pytest.mark.parametrize(("case_id", "column"), _continued_cells())
def test_a_prompt_beside_the_targets_own_text_still_starts_the_next_turn(
    case_id: str, column: str
) -> None:
    """Found on openai-agents (two user messages merged once the empty turn between them
    was dropped) and qwen-code (its reminder blocks): the next prompt beside other text
    was taken for a continuation, and the next turn ran past the script."""
    result, transcript = run_cell(_RemindingAdapter(), library_case(case_id), column)
    assert "beyond the script" not in (result.reason or "")
    assert "stopped after" not in (result.reason or "")
    responses = library_case(case_id).given.responses
    continued = {i for i, r in enumerate(responses) if r.if_continued}
    assert not continued & {e.served for e in transcript.exchanges}


class _ResendingSession(_NudgingSession):
    """Asks again after a cut or empty response by sending its prompt once more."""

    def asks_again_with(self) -> str | None:
        return self._prompt


class _ResendingAdapter(ReferenceAdapter):
    session_class = _ResendingSession


@pytest.mark.parametrize(("case_id", "column"), _cells())
def test_sending_the_prompt_again_is_served_the_continuation(case_id: str, column: str) -> None:
    """Asking again with the same prompt goes on with the turn, as a nudge does."""
    result, transcript = run_cell(_ResendingAdapter(), library_case(case_id), column)
    assert "beyond the script" not in (result.reason or "")
    responses = library_case(case_id).given.responses
    continued = {i for i, r in enumerate(responses) if r.if_continued}
    assert continued <= {e.served for e in transcript.exchanges}


class _TrimmingSession(_NudgingSession):
    """Takes an answer whose only blocks are whitespace-only texts for an empty one and
    asks again, as qwen-code 0.24.4 does (it trims the answer it got)."""

    def continues(self) -> bool:
        if super().continues():
            return True
        last = self.history.messages[-1]
        blank = last.role == "assistant" and all(
            isinstance(b, Text) and not b.text.strip() for b in last.blocks
        )
        if blank:
            self.add_user(NUDGE)
        return blank


class _TrimmingAdapter(ReferenceAdapter):
    session_class = _TrimmingSession


def _blank_cells() -> list[tuple[str, str]]:
    target = target_from_object(ReferenceAdapter())
    cases = [
        c.case
        for c in library().cases
        if any(
            r.blocks and all(isinstance(b, Text) and not b.text.strip() for b in r.blocks)
            for r in c.case.given.responses
        )
    ]
    return [(job.case.id, job.column) for job in plan(cases, target)]


@pytest.mark.parametrize(("case_id", "column"), _blank_cells())
def test_asking_again_after_a_blank_answer_is_served_the_continuation(
    case_id: str, column: str
) -> None:
    """Found on qwen-code 0.24.4, which asks again after a whitespace-only answer: the
    suite scripted a continuation only after an empty one, so the next prompt ran past
    the script (`empty-content-blank-final-answer-not-replayed`)."""
    result, transcript = run_cell(_TrimmingAdapter(), library_case(case_id), column)
    assert result.verdict == "pass", (result.reason, result.violations)
    responses = library_case(case_id).given.responses
    continued = {i for i, r in enumerate(responses) if r.if_continued}
    assert continued <= {e.served for e in transcript.exchanges}


class _DiscardingSession(ReferenceSession):
    """Discards a response cut by ``max_tokens`` that holds no call and resends the
    request as it was, as qwen-code 0.24.4 does ("Retrying provider attempt", a larger
    ``max_tokens`` its only change)."""

    def continues(self) -> bool:
        if super().continues():
            return True
        last = len(self.history._messages) - 1
        cut = self.history.last_stop == "max_tokens" and self.history.messages[-1].blocks
        if not cut or any(isinstance(b, ToolCall) for b in self.history.messages[-1].blocks):
            return False
        del self.history._messages[last]
        self.history._stops.pop(last)
        return True


class _DiscardingAdapter(ReferenceAdapter):
    session_class = _DiscardingSession


SIGNED_CUT = "max-tokens-recovery-signed-thinking-kept-before-continuation-call"


@pytest.mark.parametrize("column", ["anthropic-messages", "openai-chat:openrouter"])
def test_discarding_the_cut_turn_and_resending_passes(column: str) -> None:
    """Found on qwen-code 0.24.4: the signed block of a discarded cut response was owed
    to the merged turn, though it never entered the history and the provider accepts the
    resent request."""
    result, transcript = run_cell(_DiscardingAdapter(), library_case(SIGNED_CUT), column)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert [e.served for e in transcript.exchanges] == [0, 1, 2]
    first, resent = (e.request for e in transcript.exchanges[:2])
    assert first == resent
