"""The reference adapter driven the way the suite's runner drives it:
add_user -> next_request -> receive -> add_tool_results -> ... -> final_output."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from conformance._reference import ReferenceAdapter
from conformance._reference.adapter import ReferenceSession
from conformance._reference.guards import UnknownGuard
from conformance._reference.turns import NOT_EXECUTED
from conformance._targets.api import CallToRun, ToolResultIn, WireResponse
from conformance.vocabulary import FinalOutput, Message, Reasoning, Text, ThinkingConfig

from .sse_streams import BASH, READ_FILE, Stream, session

SIG1 = "U0lHLUVQSVNPREUtT05FLUFBQUE="
SIG2 = "U0lHLUVQSVNPREUtVFdPLUJCQkI="


def body(conversation: ReferenceSession) -> dict[str, Any]:
    request = conversation.next_request()
    parsed: dict[str, Any] = json.loads(request.body_bytes())
    return parsed


def answer(conversation: ReferenceSession, calls: list[CallToRun] | Any) -> None:
    conversation.add_tool_results([ToolResultIn(c.id, c.name, "file contents") for c in calls])


def interleaved() -> WireResponse:
    """Seed §25's end-to-end fixture: two signed episodes, each before its call."""
    return (
        Stream()
        .ping()
        .thinking("EPISODE-ONE: ", "read alpha first.", signature=SIG1)
        .tool_use("toolu_alpha", "read_file", '{"path": ', '"alpha.txt"}')
        .thinking("EPISODE-TWO: then beta.", signature=(SIG2[:10], SIG2[10:]))
        .tool_use("toolu_beta", "read_file", '{"path": "beta.txt"}')
        .end("tool_use")
    )


def test_identity() -> None:
    adapter = ReferenceAdapter()
    assert adapter.name == "reference"
    assert adapter.wires == frozenset(
        {"anthropic-messages", "openai-responses", "openai-chat", "gemini"}
    )
    assert set(adapter.codecs) == adapter.wires
    assert adapter.capabilities == frozenset(
        {
            "history",
            "output-selection",
            "xml-recovery",
            "pause-resume",
            "tool-choice",
            "prefill",
            "betas",
        }
    )


def test_unknown_wires_and_guards_are_refused() -> None:
    with pytest.raises(ValueError, match="bedrock-converse"):
        ReferenceAdapter().open(replace(session(), wire="bedrock-converse"))
    with pytest.raises(UnknownGuard):
        ReferenceAdapter(disabled=frozenset({"no-such-guard"}))


def test_a_two_response_conversation() -> None:
    conversation = ReferenceAdapter().open(session("Read alpha.txt and beta.txt"))
    conversation.add_user("Read alpha.txt and beta.txt")
    first = body(conversation)
    assert first["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Read alpha.txt and beta.txt"}]}
    ]
    calls = conversation.receive(interleaved())
    assert list(calls) == [
        CallToRun("toolu_alpha", "read_file", {"path": "alpha.txt"}),
        CallToRun("toolu_beta", "read_file", {"path": "beta.txt"}),
    ]
    answer(conversation, calls)
    second = body(conversation)
    assert second["messages"][0] == first["messages"][0]
    assert second["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": "EPISODE-ONE: read alpha first.",
                    "signature": SIG1,
                },
                {
                    "type": "tool_use",
                    "id": "toolu_alpha",
                    "name": "read_file",
                    "input": {"path": "alpha.txt"},
                },
                {"type": "thinking", "thinking": "EPISODE-TWO: then beta.", "signature": SIG2},
                {
                    "type": "tool_use",
                    "id": "toolu_beta",
                    "name": "read_file",
                    "input": {"path": "beta.txt"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_alpha", "content": "file contents"},
                {"type": "tool_result", "tool_use_id": "toolu_beta", "content": "file contents"},
            ],
        },
    ]
    assert conversation.receive(Stream().text("Both files read.").end()) == []
    assert conversation.final_output() == FinalOutput("Both files read.", True, "end")


def test_a_truncated_turn_runs_nothing_and_answers_its_complete_calls() -> None:
    """Rules 16, 33, 13: the complete call gets an error result, the cut one vanishes,
    the next prompt follows the results in one user message."""
    conversation = ReferenceAdapter().open(session("go", "next"))
    conversation.add_user("go")
    cut = (
        Stream()
        .thinking("plan", signature="S")
        .tool_use("toolu_1", "read_file", '{"path": "a"}')
        .tool_use("toolu_2", "read_file", '{"pa')
        .end("max_tokens")
    )
    assert conversation.receive(cut) == []
    conversation.add_user("next")
    messages = body(conversation)["messages"]
    assert [b["type"] for b in messages[1]["content"]] == ["thinking", "tool_use"]
    assert messages[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": NOT_EXECUTED,
            "is_error": True,
        },
        {"type": "text", "text": "next"},
    ]


def test_an_empty_terminal_message_is_skipped_and_the_earlier_text_is_output() -> None:
    """§165, §167, rule 15."""

    def run(*disabled: str) -> tuple[ReferenceSession, dict[str, Any]]:
        conversation = ReferenceAdapter(frozenset(disabled)).open(session("go", "again"))
        conversation.add_user("go")
        step = Stream().thinking("t", signature="S").text("partial answer")
        answer(
            conversation,
            conversation.receive(step.tool_use("toolu_1", "read_file", "{}").end("tool_use")),
        )
        cut = Stream().tool_use("toolu_2", "read_file", '{"p').end("max_tokens")
        assert conversation.receive(cut) == []
        output = conversation.final_output()
        conversation.add_user("again")
        return conversation, {"output": output, "messages": body(conversation)["messages"]}

    _, reference = run()
    assert reference["output"] == FinalOutput("partial answer", False, "max_tokens")
    assert [m["role"] for m in reference["messages"]] == ["user", "assistant", "user", "user"]
    _, unguarded = run("skip-empty-assistant", "output-last-nonempty-text")
    assert unguarded["messages"][3] == {"role": "assistant", "content": []}
    assert unguarded["output"] == FinalOutput("", False, "max_tokens")


def test_a_reasoning_only_cut_reports_incomplete_without_text() -> None:
    """Rule 49: a thinking-only max_tokens response is not "" success."""
    conversation = ReferenceAdapter().open(session("go"))
    conversation.add_user("go")
    assert conversation.receive(Stream().thinking("deep thought", stop=False).cut()) == []
    assert conversation.final_output() == FinalOutput(None, False, "no_finish")


def test_xml_calls_are_recovered_and_replayed_as_structured_calls() -> None:
    """Rule 50's case: bash runs, the next request carries a structured call."""
    conversation = ReferenceAdapter().open(session("list", tools=(BASH,)))
    conversation.add_user("list")
    markup = '<invoke name="bash"><parameter name="command">ls</parameter></invoke>'
    response = Stream().thinking("use bash", signature="S").text("Sure.\n", markup).end()
    calls = conversation.receive(response)
    assert list(calls) == [CallToRun("toolu_recovered_1", "bash", {"command": "ls"})]
    conversation.add_tool_results([ToolResultIn("toolu_recovered_1", "bash", "ok")])
    messages = body(conversation)["messages"]
    assert messages[1]["content"] == [
        {"type": "thinking", "thinking": "use bash", "signature": "S"},
        {"type": "text", "text": "Sure."},
        {"type": "tool_use", "id": "toolu_recovered_1", "name": "bash", "input": {"command": "ls"}},
    ]
    assert "<invoke" not in json.dumps(messages)


def test_a_saved_history_is_loaded_and_never_rewritten() -> None:
    """Capability history; seed §1, §5."""
    notice = Message(
        role="user", blocks=(Text(text="notice"), Reasoning(text="child", signature="C"))
    )
    saved = (notice, Message(role="assistant", blocks=(Text(text="noted"),)))
    conversation = ReferenceAdapter().open(session("continue", history=saved))
    conversation.add_user("continue")
    messages = body(conversation)["messages"]
    assert messages[0] == {"role": "user", "content": [{"type": "text", "text": "notice"}]}
    assert conversation.history.messages[:2] == saved


def test_two_signature_only_blocks_need_the_boundary_guard() -> None:
    """§35 on Anthropic: content_block_stop keeps the signatures apart."""
    response = (
        Stream()
        .thinking(signature="SIG-A")
        .thinking(signature="SIG-B")
        .tool_use("toolu_1", "read_file", "{}")
        .end("tool_use")
    )

    def thinking_blocks(*disabled: str) -> list[dict[str, Any]]:
        conversation = ReferenceAdapter(frozenset(disabled)).open(session("go"))
        conversation.add_user("go")
        answer(conversation, conversation.receive(response))
        return [b for b in body(conversation)["messages"][1]["content"] if b["type"] == "thinking"]

    assert thinking_blocks() == [
        {"type": "thinking", "thinking": "", "signature": "SIG-A"},
        {"type": "thinking", "thinking": "", "signature": "SIG-B"},
    ]
    assert thinking_blocks("flush-on-episode-boundary") == [
        {"type": "thinking", "thinking": "", "signature": "SIG-ASIG-B"}
    ]


def test_the_flush_heuristics_are_layered_under_the_boundary_guard_on_anthropic() -> None:
    """§121: on Anthropic each heuristic is masked by content_block_stop; with the
    boundary guard also off, removing the visible-block flush merges §30's shape."""
    response = (
        Stream()
        .thinking("visible reasoning", signature="sig1")
        .tool_use("call1", "read_file", "{}")
        .thinking(signature="sig2")
        .tool_use("call2", "read_file", "{}")
        .end("tool_use")
    )

    def assistant(*disabled: str) -> list[str]:
        conversation = ReferenceAdapter(frozenset(disabled)).open(session("go"))
        conversation.add_user("go")
        answer(conversation, conversation.receive(response))
        blocks = body(conversation)["messages"][1]["content"]
        return [b.get("signature", b.get("id")) for b in blocks]

    reference = ["sig1", "call1", "sig2", "call2"]
    assert assistant("flush-on-visible-block") == reference
    assert assistant("flush-on-episode-boundary") == reference
    merged = assistant("flush-on-visible-block", "flush-on-episode-boundary")
    assert merged == ["sig1sig2", "call1", "call2"]


def test_thinking_off_conversation_sends_no_thinking_config() -> None:
    conversation = ReferenceAdapter().open(session("hi", thinking=ThinkingConfig()))
    conversation.add_user("hi")
    assert "thinking" not in body(conversation)
    assert READ_FILE.name in json.dumps(body(conversation)["tools"])


def test_a_paused_turn_continues_with_its_content_resent_unchanged() -> None:
    """Rule 14: no calls, yet the turn goes on; no new user message, no tool_result."""
    conversation = ReferenceAdapter().open(session("search", thinking=ThinkingConfig()))
    conversation.add_user("search")
    assert conversation.receive(Stream().text("Searching.").end("pause_turn")) == []
    assert conversation.continues()
    assert body(conversation)["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "search"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Searching."}]},
    ]
    assert conversation.receive(Stream().text("Found it.").end()) == []
    assert not conversation.continues()
