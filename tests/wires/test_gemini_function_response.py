"""Gemini's ``functionResponse.response`` is any JSON object: callers use any keys,
``output`` holds the output and ``error`` the error, and without either the whole object
is the output.  The suite compares the information: the scripted text, unaltered, under
whatever envelope (``conformance._checks.walk.carries``).  Real envelopes from libraries
the suite had never seen: the Vercel AI SDK's @ai-sdk/google sends ``{"name", "content"}``,
strands-agents ``{"output": [{"text": ...}]}``."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._cases.schema import BlockPattern
from conformance._checks.expectations import matches
from conformance._checks.walk import carries
from conformance.vocabulary import ToolResult
from tests.wires.test_gemini import answer, body, call, model, parse, user

SCRIPTED = "restarted: worker-2 is up"


def _result(response: Any) -> ToolResult:
    view = parse(
        body(user("go"), model(call("restart", {}, "c1")), user(answer("restart", response, "c1")))
    )
    (block,) = view.messages[2].blocks
    assert isinstance(block, ToolResult)
    return block


def test_the_real_envelopes_carry_the_scripted_text() -> None:
    for response in (
        {"name": "restart", "content": SCRIPTED},  # @ai-sdk/google
        {"output": [{"text": SCRIPTED}]},  # strands-agents
        {"result": SCRIPTED},
        {"return_value": SCRIPTED},
    ):
        result = _result(response)
        assert carries(result, SCRIPTED), response
        assert not result.is_error
        assert matches(BlockPattern(kind="tool_result", content=SCRIPTED), result)


def test_a_changed_or_lost_text_is_not_carried() -> None:
    for response in (
        {"name": "restart", "content": SCRIPTED[:-3]},
        {"output": [{"text": SCRIPTED.upper()}]},
        {"output": "ok"},
        {"name": "restart"},
    ):
        result = _result(response)
        assert not carries(result, SCRIPTED), response
        assert not matches(BlockPattern(kind="tool_result", content=SCRIPTED), result)


def test_the_output_key_holds_the_output_and_other_keys_are_not_it() -> None:
    """With ``output`` present only it is the output: a text beside it is not."""
    result = _result({"output": "ok", "note": SCRIPTED})
    assert not carries(result, SCRIPTED)


def test_a_failed_calls_text_under_error_is_still_a_failure() -> None:
    for response in ({"error": SCRIPTED}, {"error": {"message": SCRIPTED, "code": 5}}):
        result = _result(response)
        assert result.is_error, response
        assert carries(result, SCRIPTED)


def test_a_json_result_sent_as_the_object_it_spells() -> None:
    scripted = '{"rows": 42, "table": "t"}'
    assert carries(_result({"rows": 42, "table": "t"}), scripted)
    assert not carries(_result({"rows": 41, "table": "t"}), scripted)


_KEYS = st.text("abcdefghij_", min_size=1, max_size=6)
_OTHER = st.text("ABCDEFGHIJ ", max_size=8)  # never equal to the scripted text
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), _OTHER)


def _planted(text: str) -> st.SearchStrategy[Any]:
    """A JSON value holding ``text`` once as a string value, at any depth, among other
    keys and items."""
    return st.recursive(
        st.just(text),
        lambda inner: st.one_of(
            st.builds(
                lambda key, value, others: {**others, key: value},
                _KEYS.filter(lambda k: k not in ("output", "error")),
                inner,
                st.dictionaries(
                    _KEYS.filter(lambda k: k not in ("output", "error")), _SCALARS, max_size=3
                ),
            ),
            st.builds(
                lambda before, value, after: [*before, value, *after],
                st.lists(_SCALARS, max_size=2),
                inner,
                st.lists(_SCALARS, max_size=2),
            ),
        ),
        max_leaves=6,
    ).filter(lambda value: isinstance(value, dict))


@settings(max_examples=60, deadline=None, database=None)
@given(_planted(SCRIPTED), st.booleans())
def test_any_envelope_carries_the_text_it_holds_unaltered(
    envelope: Any, under_output: bool
) -> None:
    response = {"output": envelope} if under_output else envelope
    assert carries(_result(response), SCRIPTED), json.dumps(response)
    altered = json.loads(json.dumps(response).replace(SCRIPTED, SCRIPTED + "!"))
    assert not carries(_result(altered), SCRIPTED), json.dumps(altered)
