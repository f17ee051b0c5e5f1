"""A ``length``-cut DeepSeek turn whose first call is complete and whose second is cut:
running the complete one is a ``should`` (the provider accepts it, suite-fixes.md 2),
running the cut one stays a ``must`` (``invariant/truncated-call-not-run``).
pydantic-ai 2.68.0 runs the complete call (suite-fixes.md 8)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import pytest

from conformance._reference import ReferenceAdapter
from conformance._reference.adapter import ReferenceSession
from conformance._targets.api import CallToRun, WireResponse
from conformance.vocabulary import TRUNCATING_STOPS, ToolCall, ToolResult
from tests.support import library_case, run_cell

CASE = "deepseek-length-cut-second-parallel-call-runs-neither"
COLUMNS = ("openai-chat:deepseek", "openai-chat:kimi")
RESULT = "created"  # create_file's scripted result: what running a call sends back
NOT_RUN = "not run: the response was cut before this call was complete"


class _RunsCompleteCallSession(ReferenceSession):
    """Keeps every call of a cut turn and ends the turn with their results: the real
    result for each complete call (as if it ran), an error for a cut one, unless
    ``runs_cut`` sends the real result for that too."""

    runs_cut: ClassVar[bool] = False

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        decoded = self.codec.decode(response)
        if decoded.stop not in TRUNCATING_STOPS:
            return super().receive(response)
        blocks = tuple(
            b.model_copy(update={"arguments": {}})
            if isinstance(b, ToolCall) and not b.complete
            else b
            for b in self.consolidate(decoded)
        )
        self.history.add_assistant(blocks, decoded.stop)
        self.history.add_tool_results(
            [
                ToolResult(call_id=b.id, content=RESULT)
                if b.complete or self.runs_cut
                else ToolResult(call_id=b.id, content=NOT_RUN, is_error=True)
                for b in self.consolidate(decoded)
                if isinstance(b, ToolCall)
            ]
        )
        return []


class _RunsBothSession(_RunsCompleteCallSession):
    runs_cut = True


class _RunsCompleteCallAdapter(ReferenceAdapter):
    session_class = _RunsCompleteCallSession


class _RunsBothAdapter(ReferenceAdapter):
    session_class = _RunsBothSession


@pytest.mark.parametrize("column", COLUMNS)
def test_running_the_complete_call_is_a_should(column: str) -> None:
    result, transcript = run_cell(_RunsCompleteCallAdapter(), library_case(CASE), column)
    assert result.verdict == "pass", (result.reason, result.violations)
    # The continuation (1) is passed over: the adapter ends the turn at the cut.
    assert [e.served for e in transcript.exchanges] == [0, 2, 3]
    strict, _ = run_cell(_RunsCompleteCallAdapter(), library_case(CASE), column, strict=True)
    assert strict.verdict == "fail"
    assert {v.severity for v in strict.violations} == {"should"}, strict.violations


@pytest.mark.parametrize("column", COLUMNS)
def test_running_the_cut_call_stays_a_must(column: str) -> None:
    result, _ = run_cell(_RunsBothAdapter(), library_case(CASE), column)
    assert result.verdict == "fail"
    assert "invariant/truncated-call-not-run" in {
        v.check for v in result.violations if v.severity == "must"
    }
