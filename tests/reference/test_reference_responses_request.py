"""Building OpenAI Responses requests from stored history (wire-rules 24–28, 51)."""

from __future__ import annotations

from typing import Any

from conformance._reference.guards import Guards
from conformance._reference.openai_responses import ENCRYPTED_CONTENT, OpenAIResponsesCodec
from conformance.vocabulary import (
    Block,
    Message,
    Reasoning,
    Text,
    ThinkingConfig,
    ToolCall,
    ToolResult,
)

from .wire_streams import wire_session


def body(
    history: list[Message], *disabled: str, store: bool | None = None, **options: Any
) -> dict[str, Any]:
    session = wire_session("openai-responses", store=store, **options)
    request = OpenAIResponsesCodec(session, Guards(disabled)).request(history)
    assert request.path == "/v1/responses"
    assert isinstance(request.body, dict)
    return request.body


def items(history: list[Message], *disabled: str, store: bool | None = None) -> list[Any]:
    found: list[Any] = body(history, *disabled, store=store)["input"]
    return found


def short(found: list[dict[str, Any]]) -> list[str]:
    """Each item as type plus what identifies it."""
    out = []
    for item in found:
        kind = item.get("type", item.get("role"))
        ident = item.get("id") or item.get("call_id") or item.get("role")
        out.append(f"{kind}:{ident}")
    return out


def U(text: str) -> Message:
    return Message(role="user", blocks=(Text(text=text),))


def A(*blocks: Block) -> Message:
    return Message(role="assistant", blocks=blocks)


def T(*results: ToolResult) -> Message:
    return Message(role="tool", blocks=results)


def rs(id: str | None, signature: str | None = None, *summary: str) -> Reasoning:
    return Reasoning(id=id, signature=signature, summary=summary)


def call(id: str) -> ToolCall:
    return ToolCall(id=id, name="read_file", arguments={"path": "a"})


def result(id: str) -> ToolResult:
    return ToolResult(call_id=id, content="file contents")


def test_each_reasoning_item_is_followed_by_the_item_it_produced() -> None:
    """Rules 26, 28: output order, function_call before its output, fc without ids."""
    history = [
        U("go"),
        A(rs("rs_1", "E1"), call("call_1"), rs("rs_2", "E2"), call("call_2")),
        T(result("call_1"), result("call_2")),
    ]
    found = items(history)
    assert short(found) == [
        "message:user",
        "reasoning:rs_1",
        "function_call:call_1",
        "reasoning:rs_2",
        "function_call:call_2",
        "function_call_output:call_1",
        "function_call_output:call_2",
    ]
    assert found[2] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "read_file",
        "arguments": '{"path":"a"}',
    }
    output = {"type": "function_call_output", "call_id": "call_1", "output": "file contents"}
    assert found[5] == output


def test_a_reasoning_item_is_replayed_whole_with_an_empty_summary_kept() -> None:
    """Rule 24: ``summary: []`` is required; encrypted_content byte-exact."""
    found = items([U("go"), A(rs("rs_1", "ENC"), Text(text="hi")), U("more")])
    whole = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "ENC"}
    assert found[1] == whole
    summarised = items([U("go"), A(rs("rs_1", None, "a", "b"), Text(text="hi"))])
    assert summarised[1]["summary"] == [
        {"type": "summary_text", "text": "a"},
        {"type": "summary_text", "text": "b"},
    ]
    assert "encrypted_content" not in summarised[1]


def test_the_assistant_text_is_an_output_text_message() -> None:
    found = items([U("go"), A(Text(text="one"), Text(text="two")), U("more")])
    assert [item["content"] for item in found[1:3]] == [
        [{"type": "output_text", "text": "one"}],
        [{"type": "output_text", "text": "two"}],
    ]
    assert {(item["type"], item["role"]) for item in found[1:3]} == {("message", "assistant")}


def test_store_false_asks_for_encrypted_content_and_sends_only_items_carrying_it() -> None:
    """Rule 25: an id-only item refers to nothing without ``store``."""
    history = [U("go"), A(rs("rs_1", "E1"), call("call_1"), rs("rs_2"), call("call_2"))]
    stateless = body(history, store=False)
    assert stateless["store"] is False
    assert stateless["include"] == [ENCRYPTED_CONTENT]
    assert short(stateless["input"]) == [
        "message:user",
        "reasoning:rs_1",
        "function_call:call_1",
        "function_call:call_2",
    ]
    assert "include" not in body(history, "include-encrypted-content", store=False)
    unguarded = items(history, "omit-unsigned-thinking", store=False)
    assert short(unguarded)[3] == "reasoning:rs_2"


def test_with_store_an_item_is_sent_by_its_id() -> None:
    """The default (store true): the provider stored the item; no include is asked."""
    history = [U("go"), A(rs("rs_1"), call("call_1")), T(result("call_1"))]
    stored = body(history)
    assert "include" not in stored
    assert "store" not in stored
    assert stored["input"][1] == {"type": "reasoning", "id": "rs_1", "summary": []}
    assert body(history, store=True)["store"] is True


def test_reasoning_without_an_id_cannot_be_sent() -> None:
    history = [U("go"), A(rs(None, "E"), Text(text="hi"))]
    assert short(items(history)) == ["message:user", "message:assistant"]


def test_no_reasoning_item_is_sent_without_the_item_it_produced() -> None:
    """Rule 26: a trailing item (its produced item never came) is left out."""
    history = [U("go"), A(rs("rs_1", "E1"), call("call_1"), rs("rs_2", "E2")), T(result("call_1"))]
    assert "reasoning:rs_2" not in short(items(history))
    assert short(items(history, "omit-trailing-reasoning"))[3] == "reasoning:rs_2"


def test_reasoning_minted_elsewhere_is_not_forwarded() -> None:
    """Rules 51, 30: another org, model or session's encrypted content never goes back."""
    foreign = Reasoning(id="rs_x", signature="X", summary=(), origin="openai-responses:gpt-5")
    history = [U("go"), A(foreign, Text(text="hi")), U("more")]
    assert short(items(history)) == ["message:user", "message:assistant", "message:user"]
    assert short(items(history, "omit-foreign-reasoning"))[1] == "reasoning:rs_x"


def test_user_input_loses_reasoning_and_tool_calls() -> None:
    """Seed §1–§3, §10 on this wire: omitted, never flattened, never an error."""
    notice = Message(role="user", blocks=(Text(text="notice"), rs("rs_c", "C"), call("call_c")))
    found = items([notice])
    assert found == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "notice"}]}
    ]


def test_system_prompt_options_and_tools() -> None:
    saved = Message(role="system", blocks=(Text(text="Saved rules."),))
    request = body([saved, U("go")])
    assert request["instructions"] == "You are terse.\n\nSaved rules."
    assert request["tools"] == [
        {
            "type": "function",
            "name": "read_file",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
    ]
    assert request["reasoning"] == {"effort": "medium", "summary": "auto"}
    assert (request["max_output_tokens"], request["stream"]) == (4096, True)
    assert "reasoning" not in body([U("go")], thinking=ThinkingConfig())


def test_a_blank_message_a_reasoning_item_produced_is_sent_with_it() -> None:
    """Rules 26/27: dropping the blank message would take the reasoning of the pending
    tool loop with it; the guard keeps both, in order.  Without it both are gone."""
    history = [
        U("q"),
        A(rs("rs_1", "enc1"), call("c1"), rs("rs_2", "enc2"), Text(text="\n")),
        T(result("c1")),
    ]
    assert short(items(history)) == [
        "message:user",
        "reasoning:rs_1",
        "function_call:c1",
        "reasoning:rs_2",
        "message:assistant",
        "function_call_output:c1",
    ]
    assert short(items(history, "keep-reasoning-follower")) == [
        "message:user",
        "reasoning:rs_1",
        "function_call:c1",
        "function_call_output:c1",
    ]


def test_a_blank_message_no_reasoning_produced_is_still_left_out() -> None:
    history = [U("q"), A(rs("rs_1", "enc1"), Text(text=" "), call("c1")), T(result("c1"))]
    assert short(items(history)) == [
        "message:user",
        "reasoning:rs_1",
        "function_call:c1",
        "function_call_output:c1",
    ]
