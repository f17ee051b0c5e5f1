"""A dropped stream (a response cut before its final event) accepts every reaction the
provider accepts: sending the identical request again (served the case's ``if_retried``
answer, as a fault's retry is served the next answer), going on with the next prompt,
or ending with a non-zero exit.  One test per target kind: adapter and command."""

from __future__ import annotations

import shlex
import sys

import pytest

from conformance._cases.schema import Case, Given, Turn
from conformance._provider.scripted import same_json
from conformance._reference import ReferenceAdapter
from tests.support import library, library_case, run_cell
from tests.targets.dropped_stream import RetriesDroppedStream, _RetriesOnceSession


def _retry_cells() -> list[tuple[str, str]]:
    return sorted(
        (loaded.case.id, column)
        for loaded in library().cases
        if any(r.if_retried for r in loaded.case.given.responses)
        for column in loaded.case.wires
    )


RETRY_CELLS = _retry_cells()


def _without_retry_answers(case: Case) -> Case:
    """The case as it was before: no ``if_retried`` answer scripted, nor an
    ``if_continued`` one (a retry that goes on would take it)."""
    turns = tuple(
        Turn(
            user=t.user,
            responses=tuple(r for r in t.responses if not (r.if_retried or r.if_continued)),
        )
        for t in case.given.turns
    )
    given = Given.model_validate({**case.given.model_dump(), "turns": turns})
    return case.model_copy(update={"given": given})


def _dropped_index(case: Case) -> int:
    return next(i for i, r in enumerate(case.given.responses) if r.if_retried) - 1


def test_the_library_scripts_a_retry_answer_after_every_dropped_stream() -> None:
    assert {case for case, _ in RETRY_CELLS} == {
        "truncation-no-finish-after-signed-thinking",
        "truncation-no-finish-mid-thinking-after-tool-result",
        "truncation-no-finish-mid-tool-use",
    }


@pytest.mark.parametrize(("case_id", "column"), RETRY_CELLS)
def test_an_identical_retry_is_served_the_retry_answer(case_id: str, column: str) -> None:
    case = library_case(case_id)
    result, transcript = run_cell(RetriesDroppedStream(), case, column, strict=True)
    assert result.verdict == "pass", (result.reason, result.violations)
    dropped = _dropped_index(case)
    served = [e.served for e in transcript.exchanges]
    assert served[served.index(dropped) + 1] == dropped + 1  # the retry got its answer
    first, again = (transcript.exchanges[served.index(dropped) + k] for k in (0, 1))
    assert same_json(first.request.body, again.request.body)
    assert None not in served


@pytest.mark.parametrize(("case_id", "column"), RETRY_CELLS)
def test_before_the_retry_answer_an_identical_retry_did_not_pass(case_id: str, column: str) -> None:
    """The negative example: without the retry answer the retry takes the next turn's
    response, and the next prompt runs past the script."""
    result, _ = run_cell(
        RetriesDroppedStream(), _without_retry_answers(library_case(case_id)), column, strict=True
    )
    assert result.verdict != "pass"


@pytest.mark.parametrize(("case_id", "column"), RETRY_CELLS)
def test_going_on_passes_over_the_retry_answer(case_id: str, column: str) -> None:
    case = library_case(case_id)
    result, transcript = run_cell(ReferenceAdapter(), case, column, strict=True)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert _dropped_index(case) + 1 not in [e.served for e in transcript.exchanges]


class _ChangedRetrySession(_RetriesOnceSession):
    """Retries with the prompt appended a second time: not the identical request."""

    def continues(self) -> bool:
        if self._retry and self._prompt is not None:
            self.history.add_user(self._prompt)
        return super().continues()


class _ChangedRetry(ReferenceAdapter):
    session_class = _ChangedRetrySession


def test_a_changed_retry_is_not_served_the_retry_answer() -> None:
    case = library_case("truncation-no-finish-after-signed-thinking")
    result, transcript = run_cell(_ChangedRetry(), case, "anthropic-messages", strict=True)
    served = [e.served for e in transcript.exchanges]
    assert _dropped_index(case) + 1 not in served
    # Asking again with the prompt said once more goes on with the turn, as a nudge does:
    # it is served the continuation, which the provider accepts.
    continuation = next(i for i, r in enumerate(case.given.responses) if r.if_continued)
    assert continuation in served
    assert result.verdict == "pass", (result.reason, result.violations)


def test_same_json_ignores_spelling_not_content() -> None:
    assert same_json(b'{"a": 1, "b": [2]}', b'{"b":[2],"a":1}')
    assert not same_json(b'{"a": 1}', b'{"a": 2}')
    assert same_json(b"not json", b"not json")


AGENT = f"{shlex.quote(sys.executable)} -m conformance.agent"


@pytest.mark.slow
@pytest.mark.parametrize(("case_id", "column"), RETRY_CELLS)
def test_a_command_that_retries_a_dropped_stream_passes(case_id: str, column: str) -> None:
    from tests.targets.test_contract_v2 import run_cell as run_command_cell

    retrying = f"{AGENT} tests.targets.dropped_stream:RetriesDroppedStream"
    result = run_command_cell(retrying, case_id, column)
    assert result.verdict == "pass", (result.reason, result.violations)
    going_on = f"{AGENT} conformance._reference.adapter:ReferenceAdapter"
    assert run_command_cell(going_on, case_id, column).verdict == "pass"
