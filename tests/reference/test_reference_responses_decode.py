"""Decoding OpenAI Responses streams and JSON (wire-rules 21–23, 29; seed §108)."""

from __future__ import annotations

import pytest

from conformance._reference.codec import Decoded, ProviderError
from conformance._reference.consolidate import TurnBlock, consolidate
from conformance._reference.fragments import (
    BlockEnd,
    CallArguments,
    CallStart,
    ReasoningPiece,
    TextPiece,
)
from conformance._reference.guards import Guards
from conformance._reference.openai_responses import OpenAIResponsesCodec
from conformance._targets.api import WireResponse
from conformance.vocabulary import Reasoning, Text, ToolCall

from .wire_streams import ResponsesStream, json_response, wire_session


def decode(response: WireResponse, *disabled: str) -> Decoded:
    codec = OpenAIResponsesCodec(wire_session("openai-responses"), Guards(disabled))
    return codec.decode(response)


def blocks(response: WireResponse, *disabled: str) -> tuple[TurnBlock, ...]:
    decoded = decode(response, *disabled)
    return consolidate(decoded.fragments, Guards(disabled), decoded.ended)


def test_items_become_fragments_when_they_finish() -> None:
    response = (
        ResponsesStream()
        .reasoning("rs_1", "Plan", " it.", encrypted="ENC1")
        .call("call_1", "read_file", '{"path":', ' "a"}')
        .completed()
    )
    decoded = decode(response)
    assert decoded.fragments == (
        ReasoningPiece(0, id="rs_1", summary=("Plan", " it."), signature="ENC1"),
        BlockEnd(0),
        CallStart(1, "call_1", "read_file"),
        CallArguments(1, '{"path": "a"}'),
        BlockEnd(1),
    )
    assert (decoded.stop, decoded.ended) == ("tool_calls", True)


def test_encrypted_content_is_taken_from_done_never_from_added() -> None:
    """Rule 22: added carries "ab", done carries "abcdef"."""
    response = (
        ResponsesStream()
        .reasoning("rs_1", encrypted="abcdef", added_encrypted="ab")
        .message("hi")
        .completed()
    )
    assert blocks(response)[0] == Reasoning(id="rs_1", summary=(), signature="abcdef")
    truncated = blocks(response, "encrypted-content-from-done")[0]
    assert truncated == Reasoning(id="rs_1", summary=(), signature="ab")


def test_summary_is_kept_even_when_empty() -> None:
    """Rule 24: ``summary: []`` is a field of the item, not an absence."""
    response = ResponsesStream().reasoning("rs_1", encrypted="E").message("ok").completed()
    reasoning = blocks(response)[0]
    assert isinstance(reasoning, Reasoning)
    assert reasoning.summary == ()


def test_two_reasoning_items_are_two_episodes_at_their_done_events() -> None:
    """§108 with summaries off (§35's shape): only output_item.done separates them."""
    response = (
        ResponsesStream()
        .reasoning("rs_A", encrypted="ENC-A")
        .reasoning("rs_B", encrypted="ENC-B")
        .call("call_1", "run", "{}")
        .completed()
    )
    assert blocks(response)[:2] == (
        Reasoning(id="rs_A", summary=(), signature="ENC-A"),
        Reasoning(id="rs_B", summary=(), signature="ENC-B"),
    )
    merged = blocks(response, "flush-on-episode-boundary")[0]
    assert merged == Reasoning(id="rs_A", summary=(), signature="ENC-AENC-B")


def test_a_fresh_summary_also_splits_items_without_the_boundary() -> None:
    """With summaries on, the fresh-text heuristic protects the §108 shape too."""
    response = (
        ResponsesStream()
        .reasoning("rs_A", "first", encrypted="ENC-A")
        .reasoning("rs_B", "second", encrypted="ENC-B")
        .message("done")
        .completed()
    )
    assert len(blocks(response, "flush-on-episode-boundary")) == 3


def test_incomplete_is_a_clean_terminal_state() -> None:
    """Rule 29: ``response.incomplete`` (max_output_tokens) ends the stream cleanly."""
    response = ResponsesStream().reasoning("rs_1", encrypted="E").incomplete()
    decoded = decode(response)
    assert (decoded.stop, decoded.ended) == ("max_tokens", True)
    assert decode(ResponsesStream().message("x").incomplete("content_filter")).stop == "refusal"


def test_an_unfinished_item_contributes_its_deltas_without_a_token() -> None:
    """A cut after an item's deltas: no done, so no encrypted_content and no end."""
    response = (
        ResponsesStream()
        .reasoning("rs_1", "Run it.", encrypted="ENC1")
        .call("call_1", "run_tests", '{"path": "t"}')
        .reasoning("rs_2", "While that", added_encrypted="PARTIAL", finish=False)
        .incomplete()
    )
    assert blocks(response) == (
        Reasoning(id="rs_1", summary=("Run it.",), signature="ENC1"),
        ToolCall(id="call_1", name="run_tests", arguments={"path": "t"}),
        Reasoning(id="rs_2", summary=("While that",)),
    )


def test_a_stream_without_terminal_event_is_a_cut() -> None:
    response = ResponsesStream().message("Hel", "lo", finish=False).cut()
    decoded = decode(response)
    assert (decoded.stop, decoded.ended) == ("no_finish", False)
    assert decoded.fragments == (TextPiece(0, "Hello"),)
    cut_call = ResponsesStream().call("call_1", "run", '{"pa', finish=False).cut()
    assert blocks(cut_call) == (ToolCall(id="call_1", name="run", arguments='{"pa'),)


def test_error_and_failed_events_cut_the_turn() -> None:
    failed = ResponsesStream().message("partial").event("response.failed", response={})
    assert decode(failed.cut()).stop == "no_finish"
    errored = ResponsesStream().message("partial").event("error", message="boom")
    assert decode(errored.message("ignored").completed()).stop == "no_finish"


def test_the_terminal_output_is_only_a_fallback() -> None:
    """Rule 23: a backend that streamed items and then sent ``output: []``."""
    streamed = ResponsesStream().message("Hello").completed(output=[])
    assert blocks(streamed) == (Text(text="Hello"),)
    only_final = ResponsesStream()
    only_final.output = [{"type": "message", "content": [{"type": "output_text", "text": "x"}]}]
    assert blocks(only_final.completed()) == (Text(text="x"),)


def test_a_refusal_part_is_a_refusal_stop() -> None:
    response = ResponsesStream().message("I can't help.", refusal=True).completed()
    assert decode(response).stop == "refusal"
    assert blocks(response) == (Text(text="I can't help."),)


def test_a_json_response_is_decoded_item_by_item() -> None:
    body = {
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "E"},
            {"type": "function_call", "call_id": "call_1", "name": "run", "arguments": "{}"},
            {"type": "web_search_call", "id": "ws_1"},
        ],
    }
    decoded = decode(json_response(body))
    assert decoded.stop == "max_tokens"
    assert consolidate(decoded.fragments, Guards(), True) == (
        Reasoning(id="rs_1", summary=(), signature="E"),
        ToolCall(id="call_1", name="run", arguments={}),
    )


def test_an_error_status_raises() -> None:
    error = WireResponse(404, {"content-type": "application/json"}, b'{"error": {}}')
    with pytest.raises(ProviderError, match="404"):
        decode(error)
