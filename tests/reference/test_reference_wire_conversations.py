"""The reference adapter held through whole conversations on the Responses, Chat and
Gemini wires, the way the runner drives it: add_user -> next_request -> receive ->
add_tool_results -> ... -> final_output."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance._reference import ReferenceAdapter
from conformance._reference.adapter import ReferenceSession
from conformance._reference.history import ORPHANED_RESULT
from conformance._reference.turns import NOT_EXECUTED
from conformance._targets.api import CallToRun, ToolResultIn, WireResponse
from conformance.vocabulary import FinalOutput

from .sse_streams import BASH
from .wire_streams import ChatStream, GeminiStream, ResponsesStream, text_detail, wire_session


def open_(wire: str, *disabled: str, **options: Any) -> ReferenceSession:
    return ReferenceAdapter(frozenset(disabled)).open(wire_session(wire, "go", **options))


def send(conversation: ReferenceSession) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(conversation.next_request().body_bytes())
    return parsed


def answer(conversation: ReferenceSession, response: WireResponse) -> list[CallToRun]:
    calls = list(conversation.receive(response))
    conversation.add_tool_results([ToolResultIn(c.id, c.name, "file contents") for c in calls])
    return calls


# ---------------------------------------------------------------- Responses


def test_a_responses_tool_loop_replays_both_reasoning_items_in_order() -> None:
    """§108: two reasoning items before one call come back whole, in order, stateless."""
    conversation = open_("openai-responses", store=False)
    conversation.add_user("go")
    assert send(conversation)["include"] == ["reasoning.encrypted_content"]
    first = (
        ResponsesStream()
        .reasoning("rs_A", encrypted="ENC-A", added_encrypted="EN")
        .reasoning("rs_B", encrypted="ENC-B")
        .call("call_1", "read_file", '{"path": "a"}')
        .completed()
    )
    assert answer(conversation, first) == [CallToRun("call_1", "read_file", {"path": "a"})]
    assert send(conversation)["input"][1:] == [
        {"type": "reasoning", "id": "rs_A", "summary": [], "encrypted_content": "ENC-A"},
        {"type": "reasoning", "id": "rs_B", "summary": [], "encrypted_content": "ENC-B"},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "read_file",
            "arguments": '{"path":"a"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "file contents"},
    ]
    assert answer(conversation, ResponsesStream().message("Read.").completed()) == []
    assert conversation.final_output() == FinalOutput("Read.", True, "end")


def test_without_the_boundary_guard_the_two_items_merge_into_one() -> None:
    """The flush-on-episode-boundary guard is the only one that splits this shape."""
    conversation = open_("openai-responses", "flush-on-episode-boundary", store=False)
    conversation.add_user("go")
    response = (
        ResponsesStream()
        .reasoning("rs_A", encrypted="ENC-A")
        .reasoning("rs_B", encrypted="ENC-B")
        .call("call_1", "read_file", "{}")
        .completed()
    )
    answer(conversation, response)
    assert send(conversation)["input"][1] == {
        "type": "reasoning",
        "id": "rs_A",
        "summary": [],
        "encrypted_content": "ENC-AENC-B",
    }


def test_a_cut_responses_turn_runs_nothing_and_sends_no_dangling_item() -> None:
    """Rules 29, 33, 26; §42: incomplete after a call, mid second reasoning item: the
    history keeps the cut item, no request sends it (it has no item it produced)."""
    conversation = open_("openai-responses")
    conversation.add_user("go")
    cut = (
        ResponsesStream()
        .reasoning("rs_1", "Run it.")
        .call("call_1", "read_file", "{}")
        .reasoning("rs_2", "While that", finish=False)
        .incomplete()
    )
    assert conversation.receive(cut) == []
    assert conversation.history.messages[-2].blocks[-1].kind == "reasoning"
    conversation.add_user("next")
    sent = send(conversation)["input"]
    assert [i.get("id") or i.get("call_id") or i["role"] for i in sent] == [
        "user",
        "rs_1",
        "call_1",
        "call_1",
        "user",
    ]
    assert sent[3]["output"] == NOT_EXECUTED


# ---------------------------------------------------------------- Chat


def test_a_deepseek_tool_loop_replays_reasoning_content_on_every_tool_turn() -> None:
    """Rules 35, 36: the captured text on the first call turn, "" on the second."""
    conversation = open_("openai-chat", dialect="deepseek")
    conversation.add_user("go")
    first = ChatStream().reasoning_content("Read ", "a.").call(0, "call_1", "read_file", "{}")
    answer(conversation, first.finish("tool_calls"))
    second = ChatStream().call(0, "call_2", "read_file", "{}").finish("tool_calls")
    answer(conversation, second)
    sent = send(conversation)["messages"]
    assert [m.get("reasoning_content") for m in sent if m["role"] == "assistant"] == ["Read a.", ""]


def test_an_openrouter_loop_replays_the_accumulated_details() -> None:
    """Rule 37: deltas "a", "b", then signature S -> one detail "ab" with S."""
    conversation = open_("openai-chat", dialect="openrouter")
    conversation.add_user("go")
    response = (
        ChatStream()
        .details(text_detail("a"), text_detail("b"), text_detail(signature="S"))
        .call(0, "call_1", "read_file", "{}")
        .finish("tool_calls")
    )
    answer(conversation, response)
    details = send(conversation)["messages"][2]["reasoning_details"]
    assert [(d["text"], d["signature"]) for d in details] == [("ab", "S")]


@pytest.mark.parametrize("finish", ["length", "tool_calls"])
def test_a_truncated_chat_call_is_never_executed(finish: str) -> None:
    """Rule 33: finish_reason length, or tool_calls whose arguments do not parse."""
    conversation = open_("openai-chat")
    conversation.add_user("go")
    response = (
        ChatStream()
        .call(0, "call_1", "read_file", '{"path": "a"}')
        .call(1, "call_2", "write_file", '{"path": "/tmp/log", "content": "')
        .finish(finish)
    )
    assert conversation.receive(response) == []
    conversation.add_user("again")
    sent = send(conversation)["messages"]
    assert [c["id"] for c in sent[2]["tool_calls"]] == ["call_1"]
    assert sent[3] == {"role": "tool", "tool_call_id": "call_1", "content": NOT_EXECUTED}


def test_without_the_guard_a_mislabelled_cut_runs_its_complete_call() -> None:
    """The unparsable-arguments-truncate guard off: the complete call of a cut turn runs
    (rule 33), and the cut one is only answered by the orphaned-call repair."""
    conversation = open_("openai-chat", "unparsable-arguments-truncate")
    conversation.add_user("go")
    response = (
        ChatStream()
        .call(0, "call_1", "read_file", '{"path": "a"}')
        .call(1, "call_2", "write_file", '{"path": "/tmp/log", "c')
        .finish("tool_calls")
    )
    assert [c.id for c in answer(conversation, response)] == ["call_1"]
    sent = send(conversation)["messages"]
    assert [c["id"] for c in sent[2]["tool_calls"]] == ["call_1", "call_2"]
    assert [m["tool_call_id"] for m in sent[3:]] == ["call_1", "call_2"]
    assert sent[4]["content"] == ORPHANED_RESULT


# ---------------------------------------------------------------- Gemini


def interleaved() -> WireResponse:
    return (
        GeminiStream()
        .thought("A", "c0E=")
        .call("read_file", {"path": "a"}, id="c1", signature="ZjE=")
        .thought("B", "c0I=")
        .call("read_file", {"path": "b"}, id="c2")
        .finish()
    )


def test_a_gemini_tool_loop_replays_each_part_in_place() -> None:
    """Rules 40–42; §25 on Gemini."""
    conversation = open_("gemini")
    conversation.add_user("go")
    calls = answer(conversation, interleaved())
    assert [c.id for c in calls] == ["c1", "c2"]
    sent = send(conversation)["contents"]
    assert sent[1]["parts"] == [
        {"text": "A", "thought": True, "thoughtSignature": "c0E="},
        {
            "functionCall": {"name": "read_file", "args": {"path": "a"}, "id": "c1"},
            "thoughtSignature": "ZjE=",
        },
        {"text": "B", "thought": True, "thoughtSignature": "c0I="},
        {"functionCall": {"name": "read_file", "args": {"path": "b"}, "id": "c2"}},
    ]
    assert [p["functionResponse"]["id"] for p in sent[2]["parts"]] == ["c1", "c2"]
    answer(conversation, GeminiStream().text("Both read.").finish())
    assert conversation.final_output() == FinalOutput("Both read.", True, "end")


def test_on_gemini_a_cut_thought_after_a_call_is_kept() -> None:
    """§42 S4: [ep1 sig1, FC, ep2 partial], MAX_TOKENS.  Gemini accepts unsigned
    thoughts and validates only call signatures: the reasoning is kept, not lost."""
    cut = (
        GeminiStream()
        .thought("ep1")
        .thought("", "c2lnMQ==")
        .call("run_tests", {}, id="c1", signature="ZmM=")
        .thought("ep2 partial")
        .finish("MAX_TOKENS")
    )

    def replayed(*disabled: str) -> list[Any]:
        conversation = open_("gemini", *disabled)
        conversation.add_user("go")
        assert conversation.receive(cut) == []
        conversation.add_user("again")
        parts: list[Any] = send(conversation)["contents"][1]["parts"]
        return parts

    parts = replayed()
    assert [p.get("text", "call") for p in parts] == ["ep1", "call", "ep2 partial"]
    assert parts[-1] == {"text": "ep2 partial", "thought": True}


def test_an_empty_gemini_turn_is_stored_and_reported_incomplete_never_as_text() -> None:
    """Rules 48, 49: finishReason with zero parts."""
    conversation = open_("gemini")
    conversation.add_user("go")
    assert conversation.receive(GeminiStream().finish("MAX_TOKENS")) == []
    assert conversation.final_output() == FinalOutput(None, False, "max_tokens")


# ---------------------------------------------------------------- every wire


MARKUP = 'Sure.\n<invoke name="bash"><parameter name="command">ls</parameter></invoke>'
XML_TURNS = {
    "openai-responses": (ResponsesStream().message(MARKUP).completed(), "call_recovered_1"),
    "openai-chat": (ChatStream().content(MARKUP).finish(), "call_recovered_1"),
    "gemini": (GeminiStream().text(MARKUP, "U0lH").finish(), "recovered_call_1"),
}


@pytest.mark.parametrize("wire", sorted(XML_TURNS))
def test_xml_calls_are_recovered_on_every_wire(wire: str) -> None:
    """Rule 50: the recovered call runs and is replayed structured; no markup left."""
    response, call_id = XML_TURNS[wire]
    conversation = ReferenceAdapter().open(wire_session(wire, "list", tools=(BASH,)))
    conversation.add_user("list")
    assert list(conversation.receive(response)) == [CallToRun(call_id, "bash", {"command": "ls"})]
    conversation.add_tool_results([ToolResultIn(call_id, "bash", "ok")])
    sent = json.dumps(send(conversation))
    assert "<invoke" not in sent
    assert call_id in sent
    assert "Sure." in sent


def test_the_recovered_text_keeps_its_gemini_signature() -> None:
    """Rule 44: the token stays on what remains of the text it was minted for."""
    response, _ = XML_TURNS["gemini"]
    conversation = ReferenceAdapter().open(wire_session("gemini", "list", tools=(BASH,)))
    conversation.add_user("list")
    conversation.receive(response)
    conversation.add_tool_results([ToolResultIn("recovered_call_1", "bash", "ok")])
    prose = {"text": "Sure.", "thoughtSignature": "U0lH"}
    assert send(conversation)["contents"][1]["parts"][0] == prose
