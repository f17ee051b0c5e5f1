"""Anthropic server-tool blocks (rule 14): rendered as the provider streams them, parsed
and read back into the neutral ``ServerToolUse`` / ``ServerToolResult``, a result whose
use is missing rejected with Anthropic's text, and refused by every other wire's lint."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.http import HttpRequest, HttpResponse
from conformance.vocabulary import (
    Options,
    ScriptedResponse,
    ServerToolResult,
    ServerToolUse,
    opaque_fields,
)
from conformance.wires._anthropic_messages import WIRE
from conformance.wires._anthropic_messages.rules import SERVER_RESULT_PAIRED
from conformance.wires._registry import get_wire
from conformance.wires.context import RenderContext, RequestView, ValidationContext
from tests.wires.kit import realism_case, unrealistic

ID, QUERY = "srvtoolu_01", {"query": "q"}
USE = {"kind": "server_tool_use", "id": ID, "name": "web_search", "arguments": QUERY}
RESULTS = [{"type": "web_search_result", "url": "https://x.test/", "encrypted_content": "EqAB"}]
RESULT = {"kind": "server_tool_result", "call_id": ID, "content": RESULTS}
RAW_USE = {"type": "server_tool_use", "id": ID, "name": "web_search", "input": QUERY}
RAW_RESULT = {"type": "web_search_tool_result", "tool_use_id": ID, "content": RESULTS}
SAY = {"kind": "text", "text": "Found it."}
TURN = ScriptedResponse.model_validate({"stop": "end", "blocks": [USE, RESULT, SAY]})


def render(stream: bool) -> HttpResponse:
    return WIRE.render(TURN, RenderContext(0, "c", "claude-sonnet-4-5", stream))


def test_streamed_as_blocks_the_use_with_input_json_the_result_whole() -> None:
    body = render(True).body.decode()
    starts = [
        json.loads(line[6:])["content_block"]
        for line in body.splitlines()
        if line.startswith("data: ") and '"content_block_start"' in line
    ]
    assert starts[:2] == [{**RAW_USE, "input": {}}, RAW_RESULT]
    assert '"partial_json":"{\\"query\\":\\"q\\"}"' in body


@pytest.mark.parametrize("stream", [True, False])
def test_read_back_as_the_scripted_blocks(stream: bool) -> None:
    assert WIRE.read(render(stream).body, stream).blocks == TURN.blocks


def view_of(*content: dict[str, Any]) -> RequestView:
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "content": list(content)}]
    body = {"model": "m", "max_tokens": 10, "messages": messages}
    return WIRE.parse(HttpRequest("POST", "/v1/messages", json.dumps(body).encode()))


def test_parsed_into_the_neutral_blocks_with_the_result_as_one_payload() -> None:
    use, result = view_of(RAW_USE, RAW_RESULT).messages[1].blocks
    assert use == ServerToolUse(id=ID, name="web_search", arguments=QUERY)
    assert result == ServerToolResult(call_id=ID, content=RESULTS)
    canonical = json.dumps(RESULTS, sort_keys=True, separators=(",", ":"))
    assert opaque_fields(result) == {"content": canonical}


def test_a_result_without_its_use_before_it_is_rejected() -> None:
    context = ValidationContext(number=2, options=Options(), served=(TURN,))
    found = WIRE.validate(view_of(RAW_RESULT, {"type": "text", "text": "x"}), context)
    assert [(v.rule, v.message) for v in found] == [
        (
            SERVER_RESULT_PAIRED,
            "messages.1.content.0: unexpected `tool_use_id` found in `web_search_tool_result` "
            "blocks: srvtoolu_01. Each `web_search_tool_result` block must have a "
            "corresponding `server_tool_use` block before it.",
        )
    ]
    assert WIRE.validate(view_of(RAW_USE, RAW_RESULT), context) == []


@pytest.mark.parametrize("column", ["gemini", "openai-chat", "openai-responses"])
def test_only_anthropic_has_server_tool_blocks(column: str) -> None:
    shape = {"stop": "end", "blocks": [USE, RESULT, SAY]}
    assert unrealistic(get_wire(column), realism_case(column, shape))
    assert unrealistic(WIRE, realism_case("anthropic-messages", shape)) == []
    orphan = {"stop": "end", "blocks": [RESULT, SAY]}
    assert unrealistic(WIRE, realism_case("anthropic-messages", orphan))
    client = [{**USE, "id": "toolu_01"}, {**RESULT, "call_id": "toolu_01"}]
    assert unrealistic(WIRE, realism_case("anthropic-messages", {"stop": "end", "blocks": client}))
