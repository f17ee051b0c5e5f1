"""The deliberately broken adapters: each differs from the reference exactly on the
shape it breaks, and agrees with it elsewhere."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance._reference import ReferenceAdapter
from conformance._targets.api import ToolResultIn, WireResponse
from harness.broken import (
    BROKEN_ADAPTERS,
    DropSignatureOnlyAdapter,
    HoistThinkingAdapter,
    MergeEpisodesAdapter,
    ThreadWrongDeltaAdapter,
)

from .sse_streams import Stream, session
from .wire_streams import GeminiStream, ResponsesStream, wire_session


def replayed(adapter: ReferenceAdapter, response: WireResponse) -> list[dict[str, Any]]:
    """The assistant message the second request carries after ``response``."""
    conversation = adapter.open(session("go"))
    conversation.add_user("go")
    calls = conversation.receive(response)
    conversation.add_tool_results([ToolResultIn(c.id, c.name, "ok") for c in calls])
    body = json.loads(conversation.next_request().body_bytes())
    content: list[dict[str, Any]] = body["messages"][1]["content"]
    return content


def short(content: list[dict[str, Any]]) -> list[str]:
    return [f"{b['type']}:{b.get('thinking', b.get('id'))}:{b.get('signature')}" for b in content]


def interleaved() -> WireResponse:
    """Seed §25: A(sigA) call1 B(sigB) call2."""
    return (
        Stream()
        .thinking("A", signature="sigA")
        .tool_use("call1", "read_file", "{}")
        .thinking("B", signature="sigB")
        .tool_use("call2", "read_file", "{}")
        .end("tool_use")
    )


def signature_only() -> WireResponse:
    """Seed §30: a signature-only mid-turn episode."""
    return (
        Stream()
        .thinking("visible reasoning", signature="sig1")
        .tool_use("call1", "read_file", "{}")
        .thinking(signature="sig2")
        .tool_use("call2", "read_file", "{}")
        .end("tool_use")
    )


def single() -> WireResponse:
    return (
        Stream()
        .thinking("A", signature="sigA")
        .tool_use("call1", "read_file", "{}")
        .end("tool_use")
    )


REFERENCE_INTERLEAVED = [
    "thinking:A:sigA",
    "tool_use:call1:None",
    "thinking:B:sigB",
    "tool_use:call2:None",
]


def test_broken_adapters_have_distinct_names() -> None:
    names = {adapter.name for adapter in BROKEN_ADAPTERS}
    assert len(names) == len(BROKEN_ADAPTERS)
    assert ReferenceAdapter.name not in names


def test_reference_replays_each_shape_in_place() -> None:
    assert short(replayed(ReferenceAdapter(), interleaved())) == REFERENCE_INTERLEAVED
    assert short(replayed(ReferenceAdapter(), signature_only()))[2] == "thinking::sig2"


def test_merge_episodes_emits_one_mis_signed_block_first() -> None:
    """§25/§26 base: [AB(sigA), call1, call2]."""
    assert short(replayed(MergeEpisodesAdapter(), interleaved())) == [
        "thinking:AB:sigA",
        "tool_use:call1:None",
        "tool_use:call2:None",
    ]


def test_hoist_thinking_moves_every_episode_to_the_front() -> None:
    """§84 base / M5: [A, B, call1, call2]."""
    assert short(replayed(HoistThinkingAdapter(), interleaved())) == [
        "thinking:A:sigA",
        "thinking:B:sigB",
        "tool_use:call1:None",
        "tool_use:call2:None",
    ]


def test_drop_signature_only_loses_the_text_less_episode() -> None:
    """Rule 4, langchain#38638, §30: sig2 is gone."""
    assert short(replayed(DropSignatureOnlyAdapter(), signature_only())) == [
        "thinking:visible reasoning:sig1",
        "tool_use:call1:None",
        "tool_use:call2:None",
    ]


@pytest.mark.parametrize(
    "broken",
    # A threaded variant's second request is a thread continue (rule 58), not the whole
    # conversation: harness/broken/thread_wrong_delta.py breaks the delta, not a replay.
    [a for a in BROKEN_ADAPTERS if a is not ThreadWrongDeltaAdapter],
)
def test_broken_adapters_agree_with_the_reference_on_a_single_leading_episode(
    broken: type[ReferenceAdapter],
) -> None:
    assert replayed(broken(), single()) == replayed(ReferenceAdapter(), single())


# ---------------------------------------------------------------- the other wires


def second_request(adapter: ReferenceAdapter, wire: str, response: WireResponse) -> Any:
    conversation = adapter.open(wire_session(wire, "go"))
    conversation.add_user("go")
    calls = conversation.receive(response)
    conversation.add_tool_results([ToolResultIn(c.id, c.name, "ok") for c in calls])
    conversation.add_user("more")
    return json.loads(conversation.next_request().body_bytes())


def responses_items(adapter: ReferenceAdapter) -> list[str]:
    """[rs1 E1, fc1, rs2 (empty summary) E2, fc2] on Responses, as item ids."""
    response = (
        ResponsesStream()
        .reasoning("rs_1", "A", encrypted="E1")
        .call("call_1", "read_file", "{}")
        .reasoning("rs_2", encrypted="E2")
        .call("call_2", "read_file", "{}")
        .completed()
    )
    items = second_request(adapter, "openai-responses", response)["input"]
    kept = [i for i in items if i.get("type") in ("reasoning", "function_call")]
    return [f"{i.get('id') or i['call_id']}:{i.get('encrypted_content')}" for i in kept]


def gemini_parts(adapter: ReferenceAdapter) -> list[str]:
    """[A sA, FC1, B sB, FC2, "Hi", ""+S] on Gemini, each part short."""
    response = (
        GeminiStream()
        .thought("A", "c0E=")
        .call("read_file", {}, id="c1")
        .thought("B", "c0I=")
        .call("read_file", {}, id="c2")
        .text("Hi")
        .text("", "Uw==")
        .finish()
    )
    parts = second_request(adapter, "gemini", response)["contents"][1]["parts"]
    return [
        f"{p.get('text', p.get('functionCall', {}).get('id'))}:{p.get('thoughtSignature')}"
        for p in parts
    ]


REFERENCE_RESPONSES = ["rs_1:E1", "call_1:None", "rs_2:E2", "call_2:None"]
REFERENCE_GEMINI = ["A:c0E=", "c1:None", "B:c0I=", "c2:None", "Hi:None", ":Uw=="]


def test_the_reference_keeps_every_item_and_part_in_place() -> None:
    assert responses_items(ReferenceAdapter()) == REFERENCE_RESPONSES
    assert gemini_parts(ReferenceAdapter()) == REFERENCE_GEMINI


def test_merge_episodes_loses_the_second_token_on_every_wire() -> None:
    assert responses_items(MergeEpisodesAdapter())[:3] == ["rs_1:E1", "call_1:None", "call_2:None"]
    assert gemini_parts(MergeEpisodesAdapter())[:3] == ["AB:c0E=", "c1:None", "c2:None"]


def test_hoist_thinking_separates_reasoning_from_what_it_produced() -> None:
    """Rule 26 on Responses, rule 41's order on Gemini."""
    assert responses_items(HoistThinkingAdapter()) == [
        "rs_1:E1",
        "rs_2:E2",
        "call_1:None",
        "call_2:None",
    ]
    assert gemini_parts(HoistThinkingAdapter())[:4] == ["A:c0E=", "B:c0I=", "c1:None", "c2:None"]


def test_drop_signature_only_loses_text_less_items_and_parts() -> None:
    """An empty summary on Responses, the empty signed text part on Gemini (rule 43)."""
    assert responses_items(DropSignatureOnlyAdapter()) == [
        "rs_1:E1",
        "call_1:None",
        "call_2:None",
    ]
    assert gemini_parts(DropSignatureOnlyAdapter()) == REFERENCE_GEMINI[:-1]
