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

import pytest
from pydantic import ValidationError

from conformance.http import HttpRequest
from conformance.verdict import Violation
from conformance.vocabulary import Options, ScriptedResponse, ServedIds, ServedItem, Text
from conformance.wires._openai_responses import WIRE
from conformance.wires._sse import format_event
from conformance.wires.context import RenderContext, RequestView, ValidationContext
from tests.wires.real_responses import CHAIN, CHAIN_RESPONSE_IDS, SECOND_CALL

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


def judged(body: dict[str, Any], known: ValidationContext) -> list[Violation]:
    view = WIRE.parse(request(body), known)
    return [v for v in WIRE.validate(view, known) if v.rejects]


# ------------------------------------------------ reasoning followed by a hosted tool's call

# test_openai_responses_model_web_search_tool.yaml, exchange 0: gpt-5 searched the web
# between two reasoning items.
WEB_SEARCH_ASKED: dict[str, Any] = {
    "include": [ENC],
    "input": [{"content": "What is the weather in San Francisco today?", "role": "user"}],
    "instructions": "You are a helpful assistant.",
    "model": "gpt-5",
    "stream": False,
    "tools": [{"search_context_size": "medium", "type": "web_search"}],
}
WEB_SEARCH_OUTPUT: list[dict[str, Any]] = [
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
WEB_SEARCH_ANSWER: dict[str, Any] = {
    "id": "resp_028829e50fbcad090068c9c82e1e0081958ddc581008b39428",
    "object": "response",
    "status": "completed",
    "output": WEB_SEARCH_OUTPUT,
}
# Exchange 1, answered 200: the whole output replayed, then the next prompt.
WEB_SEARCH_REPLAYED: dict[str, Any] = {
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
    assert [(v.check, v.message) for v in found] == [
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
    rules = [v.check for v in judged(body, web_search_known())]
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
    asked: dict[str, Any] = {
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


# ------------------------------------------------ the ids a response was served under


def test_a_json_answer_reads_back_with_the_ids_it_was_served_under() -> None:
    ids = WIRE.read(answer(WEB_SEARCH_ANSWER), False).ids
    assert ids == ServedIds(
        response="resp_028829e50fbcad090068c9c82e1e0081958ddc581008b39428",
        items=(
            ServedItem(type="reasoning", id=WEB_SEARCH_OUTPUT[0]["id"], blocks=1),
            ServedItem(type="web_search_call", id=WEB_SEARCH_OUTPUT[1]["id"], blocks=0),
            ServedItem(type="reasoning", id=WEB_SEARCH_OUTPUT[2]["id"], blocks=1),
            ServedItem(type="message", id=WEB_SEARCH_OUTPUT[3]["id"], blocks=1),
        ),
    )


def test_a_stream_reads_back_with_the_ids_it_was_served_under() -> None:
    """test_openai_responses_model_web_search_tool_stream.yaml: the id comes first in
    ``response.created``, each item's in its ``output_item`` events."""
    response_id = "resp_00a60507bf41223d0068c9d2fbf93481a0ba2a7796ae2cab4c"
    search = {
        "id": "ws_00a60507bf41223d0068c9d30021d081a0962d80d50c12e317",
        "status": "completed",
        "type": "web_search_call",
        "action": {"query": "weather: San Francisco, CA", "type": "search"},
    }
    said = {
        "id": "msg_00a60507bf41223d0068c9d30b055481a0b0ee28a021919c94",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Sunny", "annotations": []}],
    }
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": response_id, "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": search},
        {"type": "response.output_item.done", "output_index": 0, "item": search},
        {"type": "response.output_item.added", "output_index": 1, "item": said},
        {"type": "response.output_item.done", "output_index": 1, "item": said},
        {
            "type": "response.completed",
            "response": {"id": response_id, "status": "completed", "output": [search, said]},
        },
    ]
    body = b"".join(format_event(e["type"], e) for e in events)
    assert WIRE.read(body, True).ids == ServedIds(
        response=response_id,
        items=(
            ServedItem(type="web_search_call", id=search["id"], blocks=0),
            ServedItem(type="message", id=said["id"], blocks=1),
        ),
    )


def test_a_read_answer_renders_again_under_its_own_ids() -> None:
    """A case made from a recording serves the ids the recording's requests name."""
    served = WIRE.read(answer(CHAIN[1][1]), False)
    view = WIRE.parse(request(CHAIN[1][0]))
    rendered = WIRE.render(
        served, RenderContext(index=0, case_id="c", model="gpt-4.1", stream=False, request=view)
    ).json()
    assert rendered["id"] == CHAIN_RESPONSE_IDS[1]
    assert [i["id"] for i in rendered["output"]] == [CHAIN[1][1]["output"][0]["id"]]


def test_served_ids_must_hold_every_block() -> None:
    with pytest.raises(ValidationError, match="hold every block"):
        ScriptedResponse(
            stop="end",
            blocks=(Text(text="hi"),),
            ids=ServedIds(response="resp_1", items=(ServedItem(type="web_search_call"),)),
        )


def test_reasoning_may_skip_a_hosted_call_but_not_jump_to_another_item() -> None:
    """A client that drops the web search call (it has no neutral form) keeps the order
    of what it replays (the reference adapter does; no report shows the provider refusing
    it); one that drops a reasoning item, or puts reasoning before another response's
    item, does not."""
    known = web_search_known()
    dropped = [WEB_SEARCH_OUTPUT[0], WEB_SEARCH_OUTPUT[2], WEB_SEARCH_OUTPUT[3]]
    body = {**WEB_SEARCH_ASKED, "input": [*WEB_SEARCH_ASKED["input"], *dropped]}
    assert judged(body, known) == []
    jumped = [WEB_SEARCH_OUTPUT[0], WEB_SEARCH_OUTPUT[3]]
    body = {**WEB_SEARCH_ASKED, "input": [*WEB_SEARCH_ASKED["input"], *jumped]}
    # Dropping the second reasoning item is no hosted call skipped: the message was
    # produced by that item, not by the first (the scripted rule as before).
    assert "openai-responses/reasoning-followed" in [v.check for v in judged(body, known)]
    wrong = {**WEB_SEARCH_OUTPUT[3], "id": "msg_0435eb6c2aa8e9eb0069e15ffe56b4819587eaac6a6c786706"}
    chained = context(
        3,
        (WIRE.parse(request(CHAIN[0][0])), answer(CHAIN[0][1])),
        (WIRE.parse(request(WEB_SEARCH_ASKED)), answer(WEB_SEARCH_ANSWER)),
    )
    body = {**WEB_SEARCH_ASKED, "input": [*WEB_SEARCH_ASKED["input"], WEB_SEARCH_OUTPUT[0], wrong]}
    rules = [v.check for v in judged(body, chained)]
    assert "openai-responses/reasoning-followed" in rules


# ------------------------------------------------ a recording's own chain resolves


def chain_known(upto: int) -> ValidationContext:
    """The provider after answering the chain's first ``upto`` requests as recorded."""
    exchanges: list[tuple[RequestView, bytes]] = []
    for asked, answered in CHAIN[:upto]:
        view = WIRE.parse(request(asked), context(len(exchanges) + 1, *exchanges))
        exchanges.append((view, answer(answered)))
    return context(upto + 1, *exchanges)


def test_a_recorded_previous_response_id_chain_resolves() -> None:
    """Each request names the real id of the response before it, and answers calls that
    only the stored response holds: all of them were answered 200."""
    for k in range(1, len(CHAIN)):
        assert judged(CHAIN[k][0], chain_known(k)) == [], k


def test_the_chain_expands_into_the_whole_conversation() -> None:
    view = WIRE.parse(request(CHAIN[3][0]), chain_known(3))
    assert [m.role for m in view.messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]


def test_a_previous_response_id_not_served_is_still_refused() -> None:
    """A real-looking id the provider never served here, and the suite's own minted id
    for a response whose real id differs, are both unknown."""
    known = chain_known(1)
    unknown = {
        **CHAIN[1][0],
        "previous_response_id": "resp_68b9bda81f5c8197a5a51a20a9f4150a000497db2a4c777b",
    }
    found = judged(unknown, known)
    assert [(v.check, v.message) for v in found] == [
        (
            "openai-responses/previous-response-not-found",
            "Previous response with id 'resp_68b9bda81f5c8197a5a51a20a9f4150a000497db2a4c777b' "
            "not found.",
        )
    ]
    assert WIRE.render_error(found[0]).status == 400  # rule 60: codex-lb#853, Bamboo-agent#513


def test_an_output_whose_call_is_in_no_stored_response_is_still_refused() -> None:
    known = chain_known(3)
    stray = {**CHAIN[3][0], "previous_response_id": CHAIN_RESPONSE_IDS[0]}
    found = judged(stray, known)
    assert [(v.check, v.message) for v in found] == [
        (
            "openai-responses/call-for-output",
            f"No tool call found for function call output with call_id {SECOND_CALL}.",
        )
    ]


# ------------------------------------------------ a conversation object holds its items

# test_openai_conversation_id_tool_call_continuation.yaml (its ids as the cassette has
# them): the conversation was made with POST /v1/conversations, then each request named it
# and sent only what was new.
CONVERSATION = "conv_010000000000000000000000000000000000000000000000"
CONVERSATION_CALL: dict[str, Any] = {
    "arguments": "{}",
    "call_id": "call_010000000000000000000000",
    "id": "fc_01000000000000000000000000000000000000000000000000",
    "name": "get_conversation_code",
    "status": "completed",
    "type": "function_call",
}
CONVERSATION_ASKED: dict[str, Any] = {
    "conversation": CONVERSATION,
    "input": [
        {
            "content": "Call get_conversation_code and reply with only the returned code.",
            "role": "user",
        }
    ],
    "model": "gpt-4.1",
    "stream": False,
}
CONVERSATION_ANSWERED: dict[str, Any] = {
    "conversation": {"id": CONVERSATION},
    "id": "resp_01000000000000000000000000000000000000000000000000",
    "object": "response",
    "output": [CONVERSATION_CALL],
    "status": "completed",
}
CONVERSATION_CONTINUED: dict[str, Any] = {
    **CONVERSATION_ASKED,
    "input": [
        {
            "call_id": "call_010000000000000000000000",
            "output": "TOOL-PAI-5222",
            "type": "function_call_output",
        }
    ],
}


def test_a_conversation_objects_items_answer_its_next_request() -> None:
    known = context(2, (WIRE.parse(request(CONVERSATION_ASKED)), answer(CONVERSATION_ANSWERED)))
    assert judged(CONVERSATION_CONTINUED, known) == []
    other = {**CONVERSATION_CONTINUED, "conversation": "conv_02"}
    assert [v.check for v in judged(other, known)] == ["openai-responses/call-for-output"]
