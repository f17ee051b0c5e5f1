"""Case expectations, evaluated as the schema defines them: each kind holds and fails."""

from __future__ import annotations

from typing import Any

import pytest

from conformance._cases.schema import BlockPattern
from conformance._checks.expectations import expectation_violations, matches
from conformance._transcript import Transcript
from conformance.verdict import Violation
from conformance.vocabulary import FinalOutput, Reasoning, Text
from conformance.wires.context import RequestView
from tests.checks.kit import (
    call,
    ideal_views,
    make_case,
    message,
    replace_message,
    respond,
    result,
    text,
    think,
    transcript,
    view,
)

SCRIPT = [
    respond("tool_calls", think("A", "sigA"), call("alpha"), think("B", "sigB"), call("beta")),
    respond("end", text("Both files read.")),
]
INTERLEAVED = [
    {"kind": "reasoning", "text": "A", "signature": "sigA"},
    {"kind": "tool_call", "id": "alpha"},
    {"kind": "reasoning", "text": "B", "signature": "sigB"},
    {"kind": "tool_call", "id": "beta"},
]


def evaluate(
    *expect: dict[str, Any],
    views: list[RequestView] | None = None,
    output: FinalOutput | None = None,
    output_error: str | None = None,
) -> list[Violation]:
    case = make_case(SCRIPT, expect=expect)
    run: Transcript = transcript(case, ideal_views(case) if views is None else views)
    run.output = output
    run.output_error = output_error
    return expectation_violations(run)


def merged() -> list[RequestView]:
    """Seed §26: the base arm merged both episodes under the first signature."""
    case = make_case(SCRIPT)
    views = ideal_views(case)
    views[1] = replace_message(views[1], 1, think("AB", "sigA"), call("alpha"), call("beta"))
    return views


# ---------------------------------------------------------------- patterns


def test_pattern_compares_only_written_fields() -> None:
    assert matches(BlockPattern(kind="reasoning"), think("anything", "sig"))
    assert not matches(BlockPattern(kind="text"), think("anything", "sig"))


def test_pattern_null_signature_demands_no_signature() -> None:
    pattern = BlockPattern.model_validate({"kind": "reasoning", "signature": None})
    assert matches(pattern, think("x"))
    assert not matches(pattern, think("x", "sig"))
    assert matches(BlockPattern(kind="reasoning"), think("x", "sig"))


def test_pattern_contains_and_result_content() -> None:
    assert matches(BlockPattern(text_contains="ll"), text("hello"))
    assert not matches(BlockPattern(text_contains="zz"), text("hello"))
    assert not matches(BlockPattern(text_contains="ll"), result("a", "hello"))
    blocks_result = result("a", (Text(text="file "), Text(text="contents")))
    assert matches(BlockPattern(content="file contents"), blocks_result)
    assert matches(BlockPattern(content_contains="le co"), blocks_result)
    assert not matches(BlockPattern(content="file"), blocks_result)
    assert not matches(BlockPattern(is_error=False), text("x"))


# ---------------------------------------------------------------- blocks


def blocks_expectation(**where: Any) -> dict[str, Any]:
    return {"in": {"request": 2, "role": "assistant", "nth": -1, **where}, "blocks": INTERLEAVED}


def test_blocks_hold_on_each_episode_in_place() -> None:
    assert evaluate(blocks_expectation()) == []


def test_blocks_fail_on_merged_episodes() -> None:
    [found] = evaluate(blocks_expectation(), views=merged())
    assert found.check == "expect"
    assert found.request == 2
    assert found.at == "messages.1"
    assert found.message.startswith("expect[0] request 2, assistant message -1: expected 4")
    assert "found 3 [reasoning(text='AB', signature='sigA')" in found.message


def test_blocks_fail_on_the_first_differing_block() -> None:
    case = make_case(SCRIPT)
    views = ideal_views(case)
    views[1] = replace_message(
        views[1], 1, think("A", "sigA"), call("alpha"), think("B"), call("beta")
    )
    [found] = evaluate(blocks_expectation(), views=views)
    assert found.at == "messages.1.content.2"
    assert "block 2: expected reasoning(text='B', signature='sigB')" in found.message
    assert "found reasoning(text='B', signature=None)" in found.message


def test_blocks_fail_when_the_message_is_missing() -> None:
    [found] = evaluate(blocks_expectation(nth=3))
    assert "no such message (the request has 1 assistant message(s))" in found.message


def test_severity_comes_from_the_expectation() -> None:
    [found] = evaluate({**blocks_expectation(), "severity": "should"}, views=merged())
    assert found.severity == "should"


# ---------------------------------------------------------------- where


def test_request_counts_from_the_end_and_beyond_the_end() -> None:
    last = {"in": {"request": -1, "role": "user", "nth": 0}, "blocks": [{"text": "prompt 1"}]}
    assert evaluate(last) == []
    [missing] = evaluate({**last, "in": {"request": 5, "nth": 0}})
    assert missing.message == "expect[0] request 5: the target sent 2 request(s)"


def test_request_whose_body_did_not_parse_fails() -> None:
    case = make_case(SCRIPT, expect=[blocks_expectation()])
    views: list[RequestView | None] = [ideal_views(case)[0], None]
    run = transcript(case, views, [0, None])
    [found] = expectation_violations(run)
    assert found.request == 2
    assert "did not parse (not JSON)" in found.message


def test_each_request_and_role_filter() -> None:
    each_user = {"in": {"request": "each", "role": "user", "nth": 0}, "blocks": [{"kind": "text"}]}
    assert evaluate(each_user) == []
    case = make_case(SCRIPT)
    views = ideal_views(case)
    views[0] = view(message("user", think("x")))
    [found] = evaluate(each_user, views=views)
    assert found.request == 1


# ---------------------------------------------------------------- contains


def test_contains_is_an_ordered_subsequence() -> None:
    wanted = {
        "in": {"request": 2, "role": "assistant"},
        "contains": [{"signature": "sigA"}, {"id": "beta"}],
    }
    assert evaluate(wanted) == []
    reversed_order = {**wanted, "contains": [{"id": "beta"}, {"signature": "sigA"}]}
    [found] = evaluate(reversed_order)
    assert "after the first 1, no block(signature='sigA')" in found.message


def test_contains_fails_on_merged_episodes() -> None:
    wanted = {"in": {"request": 2}, "contains": [{"signature": "sigA"}, {"signature": "sigB"}]}
    [found] = evaluate(wanted, views=merged())
    assert found.message.startswith("expect[0] request 2, all messages: expected in order")


# ---------------------------------------------------------------- none and no_message


def test_none_holds_and_fails_even_inside_tool_results() -> None:
    no_reasoning = {"in": {"request": "each", "role": "tool"}, "none": {"kind": "reasoning"}}
    assert evaluate(no_reasoning) == []
    case = make_case(SCRIPT)
    views = ideal_views(case)
    nested = result("alpha", (Text(text="x"), Reasoning(text="child")))
    views[1] = replace_message(views[1], 2, nested, result("beta"))
    [found] = evaluate(no_reasoning, views=views)
    assert found.at == "messages.2.content.0"
    assert "tool message 2, block 0, content 1" in found.message


def test_no_message_empty() -> None:
    wanted = {"in": {"request": "each"}, "no_message": "empty"}
    assert evaluate(wanted) == []
    case = make_case(SCRIPT)
    views = ideal_views(case)
    views[1] = view(*views[1].messages, message("user"))
    [found] = evaluate(wanted, views=views)
    assert "found an empty user message 3" in found.message
    assert found.at == "messages.3"


# ---------------------------------------------------------------- requests and output


def test_requests_count() -> None:
    assert evaluate({"requests": 2}) == []
    [found] = evaluate({"requests": 3})
    assert found.message == "expect[0] expected 3 request(s), found 2"


@pytest.mark.parametrize(
    ("output", "error", "fragment"),
    [
        (None, None, "no output selected"),
        (None, "the target selected nothing", "the target selected nothing"),
        (FinalOutput(text="", complete=True, stop="end"), None, "found output(text='',"),
    ],
)
def test_output_fails(output: FinalOutput | None, error: str | None, fragment: str) -> None:
    wanted = {"output": {"text": "Both files read.", "complete": True}}
    [found] = evaluate(wanted, output=output, output_error=error)
    assert found.message.startswith("expect[0] expected output(text='Both files read.'")
    assert fragment in found.message


def test_output_holds_on_written_fields_only() -> None:
    wanted = {"output": {"complete": False}}
    selected = FinalOutput(text=None, complete=False, stop="max_tokens")
    assert evaluate(wanted, output=selected) == []


# ---------------------------------------------------------------- any_of


def test_any_of_passes_when_one_alternative_holds() -> None:
    wanted = {"any_of": [{"requests": 5}, blocks_expectation()]}
    assert evaluate(wanted) == []


def test_any_of_fails_listing_every_alternative() -> None:
    wanted = {"any_of": [{"requests": 5}, blocks_expectation()], "severity": "should"}
    [found] = evaluate(wanted, views=merged())
    assert found.message.startswith("expect[0] none of 2 alternatives holds: (1) expected 5")
    assert "; (2) request 2, assistant message -1: expected 4 block(s)" in found.message
    assert found.severity == "should"


def test_expectations_are_numbered_in_case_order() -> None:
    found = evaluate({"requests": 2}, {"requests": 1}, blocks_expectation(), views=merged())
    assert [v.message[:9] for v in found] == ["expect[1]", "expect[2]"]


def test_a_summary_pattern_written_empty_matches_the_view_of_an_empty_summary() -> None:
    """Issue 13: every view reads ``"summary": []`` as no summary, so a pattern
    ``summary: []`` never matched (a ``contains`` failed every client, a ``none`` passed
    vacuously) while the lint accepted it.  Pattern and view now agree: empty is absent."""
    import json

    from conformance.http import HttpRequest
    from conformance.wires._openai_responses import WIRE

    item = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAB1"}
    body = {"model": "m", "input": [{"role": "user", "content": "go"}, item], "store": False}
    parsed = WIRE.parse(HttpRequest("POST", "/v1/responses", json.dumps(body).encode()))
    block = parsed.messages[1].blocks[0]
    assert isinstance(block, Reasoning)
    written_empty = BlockPattern.model_validate({"kind": "reasoning", "summary": []})
    assert matches(written_empty, block)  # was: False
    assert matches(BlockPattern.model_validate({"kind": "reasoning", "summary": None}), block)
    assert not matches(BlockPattern.model_validate({"summary": ["a part"]}), block)
    with_part = Reasoning(id="rs_1", summary=("a part",))
    assert not matches(written_empty, with_part)


# ---------------------------------------------------------------- what an output rests on


@pytest.mark.parametrize(
    ("selected", "evidence"),
    [
        # the text is the claim the public reports (rule 49) back
        (FinalOutput(text="Tool output.", complete=True, stop="end"), "observed"),
        # completeness, the stop, and absent told from empty come from the design only
        (FinalOutput(text="Both files read.", complete=True, stop="max_tokens"), "design"),
        (FinalOutput(text="Both files read.", complete=False, stop="end"), "design"),
    ],
)
def test_an_output_mismatch_rests_on_what_its_differing_fields_rest_on(
    selected: FinalOutput, evidence: str
) -> None:
    wanted = {
        "output": {"text": "Both files read.", "complete": True, "stop": "end"},
        "evidence": "observed",
    }
    [found] = evaluate(wanted, output=selected)
    assert found.evidence == evidence


def test_absent_and_empty_output_text_differ_by_design_only() -> None:
    wanted = {"output": {"text": None}, "evidence": "observed"}
    [found] = evaluate(wanted, output=FinalOutput(text="", complete=False, stop="end"))
    assert found.evidence == "design"


def test_any_of_fails_on_observed_evidence_only_when_every_alternative_does() -> None:
    both = {
        "any_of": [
            {"output": {"text": "Both files read.", "stop": "end"}},
            {"output": {"text": "Asked again."}},
        ],
        "evidence": "observed",
    }
    # the first alternative is broken by its stop alone: the whole rests on design
    [found] = evaluate(both, output=FinalOutput(text="Both files read.", complete=True, stop=None))
    assert found.evidence == "design"
    # a wrong text breaks both alternatives on what the reports back
    [found] = evaluate(both, output=FinalOutput(text="Tool output.", complete=True, stop="end"))
    assert found.evidence == "observed"


def test_any_of_names_alternatives_that_failed_alike_once() -> None:
    """Issue 25 item 4: an alternative's reason is not printed twice."""
    wanted = {"any_of": [{"requests": 5}, {"requests": 5}, blocks_expectation()]}
    [found] = evaluate(wanted, views=merged())
    assert found.message.startswith("expect[0] none of 3 alternatives holds: (1, 2) expected 5")
    assert found.message.count("expected 5") == 1


def test_a_found_block_shows_what_it_is_beside_what_was_compared() -> None:
    """Issue 25 item 5: a readable thinking block was quoted as
    `reasoning(redacted=False, data=None)` against a redacted pattern."""
    redacted = {"kind": "reasoning", "redacted": True, "data": "blob"}
    wanted = blocks_expectation()
    wanted["blocks"] = [redacted, *INTERLEAVED[1:]]
    [found] = evaluate(wanted)
    assert "found reasoning(redacted=False, data=None, text=" in found.message
    assert "signature=" in found.message
