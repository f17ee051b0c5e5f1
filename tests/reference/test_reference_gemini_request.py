"""Building Gemini requests from stored history (wire-rules 40–46, 51)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance._reference.codec import UnsupportedBlock
from conformance._reference.gemini import GeminiCodec
from conformance._reference.guards import Guards
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

from .wire_streams import wire_session


def body(history: list[Message], *disabled: str, **options: Any) -> dict[str, Any]:
    request = GeminiCodec(wire_session("gemini", **options), Guards(disabled)).request(history)
    assert request.path == "/v1beta/models/model-under-test:streamGenerateContent?alt=sse"
    assert isinstance(request.body, dict)
    return request.body


def contents(history: list[Message], *disabled: str) -> Any:
    return body(history, *disabled)["contents"]


def U(text: str) -> Message:
    return Message(role="user", blocks=(Text(text=text),))


def A(*blocks: Block) -> Message:
    return Message(role="assistant", blocks=blocks)


def call(id: str, signature: str | None = None, **origin: str) -> ToolCall:
    return ToolCall(id=id, name="read_file", arguments={"path": id}, signature=signature, **origin)


def results(*ids: str, error: bool = False) -> Message:
    blocks = tuple(ToolResult(call_id=i, content=f"{i} ok", is_error=error) for i in ids)
    return Message(role="tool", blocks=blocks)


def test_the_signature_rides_beside_function_call_on_its_own_part() -> None:
    """Rule 40; parallel calls carry it only where it came (rule 41)."""
    history = [U("go"), A(call("c1", "U0lH"), call("c2")), results("c1", "c2")]
    model = contents(history)[1]
    assert model == {
        "role": "model",
        "parts": [
            {
                "functionCall": {"name": "read_file", "args": {"path": "c1"}, "id": "c1"},
                "thoughtSignature": "U0lH",
            },
            {"functionCall": {"name": "read_file", "args": {"path": "c2"}, "id": "c2"}},
        ],
    }
    nested = contents(history, "signature-beside-function-call")[1]["parts"][0]
    assert nested == {
        "functionCall": {
            "name": "read_file",
            "args": {"path": "c1"},
            "id": "c1",
            "thoughtSignature": "U0lH",
        }
    }


def test_every_call_is_answered_by_one_function_response_right_after_it() -> None:
    """Rule 42: equal counts; an error result keeps its place as an ``error`` response."""
    history = [U("go"), A(call("c1"), call("c2")), results("c1"), results("c2", error=True)]
    answer = contents(history)[2]
    assert answer == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "name": "read_file",
                    "response": {"output": "c1 ok"},
                    "id": "c1",
                }
            },
            {
                "functionResponse": {
                    "name": "read_file",
                    "response": {"error": "c2 ok"},
                    "id": "c2",
                }
            },
        ],
    }


def test_results_and_the_next_prompt_share_one_user_content() -> None:
    history = [U("go"), A(call("c1")), results("c1"), U("next")]
    sent = contents(history)
    assert [c["role"] for c in sent] == ["user", "model", "user"]
    assert [list(p) for p in sent[2]["parts"]] == [["functionResponse"], ["text"]]


def test_thoughts_and_text_keep_their_signatures_in_place() -> None:
    """Rules 43, 44: a signed empty text part is content, not a blank block."""
    history = [
        U("go"),
        A(
            Reasoning(text="A", signature="c0E="),
            Reasoning(text="B"),
            Text(text="Hello"),
            Text(text="", signature="Uw=="),
            Text(text="  "),
        ),
        U("more"),
    ]
    assert contents(history)[1]["parts"] == [
        {"text": "A", "thought": True, "thoughtSignature": "c0E="},
        {"text": "B", "thought": True},
        {"text": "Hello"},
        {"text": "", "thoughtSignature": "Uw=="},
    ]


def test_a_trailing_thought_is_sent_as_it_is() -> None:
    """Gemini has no trailing-reasoning rule: only the dangling-episode guard (at
    receive time) keeps a cut thought out of the history."""
    history = [U("go"), A(Text(text="x"), Reasoning(text="partial")), U("more")]
    assert contents(history)[1]["parts"][-1] == {"text": "partial", "thought": True}


def test_signatures_minted_elsewhere_are_not_forwarded() -> None:
    """Rule 46: after a model switch old thoughts go, and calls and text lose their
    signatures; the calls themselves stay (never rewritten as text, rule 45)."""
    old = "gemini:gemini-3-pro-preview"
    history = [
        U("go"),
        A(
            Reasoning(text="plan", signature="cA==", origin=old),
            Text(text="Reading.", signature="dA==", origin=old),
            call("c1", "ZmM=", origin=old),
        ),
        results("c1"),
    ]
    assert contents(history)[1]["parts"] == [
        {"text": "Reading."},
        {"functionCall": {"name": "read_file", "args": {"path": "c1"}, "id": "c1"}},
    ]
    unguarded = contents(history, "omit-foreign-reasoning")[1]["parts"]
    assert unguarded[0] == {"text": "plan", "thought": True, "thoughtSignature": "cA=="}


def test_user_input_loses_reasoning_and_calls_and_keeps_media() -> None:
    """Seed §1–§3, §10 on this wire."""
    image = Media(mime="image/png", data="iVBOR")
    notice = Message(role="user", blocks=(Text(text="n"), Reasoning(text="r"), call("x"), image))
    assert contents([notice])[0]["parts"] == [
        {"text": "n"},
        {"inlineData": {"mimeType": "image/png", "data": "iVBOR"}},
    ]


def test_an_empty_model_content_is_skipped() -> None:
    history = [U("go"), A(Text(text=" ")), U("more")]
    assert [c["role"] for c in contents(history)] == ["user", "user"]
    assert contents(history, "skip-empty-assistant")[1] == {"role": "model", "parts": []}


def test_system_instruction_tools_and_thinking_config() -> None:
    request = body([U("go")], thinking=ThinkingConfig(mode="manual", budget_tokens=2048))
    assert request["systemInstruction"] == {"parts": [{"text": "You are terse."}]}
    assert request["tools"][0]["functionDeclarations"][0]["name"] == "read_file"
    assert request["generationConfig"] == {
        "maxOutputTokens": 4096,
        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 2048},
    }
    assert body([U("go")])["generationConfig"]["thinkingConfig"] == {"includeThoughts": True}
    assert "thinkingConfig" not in body([U("go")], thinking=ThinkingConfig())["generationConfig"]


def test_a_system_message_mid_conversation_has_no_place() -> None:
    with pytest.raises(UnsupportedBlock):
        body([U("go"), Message(role="system", blocks=(Text(text="late"),))])
