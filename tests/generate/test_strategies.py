"""The strategies draw only what the wire sends: every generated case is lint-clean on
its column, and the realism pass uses the wires' own predicates."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from conformance._cases.lint import lint_case
from conformance.generate._features import _response_features
from conformance.generate._realistic import realistic_blocks, realistic_stops
from conformance.generate.blocks import content_blocks, reasoning_blocks, tool_calls
from conformance.generate.conversations import cases
from conformance.generate.payloads import _new_sentences, chunkings, sentences, visible_texts
from conformance.vocabulary import Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires._registry import columns, get_wire

FEW = settings(
    max_examples=6,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
#: For ``find``, which shrinks what it found by default: these tests ask whether the
#: generator draws a shape at all, so the first drawn example answers (shrinking a whole
#: conversation cost minutes and proved nothing more).
FIRST_FOUND = settings(FEW, phases=[Phase.explicit, Phase.reuse, Phase.generate])


@pytest.mark.parametrize("column", columns())
def test_every_generated_case_is_lint_clean_on_its_column(column: str) -> None:
    seen: list[str] = []

    @FEW
    @given(cases(column))
    def clean(case: object) -> None:
        from conformance._cases.schema import Case

        assert isinstance(case, Case)
        assert list(case.wires) == [column]
        assert lint_case(case, f"{case.features[0]}/{case.id}.yaml") == []
        seen.append(case.id)

    clean()
    assert seen


def test_an_unsigned_anthropic_thinking_block_is_simplified_away() -> None:
    """Anthropic signs every thinking block of an uncut response: the pass removes an
    unsigned one (the same predicate the lint applies), and keeps the call."""
    realism = get_wire("anthropic-messages").realism
    call = ToolCall(id="toolu_01abc", name="read_file")
    kept = realistic_blocks(realism, [Reasoning(text="hm"), call], "tool_calls", None, "m")
    assert kept == (call,)
    signed = Reasoning(text="hm", signature="c2ln")
    assert realistic_blocks(realism, [signed, call], "tool_calls", None, "m") == (signed, call)


def test_a_gemini_signature_on_a_second_parallel_call_is_dropped_not_the_call() -> None:
    """Rule 41: Gemini signs the first call only; the simpler form (no signature) stays."""
    realism = get_wire("gemini").realism
    first = ToolCall(id="a", name="read_file", signature="c2ln")
    second = ToolCall(id="b", name="read_file", signature="c2lnMg==")
    kept = realistic_blocks(realism, [first, second], "tool_calls", None, "m")
    assert kept == (first, second.model_copy(update={"signature": None}))


def test_stops_are_those_the_wire_sends() -> None:
    stops = realistic_stops(get_wire("openai-responses").realism, ("end", "pause"), None)
    assert stops == ["end"]
    assert ScriptedResponse(stop="end").stop in stops


def test_chunkings_shrink_to_the_fewest_smallest_sizes() -> None:
    smallest = find(chunkings(), lambda c: c is not None and len(c) >= 2)
    assert smallest == (1, 1)
    assert find(chunkings(), lambda c: True) is None  # one piece is the simplest


def _shows_call_ids(case: object) -> bool:
    from conformance._cases.schema import Case

    assert isinstance(case, Case)
    return any(r.gemini_call_ids for r in case.given.responses)


def test_gemini_cases_draw_calls_with_and_without_ids() -> None:
    """Real Gemini mostly sends calls without ``id`` (the default, the shrink target);
    a drawn loop response may show them (``gemini_call_ids``)."""
    found = find(cases("gemini"), _shows_call_ids, settings=FIRST_FOUND)
    assert _shows_call_ids(found)


@pytest.mark.parametrize("column", ["anthropic-messages", "openai-chat:gemini"])
def test_other_wires_never_draw_the_gemini_directive(column: str) -> None:
    @FEW
    @given(cases(column))
    def plain(case: object) -> None:
        assert not _shows_call_ids(case)

    plain()


def test_the_empty_fragment_directive_is_kept_on_claude_streams_and_dropped_elsewhere() -> None:
    """Claude's empty thinking fragment before the signature (pydantic/pydantic-ai
    tests/models/cassettes/test_anthropic/test_anthropic_model_thinking_part_stream.yaml)
    is a stream directive the generator draws; a wire that never sends it simplifies it
    away and keeps the episode."""
    signed = Reasoning(text="hm", signature="c2ln", empty_chunk_before_signature=True)
    call = ToolCall(id="toolu_01abc", name="read_file")
    anthropic = get_wire("anthropic-messages").realism
    assert realistic_blocks(anthropic, [signed, call], "tool_calls", None, "m") == (signed, call)
    encrypted = Reasoning(id="rs_1", signature="gAAAAABc2ln", empty_chunk_before_signature=True)
    responses = get_wire("openai-responses").realism
    plain = encrypted.model_copy(update={"empty_chunk_before_signature": False})
    assert realistic_blocks(responses, [encrypted, call], "tool_calls", None, "m") == (plain, call)


def test_the_generator_draws_the_empty_fragment_directive() -> None:
    drawn = find(
        reasoning_blocks(),
        lambda r: r.empty_chunk_before_signature,
        settings=settings(FIRST_FOUND, max_examples=2000),  # find's own default budget
    )
    assert drawn.signature is not None
    response = ScriptedResponse(stop="end", blocks=(drawn, Text(text="ok")))
    assert "split-signatures" in _response_features(response)


def test_strategies_are_built_once_and_drawn_from_again() -> None:
    """A new strategy object costs hypothesis a validation on every draw: the composite
    strategies build none per conversation (the same object for the same arguments,
    a list of tools or a tuple alike)."""
    assert sentences(2, 6) is sentences(2, 6)
    assert content_blocks(["read_file"]) is content_blocks(("read_file",))
    assert tool_calls(["read_file"]) is tool_calls(("read_file",))
    assert tool_calls(["read_file"]) is not tool_calls(("search_docs",))


def test_visible_text_weighs_a_sentence_three_to_one() -> None:
    """``one_of`` keeps one of branches that are the same object: built once, a repeated
    sentence branch would have collapsed into one and drawn other conversations from
    the same seed."""
    assert len(visible_texts().branches) == 4
    same = _new_sentences()
    assert len(st.one_of(same, same, same, st.just("")).branches) == 2  # what it guards


@pytest.mark.parametrize("profile", ["dev", "ci", "nightly"])
def test_a_search_stops_drawing_at_its_first_failure(profile: str) -> None:
    """Hypothesis looks on for more bugs after the first unless told one is reported, and
    stops looking 10 s after it: how many conversations a search drew, and which failure
    it shrank, then depended on the machine's speed (a loaded run of the ci profile found
    another counterexample from the same seed).  Every profile reports one."""
    from conformance.generate._profiles import profile_settings

    assert profile_settings(profile).report_multiple_bugs is False
