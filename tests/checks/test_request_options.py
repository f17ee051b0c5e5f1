"""Issue 13: expectations on request options (``sent``: headers and body values;
``same``: a value unchanged across requests).  Before, no expectation could see a
header or a top-level body field, so a thinking budget changed mid-loop, a dropped beta
header or a forgotten ``include`` passed every case."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from conformance._cases.schema import Case
from conformance._checks.expectations import expectation_violations
from conformance._transcript import Exchange, Transcript
from conformance.http import HttpRequest, HttpResponse
from conformance.wires.context import RequestView

BETA = "interleaved-thinking-2025-05-14"


def case(*expect: dict[str, Any]) -> Case:
    return Case.model_validate(
        {
            "id": "options",
            "title": "Request options across a loop",
            "provenance": [{"rule": 12}],
            "features": ["thinking-config"],
            "wires": {"fake": "the fake wire of the tests"},
            "given": {"turns": [{"user": "p", "responses": [{"stop": "end"}]}]},
            "expect": list(expect),
        }
    )


def run(c: Case, *requests: tuple[dict[str, Any], dict[str, str]]) -> list[str]:
    exchanges = [
        Exchange(
            n,
            HttpRequest("POST", "/v1/x", json.dumps(body).encode(), headers=headers),
            RequestView(wire="fake", raw=body),
            HttpResponse(200, b"{}"),
            n - 1,
        )
        for n, (body, headers) in enumerate(requests, 1)
    ]
    return [v.message for v in expectation_violations(Transcript(c, "fake", None, exchanges))]


THINKING = {"thinking": {"type": "enabled", "budget_tokens": 4096}, "include": ["a", "b"]}


def test_same_holds_on_equal_values_and_names_the_first_change() -> None:
    c = case({"same": ["thinking", "header:anthropic-beta"]})
    beta = {"anthropic-beta": BETA}
    assert run(c, (THINKING, beta), (THINKING, beta)) == []
    halved = {**THINKING, "thinking": {"type": "enabled", "budget_tokens": 2048}}
    [changed] = run(c, (THINKING, beta), (halved, beta))  # was: no way to say it
    assert "request 2: thinking is" in changed
    assert "request 1 sent" in changed
    [dropped] = run(c, (THINKING, beta), (THINKING, {}))
    assert "request 2: header:anthropic-beta is (absent)" in dropped


def test_sent_reads_header_tokens_body_values_and_list_members() -> None:
    c = case(
        {
            "sent": {
                "header": {"anthropic-beta": BETA},
                "body": {"thinking.type": "enabled", "tool_choice": None},
                "lists": {"include": ["b"]},
            }
        }
    )
    both = {"anthropic-beta": f"other-beta, {BETA}"}
    assert run(c, (THINKING, both)) == []
    problems = run(c, ({"tool_choice": {"type": "any"}, "include": ["a"]}, {}))
    assert any(f"header anthropic-beta does not list {BETA!r}" in p for p in problems)
    assert any("thinking.type is (absent)" in p for p in problems)
    assert any("tool_choice is" in p and "expected (absent)" in p for p in problems)
    assert any("include is" in p and "lacks 'b'" in p for p in problems)


def test_a_sent_pattern_says_something() -> None:
    with pytest.raises(ValidationError, match="at least one header"):
        case({"sent": {}})
