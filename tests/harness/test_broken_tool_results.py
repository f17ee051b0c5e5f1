"""Issue 13: a result per call and failing tools.  Before, every call to a tool got the
tool's one fixed result and none could fail, so a client that answers by tool name, or
drops the error flag, passed every case."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

import pytest

from conformance._cases.schema import Given
from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._targets.api import CaseBrief, ToolDef, ToolResultIn
from conformance.vocabulary import ThinkingConfig
from harness.broken.tool_results import DropErrorFlagAdapter, ResultPerToolAdapter
from tests.support import failing, library_case, run_cell, run_library

CASE = "per-call-results-failing-tool-keeps-its-own-result"
GEMINI_CASE = "gemini-parallel-calls-own-results-failing-one-flagged"
A, C, R, G = "anthropic-messages", "openai-chat", "openai-responses", "gemini"


def test_a_result_cache_keyed_by_tool_fails_on_every_wire() -> None:
    assert failing(run_library(ResultPerToolAdapter())) == {
        (CASE, A),
        (CASE, C),
        (CASE, R),
        (GEMINI_CASE, G),
        (CASE, "openai-chat:kimi"),
        (CASE, "openai-chat:ollama"),
        ("gemini-compat-failing-parallel-call-keeps-its-own-result", "openai-chat:gemini"),
    }


def test_a_dropped_error_flag_fails_where_the_wire_has_one_and_only_when_strict() -> None:
    strict = failing(run_library(DropErrorFlagAdapter(), strict=True))
    assert strict == {(CASE, A), (GEMINI_CASE, G)}  # Anthropic is_error, Gemini's error form
    assert failing(run_library(DropErrorFlagAdapter(), strict=False)) == set()


def session(**results: tuple[str, bool]) -> CaseBrief:
    return CaseBrief(
        case="c",
        wire=A,
        dialect=None,
        model="m",
        system=None,
        prompts=("p",),
        tools=(ToolDef("t", "", {}, "default"),),
        thinking=ThinkingConfig(),
        max_tokens=1024,
        results=results,
    )


def test_a_session_answers_a_call_with_its_own_result_else_its_tools() -> None:
    s = session(toolu_a=("own", True))
    assert s.result_of("toolu_a", "t") == ToolResultIn("toolu_a", "t", "own", True)
    assert s.result_of("toolu_b", "t") == ToolResultIn("toolu_b", "t", "default", False)
    assert s.contract()["results"] == {"toolu_a": {"content": "own", "is_error": True}}
    assert "results" not in session().contract()  # unchanged for cases without any


def test_results_name_scripted_calls() -> None:
    turns = [{"user": "p", "responses": [{"stop": "end"}]}]
    with pytest.raises(ValueError, match="'toolu_x' is no scripted tool call's id"):
        Given.model_validate({"turns": turns, "results": {"toolu_x": {"content": "c"}}})


class ErrorEnvelopeSession(ReferenceSession):
    """A failed tool's output wrapped as ``{"error": <output>}`` with no flag, as
    pydantic-ai sends it where the wire has no error channel: accepted by the provider."""

    def add_tool_results(self, results: Sequence[ToolResultIn]) -> None:
        super().add_tool_results(
            [
                replace(r, content=json.dumps({"error": r.content}), is_error=False)
                if r.is_error
                else r
                for r in results
            ]
        )


class ErrorEnvelopeAdapter(ReferenceAdapter):
    name: ClassVar[str] = "error-envelope"
    session_class: ClassVar[type[ReferenceSession]] = ErrorEnvelopeSession


@pytest.mark.parametrize("column", [C, R])
def test_a_failed_output_in_an_error_envelope_passes_where_there_is_no_flag(column: str) -> None:
    """Suite fix (real-library run, pydantic-ai 2.68.0): the failed call's own text was
    compared byte for byte, so the envelope failed a cell the provider accepts."""
    result, _ = run_cell(ErrorEnvelopeAdapter(), library_case(CASE), column, strict=True)
    assert result.verdict == "pass"
