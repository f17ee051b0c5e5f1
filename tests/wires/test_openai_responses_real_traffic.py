"""The Responses wire's provider model held to real traffic: requests OpenAI answered 200
are accepted, and each rule still refuses the wrong input next to them.

The JSON is real, from pydantic/pydantic-ai tests/models/cassettes/test_openai_responses/
(commit 4fda38988f2939fa6ea9cdefcf120693e10ef491, MIT), cut to the fields the rules read:
every id is as recorded; each ``encrypted_content`` is shortened to its first characters,
the same way on both sides, and message texts are cut.
"""

from __future__ import annotations

import json
from typing import Any

from conformance.http import HttpRequest
from conformance.model import Options
from conformance.wires.base import RequestView, RuleViolation, ValidationContext
from conformance.wires.openai_responses import WIRE

ENC = "reasoning.encrypted_content"


def request(body: dict[str, Any]) -> HttpRequest:
    return HttpRequest("POST", "/v1/responses", json.dumps(body).encode())


def answer(body: dict[str, Any]) -> bytes:
    return json.dumps(body).encode()


def context(number: int, *exchanges: tuple[RequestView, bytes]) -> ValidationContext:
    """What the provider knows after serving ``exchanges`` (each a request's view and the
    JSON answer it got), as the scripted provider and the recording audit build it: the
    answers read back by the wire's reader."""
    served = tuple(WIRE.read(body, False) for _, body in exchanges)
    return ValidationContext(
        number=number,
        options=Options(),
        served=served,
        answered=tuple((view, k) for k, (view, _) in enumerate(exchanges)),
    )


def judged(body: dict[str, Any], known: ValidationContext) -> list[RuleViolation]:
    view = WIRE.parse(request(body), known)
    return [v for v in WIRE.validate(view, known) if v.rejects]


# ------------------------------------------------ reasoning followed by a hosted tool's call

# test_openai_responses_model_web_search_tool.yaml, exchange 0: gpt-5 searched the web
# between two reasoning items.
WEB_SEARCH_ASKED = {
    "include": [ENC],
    "input": [{"content": "What is the weather in San Francisco today?", "role": "user"}],
    "instructions": "You are a helpful assistant.",
    "model": "gpt-5",
    "stream": False,
    "tools": [{"search_context_size": "medium", "type": "web_search"}],
}
WEB_SEARCH_OUTPUT = [
    {
        "encrypted_content": "gAAAAABoycg20IcGnesr",
        "id": "rs_028829e50fbcad090068c9c82f1b148195863375312bf5dc00",
        "summary": [],
        "type": "reasoning",
    },
    {
        "action": {"query": "weather: San Francisco, CA", "type": "search"},
        "id": "ws_028829e50fbcad090068c9c8306aec8195ae9451d32175ed69",
        "status": "completed",
        "type": "web_search_call",
    },
    {
        "encrypted_content": "gAAAAABoycg2MBei1jlO",
        "id": "rs_028829e50fbcad090068c9c83115608195bd323499ece67477",
        "summary": [],
        "type": "reasoning",
    },
    {
        "content": [
            {
                "annotations": [],
                "text": "Today (Tuesday, September 16, 2025)",
                "type": "output_text",
            }
        ],
        "id": "msg_028829e50fbcad090068c9c8362ef08195a8a69090feef1ac8",
        "role": "assistant",
        "status": "completed",
        "type": "message",
    },
]
WEB_SEARCH_ANSWER = {
    "id": "resp_028829e50fbcad090068c9c82e1e0081958ddc581008b39428",
    "object": "response",
    "status": "completed",
    "output": WEB_SEARCH_OUTPUT,
}
# Exchange 1, answered 200: the whole output replayed, then the next prompt.
WEB_SEARCH_REPLAYED = {
    **WEB_SEARCH_ASKED,
    "input": [
        *WEB_SEARCH_ASKED["input"],
        *WEB_SEARCH_OUTPUT,
        {"content": "how about Mexico City?", "role": "user"},
    ],
}


def web_search_known() -> ValidationContext:
    asked = WIRE.parse(request(WEB_SEARCH_ASKED))
    return context(2, (asked, answer(WEB_SEARCH_ANSWER)))


def test_reasoning_followed_by_a_hosted_tools_call_is_accepted() -> None:
    assert judged(WEB_SEARCH_REPLAYED, web_search_known()) == []


def test_reasoning_followed_by_nothing_is_still_refused() -> None:
    """The rule's true positive beside it: the same reasoning item with nothing after it."""
    lone = {**WEB_SEARCH_ASKED, "input": [*WEB_SEARCH_ASKED["input"], WEB_SEARCH_OUTPUT[0]]}
    found = judged(lone, web_search_known())
    assert [(v.rule.id, v.message) for v in found] == [
        (
            "openai-responses/reasoning-followed",
            "Item 'rs_028829e50fbcad090068c9c82f1b148195863375312bf5dc00' of type 'reasoning' "
            "was provided without its required following item.",
        )
    ]


def test_reasoning_followed_by_a_call_output_is_still_refused() -> None:
    """An output answers a call; it is never what reasoning produced."""
    answered = {"type": "function_call_output", "call_id": "call_x", "output": "ok"}
    body = {
        **WEB_SEARCH_ASKED,
        "input": [*WEB_SEARCH_ASKED["input"], WEB_SEARCH_OUTPUT[0], answered],
    }
    rules = [v.rule.id for v in judged(body, web_search_known())]
    assert "openai-responses/reasoning-followed" in rules


def test_a_hosted_tools_items_make_no_neutral_message() -> None:
    """The web search call joins no message of its own: the replayed output is one
    assistant message (reasoning, reasoning, text), nothing empty beside it."""
    view = WIRE.parse(request(WEB_SEARCH_REPLAYED), web_search_known())
    assert [m.role for m in view.messages] == ["user", "assistant", "user"]
    assert [b.kind for b in view.messages[1].blocks] == ["reasoning", "reasoning", "text"]


def test_mcp_items_around_reasoning_are_accepted() -> None:
    """test_openai_responses_model_mcp_server_tool.yaml: o4-mini listed an MCP server's
    tools before reasoning and called one after it; the replay was answered 200."""
    asked = {
        "include": [ENC],
        "input": [
            {"content": "Can you tell me more about the pydantic/pydantic-ai repo?", "role": "user"}
        ],
        "model": "o4-mini",
        "stream": False,
    }
    output = [
        {
            "id": "mcpl_0083938b3a28070e0068fabd81d51081a09d4b183ced693273",
            "server_label": "deepwiki",
            "tools": [],
            "type": "mcp_list_tools",
        },
        {
            "encrypted_content": "gAAAAABo-r2bs6ChS2Nt",
            "id": "rs_0083938b3a28070e0068fabd84727c81a0a52c171d2568a947",
            "summary": [],
            "type": "reasoning",
        },
        {
            "arguments": '{"repoName":"pydantic/pydantic-ai","question":"Provide a summary"}',
            "error": None,
            "id": "mcp_0083938b3a28070e0068fabd88db5c81a08e56f163bbc6088b",
            "name": "ask_question",
            "output": None,
            "server_label": "deepwiki",
            "type": "mcp_call",
        },
        {
            "encrypted_content": "gAAAAABo-r2izZacxe_j",
            "id": "rs_0083938b3a28070e0068fabd97008081a0ad1b2362bcb153c9",
            "summary": [],
            "type": "reasoning",
        },
        {
            "content": [{"annotations": [], "text": "Pydantic AI is", "type": "output_text"}],
            "id": "msg_0083938b3a28070e0068fabd989bb481a08c61416ab343ef49",
            "role": "assistant",
            "status": "completed",
            "type": "message",
        },
    ]
    served = {
        "id": "resp_0083938b3a28070e0068fabd81970881a0a1195f2cab45bd04",
        "object": "response",
        "status": "completed",
        "output": output,
    }
    known = context(2, (WIRE.parse(request(asked)), answer(served)))
    replayed = {**asked, "input": [*asked["input"], *output, {"content": "more", "role": "user"}]}
    assert judged(replayed, known) == []
