"""Building Chat Completions requests per dialect (wire-rules 32, 35–37, 51)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance._reference.codec import ProviderError
from conformance._reference.guards import Guards
from conformance._reference.openai_chat import OpenAIChatCodec
from conformance._targets.api import WireResponse
from conformance.vocabulary import (
    Block,
    Message,
    Reasoning,
    Text,
    ThinkingConfig,
    ToolCall,
    ToolResult,
)

from .wire_streams import FORMAT, ChatStream, text_detail, wire_session


def codec(dialect: str | None, *disabled: str, **options: Any) -> OpenAIChatCodec:
    session = wire_session("openai-chat", dialect=dialect, **options)
    return OpenAIChatCodec(session, Guards(disabled))


def body(
    history: list[Message], dialect: str | None = None, *disabled: str, **options: Any
) -> dict[str, Any]:
    request = codec(dialect, *disabled, **options).request(history)
    assert request.path == "/v1/chat/completions"
    assert isinstance(request.body, dict)
    return request.body


def messages(history: list[Message], dialect: str | None = None, *disabled: str) -> Any:
    return body(history, dialect, *disabled)["messages"]


def U(text: str) -> Message:
    return Message(role="user", blocks=(Text(text=text),))


def A(*blocks: Block) -> Message:
    return Message(role="assistant", blocks=blocks)


def call(id: str) -> ToolCall:
    return ToolCall(id=id, name="read_file", arguments={"path": "a"})


def results(*ids: str) -> Message:
    return Message(role="tool", blocks=tuple(ToolResult(call_id=i, content="ok") for i in ids))


LOOP = [
    U("go"),
    A(Reasoning(text="Plan."), Text(text="Reading."), call("call_1"), call("call_2")),
    results("call_1", "call_2"),
    A(Reasoning(text="Done."), Text(text="Both read.")),
    U("thanks"),
]


def test_plain_chat_sends_text_calls_and_tool_messages_without_reasoning() -> None:
    """Rule 32: tool messages answer each call, right after it."""
    assert messages(LOOP) == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "Reading.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path":"a"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path":"a"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        {"role": "tool", "tool_call_id": "call_2", "content": "ok"},
        {"role": "assistant", "content": "Both read."},
        {"role": "user", "content": "thanks"},
    ]


def test_deepseek_replays_reasoning_content_on_every_tool_call_message() -> None:
    """Rule 35: on the tool-call message, in every later request; left out elsewhere."""
    sent = messages(LOOP, "deepseek")
    assert sent[2]["reasoning_content"] == "Plan."
    assert "reasoning_content" not in sent[5]
    lossy = messages(LOOP, "deepseek", "reasoning-content-on-tool-turns")
    assert "reasoning_content" not in lossy[2]


def test_deepseek_injects_an_empty_reasoning_content_when_none_was_captured() -> None:
    """Rule 36: the key must be there, even ``""``."""
    history = [U("go"), A(call("call_1")), results("call_1")]
    assert messages(history, "deepseek")[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path":"a"}'},
            }
        ],
        "reasoning_content": "",
    }


def test_openrouter_replays_each_episode_as_one_detail_with_its_format() -> None:
    """Rule 37: what the stream delivered in pieces comes back merged, byte-exact, with
    the format its token came with; a saved token of unknown format goes without one."""
    chat = codec("openrouter")
    stream = ChatStream().details(text_detail("a"), text_detail("b"), text_detail(signature="S"))
    chat.decode(stream.call(0, "call_1", "read_file", "{}").finish("tool_calls"))
    saved = Reasoning(text="old", signature="OLD")
    history = [
        U("go"),
        A(saved, Text(text="x")),
        U("again"),
        A(Reasoning(text="ab", signature="S"), Reasoning(redacted=True, data="D"), call("c")),
        results("c"),
    ]
    sent = chat.request(history).body
    assert isinstance(sent, dict)
    assert sent["messages"][2]["reasoning_details"] == [
        {"type": "reasoning.text", "text": "old", "signature": "OLD", "index": 0}
    ]
    assert sent["messages"][4]["reasoning_details"] == [
        {"type": "reasoning.text", "text": "ab", "signature": "S", "format": FORMAT, "index": 0},
        {"type": "reasoning.encrypted", "data": "D", "index": 1},
    ]
    summary = A(Reasoning(summary=("Look closer.",)), Text(text="y"))
    assert messages([U("go"), summary], "openrouter")[2]["reasoning_details"] == [
        {"type": "reasoning.summary", "summary": "Look closer.", "index": 0}
    ]


def test_reasoning_minted_elsewhere_is_not_forwarded() -> None:
    """Rules 38, 51: an aggregator's signed reasoning is scoped to its upstream."""
    foreign = Reasoning(text="t", signature="F", origin="openai-chat:other-upstream")
    history = [U("go"), A(foreign, call("call_1")), results("call_1")]
    assert messages(history, "openrouter")[2].get("reasoning_details") is None
    assert messages(history, "deepseek")[2]["reasoning_content"] == ""
    unguarded = messages(history, "openrouter", "omit-foreign-reasoning")
    assert unguarded[2]["reasoning_details"][0]["signature"] == "F"


def test_an_assistant_message_with_nothing_to_send_is_skipped() -> None:
    """Rule 15's sibling: reasoning alone (a turn cut while thinking) is no message."""
    history = [U("go"), A(Reasoning(text="thinking"), Text(text="  ")), U("again")]
    assert [m["role"] for m in messages(history, "deepseek")] == ["system", "user", "user"]
    unguarded = messages(history, "deepseek", "skip-empty-assistant")
    assert unguarded[2] == {"role": "assistant", "content": None}


def test_a_truncated_call_is_sent_with_its_raw_arguments_only_when_unguarded() -> None:
    """The wire can carry a raw argument string; the truncation guard keeps it out."""
    raw = ToolCall(id="call_w", name="write_file", arguments='{"path": "/tmp')
    sent = messages([U("go"), A(raw)])
    assert sent[2]["tool_calls"][0]["function"]["arguments"] == '{"path": "/tmp'


def test_user_content_and_input_omission() -> None:
    """Seed §1–§3, §10: reasoning and calls in user or tool input are omitted."""
    notice = Message(role="user", blocks=(Text(text="notice"), Reasoning(text="r"), call("call_c")))
    nested = ToolResult(call_id="call_1", content=(Text(text="out"), Reasoning(text="r")))
    history = [notice, A(call("call_1")), Message(role="tool", blocks=(nested,))]
    sent = messages(history)
    assert sent[1] == {"role": "user", "content": "notice"}
    assert sent[3] == {"role": "tool", "tool_call_id": "call_1", "content": "out"}


def test_dialect_switches_and_token_limits() -> None:
    plain = body([U("go")])
    assert (plain["max_completion_tokens"], plain["stream"]) == (4096, True)
    assert "thinking" not in plain
    assert body([U("go")], "deepseek")["thinking"] == {"type": "enabled"}
    assert body([U("go")], "deepseek")["max_tokens"] == 4096
    assert "thinking" not in body([U("go")], "deepseek", thinking=ThinkingConfig())
    assert body([U("go")], "openrouter")["reasoning"] == {"enabled": True}
    manual = ThinkingConfig(mode="manual", budget_tokens=2048)
    assert body([U("go")], "openrouter", thinking=manual)["reasoning"] == {"max_tokens": 2048}
    assert body([U("go")])["tools"][0]["function"]["name"] == "read_file"


def test_decoding_an_error_status_raises() -> None:
    with pytest.raises(ProviderError):
        codec(None).decode(WireResponse(400, {}, b"bad"))


def test_openrouter_leaves_out_reasoning_whose_token_never_arrived() -> None:
    """Rule 3 upstream: an unsigned text detail (a cut stream, an old saved turn) would
    reach Anthropic as thinking without its signature."""
    history = [
        U("go"),
        A(Reasoning(text="cut"), Reasoning(redacted=True, data=None), call("c1")),
        results("c1"),
    ]
    assert "reasoning_details" not in messages(history, "openrouter")[2]
    unguarded = messages(history, "openrouter", "omit-unsigned-thinking")[2]
    assert [d["type"] for d in unguarded["reasoning_details"]] == [
        "reasoning.text",
        "reasoning.encrypted",
    ]
    assert messages(history, "deepseek")[2]["reasoning_content"] == "cut"
