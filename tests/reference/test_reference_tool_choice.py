"""Issue 13: the tool choice a case asks for, in each wire's own form (rule 11).

Before, no case could ask for a tool choice, so a client that forces a tool while
Claude's manual thinking is on (400 "Thinking may not be enabled when tool_choice forces
tool use.") passed every case.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from conformance._reference.anthropic import AnthropicCodec
from conformance._reference.codec import WireCodec
from conformance._reference.gemini import GeminiCodec
from conformance._reference.guards import Guards
from conformance._reference.openai_chat import OpenAIChatCodec
from conformance._reference.openai_responses import OpenAIResponsesCodec
from conformance.vocabulary import Message, Text, ThinkingConfig, ToolChoice

from .sse_streams import MANUAL, session

AUTO, ANY, NONE = ToolChoice(mode="auto"), ToolChoice(mode="any"), ToolChoice(mode="none")
NAMED = ToolChoice(mode="tool", name="read_file")
OFF = ThinkingConfig()
HISTORY = [Message(role="user", blocks=(Text(text="p"),))]


def body(
    codec: type[WireCodec],
    choice: ToolChoice | None,
    thinking: ThinkingConfig = OFF,
    disabled: frozenset[str] = frozenset(),
    **changes: Any,
) -> dict[str, Any]:
    wire = codec.wire
    held = replace(session(thinking=thinking), wire=wire, tool_choice=choice, **changes)
    sent = codec(held, Guards(disabled)).request(HISTORY).body
    assert isinstance(sent, dict)
    return sent


@pytest.mark.parametrize(
    ("choice", "anthropic", "openai_chat", "responses", "gemini"),
    [
        (AUTO, {"type": "auto"}, "auto", "auto", {"mode": "AUTO"}),
        (ANY, {"type": "any"}, "required", "required", {"mode": "ANY"}),
        (NONE, {"type": "none"}, "none", "none", {"mode": "NONE"}),
        (
            NAMED,
            {"type": "tool", "name": "read_file"},
            {"type": "function", "function": {"name": "read_file"}},
            {"type": "function", "name": "read_file"},
            {"mode": "ANY", "allowedFunctionNames": ["read_file"]},
        ),
    ],
)
def test_each_wire_spells_the_choice_its_own_way(
    choice: ToolChoice, anthropic: Any, openai_chat: Any, responses: Any, gemini: Any
) -> None:
    assert body(AnthropicCodec, choice)["tool_choice"] == anthropic
    assert body(OpenAIChatCodec, choice)["tool_choice"] == openai_chat
    assert body(OpenAIResponsesCodec, choice)["tool_choice"] == responses
    assert body(GeminiCodec, choice)["toolConfig"] == {"functionCallingConfig": gemini}


@pytest.mark.parametrize("codec", [AnthropicCodec, OpenAIChatCodec, OpenAIResponsesCodec])
def test_no_choice_or_no_tools_sends_none(codec: type[WireCodec]) -> None:
    assert "tool_choice" not in body(codec, None)
    assert "tool_choice" not in body(codec, AUTO, tools=())


def test_gemini_sends_no_tool_config_without_a_choice_or_tools() -> None:
    assert "toolConfig" not in body(GeminiCodec, None)
    assert "toolConfig" not in body(GeminiCodec, AUTO, tools=())


@pytest.mark.parametrize("choice", [ANY, NAMED])
def test_manual_thinking_turns_a_forced_choice_into_auto(choice: ToolChoice) -> None:
    sent = body(AnthropicCodec, choice, MANUAL)
    assert sent["tool_choice"] == {"type": "auto"}
    assert sent["thinking"]["type"] == "enabled"  # the loop's thinking is kept (rule 12)


def test_without_the_guard_the_forced_choice_goes_out_with_thinking() -> None:
    off = frozenset({"forced-tool-choice-auto-with-thinking"})
    assert body(AnthropicCodec, ANY, MANUAL, off)["tool_choice"] == {"type": "any"}


def test_adaptive_thinking_keeps_a_forced_choice() -> None:
    """Adaptive thinking accepts forced tool use (thinking is skipped), rule 11."""
    sent = body(AnthropicCodec, ANY, ThinkingConfig(mode="adaptive"))
    assert sent["tool_choice"] == {"type": "any"}
