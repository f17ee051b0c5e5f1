"""Building Anthropic requests from stored history (wire-rules §A, seed §1–§8, §84–§96).

Each guard is shown on and off: off re-creates the shape its source entry describes.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance._reference.anthropic import AnthropicCodec
from conformance._reference.codec import UnsupportedBlock
from conformance._reference.guards import Guards
from conformance._targets.api import WireRequest
from conformance.vocabulary import (
    Block,
    Media,
    Message,
    Reasoning,
    Text,
    ThinkingConfig,
    ToolCall,
    ToolResult,
)

from .sse_streams import BASH, MANUAL, READ_FILE, session

ADAPTIVE = ThinkingConfig(mode="adaptive")
OFF = ThinkingConfig()


def build(
    history: list[Message],
    disabled: frozenset[str] = frozenset(),
    thinking: ThinkingConfig = MANUAL,
    system: str | None = "You are terse.",
) -> WireRequest:
    codec = AnthropicCodec(session(thinking=thinking, system=system), Guards(disabled))
    return codec.request(history)


def messages(history: list[Message], *disabled: str, thinking: ThinkingConfig = MANUAL) -> Any:
    body = build(history, frozenset(disabled), thinking).body
    assert isinstance(body, dict)
    return body["messages"]


def shape(message: dict[str, Any]) -> list[str]:
    """A message's blocks, short: kind plus the text, signature, data or id."""
    out = []
    for b in message["content"]:
        key = {"thinking": "signature", "redacted_thinking": "data", "text": "text"}.get(b["type"])
        out.append(f"{b['type']}:{b.get(key or 'id', b.get('tool_use_id', ''))}")
    return out


def U(text: str, *more: Block) -> Message:
    return Message(role="user", blocks=(Text(text=text), *more))


def A(*blocks: Block) -> Message:
    return Message(role="assistant", blocks=blocks)


def results(*ids: str) -> Message:
    return Message(role="tool", blocks=tuple(ToolResult(call_id=i, content="ok") for i in ids))


def think(signature: str | None, text: str = "t") -> Reasoning:
    return Reasoning(text=text, signature=signature)


def call(id: str) -> ToolCall:
    return ToolCall(id=id, name="read_file", arguments={"path": id})


def text(value: str) -> Text:
    return Text(text=value)


# ---------------------------------------------------------------- the body


def test_body_fields_in_manual_mode_and_no_beta_unless_configured() -> None:
    request = build([U("hi")])
    assert request.body == {
        "model": "model-under-test",
        "max_tokens": 4096,
        "stream": True,
        "system": "You are terse.",
        "tools": [
            {
                "name": "read_file",
                "description": "Read a file",
                "input_schema": dict(READ_FILE.parameters),
            }
        ],
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    assert "anthropic-beta" not in request.headers  # the user configures betas
    assert request.path == "/v1/messages"


def test_adaptive_thinking_has_no_budget_and_no_beta() -> None:
    """Rule 12d: the interleaved beta goes to manual mode only."""
    request = build([U("hi")], thinking=ADAPTIVE)
    assert isinstance(request.body, dict)
    assert request.body["thinking"] == {"type": "adaptive"}
    assert "anthropic-beta" not in request.headers


def test_thinking_off_sends_no_thinking_and_no_system_when_none() -> None:
    request = build([U("hi")], thinking=OFF, system=None)
    assert isinstance(request.body, dict)
    assert "thinking" not in request.body
    assert "system" not in request.body
    assert "anthropic-beta" not in request.headers


def test_manual_mode_without_a_budget_uses_the_minimum() -> None:
    body = build([U("hi")], thinking=ThinkingConfig(mode="manual")).body
    assert isinstance(body, dict)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}


def test_bodies_are_deterministic() -> None:
    history = [U("hi"), A(think("S"), call("c1")), results("c1")]
    assert build(history).body_bytes() == build(history).body_bytes()


# ---------------------------------------------------------------- reasoning replay


def test_reasoning_is_replayed_byte_exact_in_place() -> None:
    """Rules 3–5, 7: each block with its own token, the thinking key even for ""."""
    history = [
        U("go"),
        A(
            think("S1", "one\n"),
            call("c1"),
            think("S2", ""),
            Reasoning(redacted=True, data="D"),
            call("c2"),
        ),
        results("c1", "c2"),
    ]
    content = messages(history)[1]["content"]
    assert content == [
        {"type": "thinking", "thinking": "one\n", "signature": "S1"},
        {"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "c1"}},
        {"type": "thinking", "thinking": "", "signature": "S2"},
        {"type": "redacted_thinking", "data": "D"},
        {"type": "tool_use", "id": "c2", "name": "read_file", "input": {"path": "c2"}},
    ]


def test_unsigned_thinking_is_omitted_from_the_request_only() -> None:
    """§100(a), rule 3: Anthropic needs the signature; the history keeps the block."""
    history = [U("go"), A(think(None, "draft"), text("answer")), U("more")]
    assert shape(messages(history)[1]) == ["text:answer"]
    assert history[1].blocks[0] == think(None, "draft")
    off = messages(history, "omit-unsigned-thinking")
    assert off[1]["content"][0] == {"type": "thinking", "thinking": "draft"}


def test_reasoning_minted_elsewhere_is_omitted() -> None:
    """Rules 8, 51: a token from another wire, model or session is never forwarded; an
    origin naming this very wire and model still says "minted in another session"."""
    foreign = Reasoning(text="t", signature="G", origin="gemini:gemini-3")
    elsewhere = Reasoning(text="t", signature="E", origin="anthropic-messages:model-under-test")
    own = Reasoning(text="t", signature="S")
    history = [U("go"), A(foreign, elsewhere, own, text("answer")), U("more")]
    assert shape(messages(history)[1]) == ["thinking:S", "text:answer"]
    off = messages(history, "omit-foreign-reasoning")
    assert shape(off[1]) == ["thinking:G", "thinking:E", "thinking:S", "text:answer"]


def test_no_assistant_message_ends_with_reasoning() -> None:
    """Rule 9: "The final block in an assistant message cannot be `thinking`"."""
    history = [U("go"), A(text("answer"), think("S")), U("more")]
    assert shape(messages(history)[1]) == ["text:answer"]
    assert shape(messages(history, "omit-trailing-reasoning")[1]) == ["text:answer", "thinking:S"]


def test_reasoning_only_turn_is_not_replayed() -> None:
    """A max_tokens turn that stopped after its thinking: nothing sendable remains."""
    history = [U("go"), A(think("S")), U("more")]
    assert [m["role"] for m in messages(history)] == ["user", "user"]


# ---------------------------------------------------------------- empty content


def test_empty_assistant_message_is_skipped() -> None:
    """§165, rule 15: a max_tokens turn with content [] is not sent as an empty message."""
    history = [U("go"), A(), U("more")]
    assert messages(history) == [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "user", "content": [{"type": "text", "text": "more"}]},
    ]
    off = messages(history, "skip-empty-assistant")
    assert off[1] == {"role": "assistant", "content": []}


def test_blank_text_blocks_are_not_sent() -> None:
    """Rule 15: text blocks must be non-empty and contain non-whitespace."""
    history = [U("go"), A(text(" \n"), call("c1")), results("c1")]
    assert shape(messages(history)[1]) == ["tool_use:c1"]
    assert shape(messages(history, "omit-blank-text")[1]) == ["text: \n", "tool_use:c1"]


# ---------------------------------------------------------------- tool results


def test_tool_results_lead_the_user_message_with_the_next_prompt_after_them() -> None:
    """Rule 13, rule 16: error results of a truncated turn, then the new prompt."""
    error = ToolResult(call_id="c1", content="not executed", is_error=True)
    history = [U("go"), A(think("S"), call("c1")), Message(role="tool", blocks=(error,)), U("next")]
    assert messages(history)[2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "c1",
                "content": "not executed",
                "is_error": True,
            },
            {"type": "text", "text": "next"},
        ],
    }


def test_consecutive_prompts_stay_separate_messages() -> None:
    """The earlier prompt was already sent alone; merging would rewrite it."""
    assert [len(m["content"]) for m in messages([U("one"), U("two")])] == [1, 1]


def test_tool_result_content_blocks_are_rendered() -> None:
    png = Media(mime="image/png", data="AAAA")
    result = ToolResult(call_id="c1", content=(text("see"), png))
    history = [U("go"), A(think("S"), call("c1")), Message(role="tool", blocks=(result,))]
    assert messages(history)[2]["content"][0]["content"] == [
        {"type": "text", "text": "see"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
    ]


# ---------------------------------------------------------------- user input (seed 000)


def test_reasoning_and_calls_in_user_input_are_omitted() -> None:
    """§1, §2, §4, §6: only the notice text is sent; no flattening, no error."""
    notice = U("notice", think("CHILD", "child reasoning"), call("child"))
    body = messages([notice])
    assert body == [{"role": "user", "content": [{"type": "text", "text": "notice"}]}]
    assert "child reasoning" not in str(body)


def test_reasoning_and_calls_in_tool_result_content_are_omitted() -> None:
    """§3: the rest of the tool result's content is serialized."""
    result = ToolResult(call_id="c1", content=(text("out"), think("CHILD"), call("child")))
    history = [U("go"), A(think("S"), call("c1")), Message(role="tool", blocks=(result,))]
    assert messages(history)[2]["content"][0]["content"] == [{"type": "text", "text": "out"}]


def test_user_input_omission_leaves_the_history_unchanged() -> None:
    """§5: the omission is request-only."""
    notice = U("notice", think("CHILD"))
    history = [notice]
    messages(history)
    assert history == [U("notice", think("CHILD"))]


def test_without_the_omission_user_input_reasoning_blocks_the_request() -> None:
    """The pre-fix behaviour (§1): every request with the saved notice failed."""
    with pytest.raises(UnsupportedBlock, match="reasoning block cannot be sent inside user"):
        messages([U("notice", think("CHILD"))], "omit-reasoning-in-user-input")


def test_assistant_reasoning_is_out_of_scope_of_the_omission() -> None:
    """§8: ordinary assistant reasoning and calls are sent as usual."""
    history = [U("go"), A(think("S"), call("c1")), results("c1")]
    assert shape(messages(history)[1]) == ["thinking:S", "tool_use:c1"]


def test_user_input_left_empty_is_dropped() -> None:
    history = [U("a"), A(text("b")), Message(role="user", blocks=(think("CHILD"),)), U("c")]
    assert [m["role"] for m in messages(history)] == ["user", "assistant", "user"]


def test_other_unsupported_input_is_rejected() -> None:
    """§7: a block with no Messages representation is an error, not dropped."""
    audio = Media(mime="audio/wav", data="AAAA")
    with pytest.raises(UnsupportedBlock, match="audio/wav"):
        messages([U("listen", audio)])


def test_images_and_documents_in_user_input_are_supported() -> None:
    pdf = Media(mime="application/pdf", data="JVBE")
    assert shape(messages([U("read", pdf)])[0]) == ["text:read", "document:"]


def test_media_in_an_assistant_message_is_rejected() -> None:
    with pytest.raises(UnsupportedBlock, match="assistant message cannot carry a media"):
        messages([U("go"), A(Media(mime="image/png", data="AAAA")), U("more")])


def test_a_call_with_unparsed_arguments_cannot_be_sent() -> None:
    cut = ToolCall(id="c1", name="read_file", arguments='{"pa')
    with pytest.raises(UnsupportedBlock, match="unparsed arguments"):
        messages([U("go"), A(think("S"), cut), results("c1")])


def test_leading_system_messages_join_the_system_prompt() -> None:
    saved = Message(role="system", blocks=(text("Saved rules."),))
    body = build([saved, U("hi")]).body
    assert isinstance(body, dict)
    assert body["system"] == "You are terse.\n\nSaved rules."
    with pytest.raises(UnsupportedBlock, match="system message"):
        build([U("hi"), saved])


# ---------------------------------------------------------------- merge and leading thinking


def test_adjacent_assistant_messages_concatenate_without_hoisting() -> None:
    """§84 (C3a, adaptive): [text A] + [X, Y, tool_use] -> [A, X, Y, tool_use]."""
    history = [U("go"), A(text("A")), A(think("X"), think("Y"), call("c1")), results("c1")]
    merged = messages(history, thinking=ADAPTIVE)[1]
    assert shape(merged) == ["text:A", "thinking:X", "thinking:Y", "tool_use:c1"]


def test_merged_message_in_manual_mode_leads_with_its_thinking_run() -> None:
    """§89 (C3b): the contiguous run moves as one unit."""
    history = [U("go"), A(text("A")), A(think("X"), think("Y"), call("c1")), results("c1")]
    assert shape(messages(history)[1]) == ["thinking:X", "thinking:Y", "text:A", "tool_use:c1"]


def test_manual_text_leading_tool_turn_is_repaired() -> None:
    """§86 (C1): [text, thinking, tool_use] -> [thinking, text, tool_use]."""
    history = [U("go"), A(text("line"), think("S"), call("c1")), results("c1")]
    assert shape(messages(history)[1]) == ["thinking:S", "text:line", "tool_use:c1"]


def test_adaptive_mode_stays_chronological() -> None:
    """§87 (C2), §107."""
    history = [U("go"), A(text("line"), think("S"), call("c1")), results("c1")]
    assert shape(messages(history, thinking=ADAPTIVE)[1]) == [
        "text:line",
        "thinking:S",
        "tool_use:c1",
    ]


def test_only_the_first_thinking_run_moves() -> None:
    """§88 (C6): later runs keep their place; off = hoist all (M5)."""
    history = [
        U("go"),
        A(text("x"), think("F"), call("t1"), think("S"), call("t2")),
        results("t1", "t2"),
    ]
    assert shape(messages(history)[1]) == [
        "thinking:F",
        "text:x",
        "tool_use:t1",
        "thinking:S",
        "tool_use:t2",
    ]
    assert shape(messages(history, "leading-thinking-first-run")[1]) == [
        "thinking:F",
        "thinking:S",
        "text:x",
        "tool_use:t1",
        "tool_use:t2",
    ]


def test_every_tool_use_message_is_repaired() -> None:
    """§90: an earlier tool turn is repaired too; off = latest only (M4)."""
    history = [
        U("go"),
        A(text("first"), think("S1"), call("c1")),
        results("c1"),
        A(text("second"), think("S2"), call("c2")),
        results("c2"),
    ]
    on = messages(history)
    assert shape(on[1]) == ["thinking:S1", "text:first", "tool_use:c1"]
    assert shape(on[3]) == ["thinking:S2", "text:second", "tool_use:c2"]
    off = messages(history, "leading-thinking-every-tool-turn")
    assert shape(off[1]) == ["text:first", "thinking:S1", "tool_use:c1"]
    assert shape(off[3]) == ["thinking:S2", "text:second", "tool_use:c2"]


def test_a_turn_serializes_the_same_whether_or_not_later_turns_follow() -> None:
    """§91 (C4): position-independent, so the prompt-cache prefix holds."""
    turn = [U("go"), A(text("first"), think("S1"), call("c1")), results("c1")]
    later = [*turn, A(text("second"), think("S2"), call("c2")), results("c2")]
    assert messages(turn)[1] == messages(later)[1]
    assert (
        messages(turn, "leading-thinking-every-tool-turn")[1]
        != messages(later, "leading-thinking-every-tool-turn")[1]
    )


def test_messages_without_tool_use_are_untouched() -> None:
    """§92: [text, thinking] with no tool_use keeps its order (the trailing thinking
    then goes by rule 9, not by a reorder)."""
    history = [U("go"), A(text("a"), think("S"), text("b")), U("more")]
    assert shape(messages(history)[1]) == ["text:a", "thinking:S", "text:b"]


def test_nothing_is_fabricated_when_a_tool_turn_has_no_thinking() -> None:
    """§93."""
    history = [U("Hi"), A(text("no thinking here"), call("t1")), results("t1")]
    assert shape(messages(history)[1]) == ["text:no thinking here", "tool_use:t1"]


def test_a_first_run_after_a_tool_use_still_moves() -> None:
    """§94 (pinned contract): [text, tool_use, thinking, tool_use] merged turn."""
    history = [
        U("go"),
        A(text("x")),
        A(call("t1")),
        A(think("E2"), call("t2")),
        results("t1", "t2"),
    ]
    assert shape(messages(history)[1]) == ["thinking:E2", "text:x", "tool_use:t1", "tool_use:t2"]


def test_a_run_at_the_very_end_moves_to_the_front() -> None:
    """§95: [text A, tool_use t1] + [episode] merged -> [thinking, text, tool_use]."""
    history = [U("Hi"), A(text("text A"), call("t1")), A(think("sE", "episode")), results("t1")]
    assert shape(messages(history)[1]) == ["thinking:sE", "text:text A", "tool_use:t1"]


def test_redacted_thinking_counts_as_thinking() -> None:
    """§96: [text, redacted, tool_use] -> [redacted, text, tool_use]."""
    history = [U("go"), A(text("A"), Reasoning(redacted=True, data="opaque"), call("t1"))]
    history.append(results("t1"))
    assert shape(messages(history)[1]) == ["redacted_thinking:opaque", "text:A", "tool_use:t1"]
    off = messages(history, "leading-thinking-redacted-counts")
    assert shape(off[1]) == ["text:A", "redacted_thinking:opaque", "tool_use:t1"]


def test_tools_are_declared_in_session_order() -> None:
    codec = AnthropicCodec(session(tools=(READ_FILE, BASH)), Guards())
    body = codec.request([U("hi")]).body
    assert isinstance(body, dict)
    assert [t["name"] for t in body["tools"]] == ["read_file", "bash"]
