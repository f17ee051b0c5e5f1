"""Responses server-side state (rules 60-62): a ``previous_response_id`` chain, a
``conversation`` object, and what either already holds sent again.  Each rule has the
accepted shape beside the refused one: a correct chained client (the delta only), a
stateless one (everything, no state) and the broken mixes in between."""

from __future__ import annotations

from typing import Any

from conformance._provider.scripted import ScriptedProvider
from conformance.vocabulary import ScriptedResponse
from conformance.wires._openai_responses import (
    DUPLICATE_ITEM,
    PREVIOUS_RESPONSE_NOT_FOUND,
    PREVIOUS_WITH_CONVERSATION,
    WIRE,
    ResponsesRequestView,
)
from tests.wires.test_openai_responses import (
    ENC,
    FINAL,
    STATELESS,
    TOOL_TURN,
    after_tool_turn,
    body,
    case,
    output,
    provider,
    rejected,
    request,
    served_output,
    user,
)


def duplicate(item_id: str) -> str:
    return DUPLICATE_ITEM.error.format(id=item_id)


# ---------------------------------------------------------------- rule 60: the chain


def test_a_store_false_response_cannot_be_chained_on_and_the_answer_is_openais() -> None:
    scripted_provider, _, response_id = after_tool_turn(**STATELESS)
    found = rejected(
        scripted_provider, body(output("call_a"), previous_response_id=response_id, **STATELESS)
    )
    # The answer is the first violation; the output then also answers no call it sees.
    assert found[0].rule is PREVIOUS_RESPONSE_NOT_FOUND
    answer = WIRE.render_error(found[0])
    assert answer.status == 400
    assert answer.json()["error"] == {
        "message": f"Previous response with id '{response_id}' not found.",
        "type": "invalid_request_error",
        "param": "previous_response_id",
        "code": "previous_response_not_found",
    }


def test_a_store_false_client_resending_the_whole_input_is_served() -> None:
    scripted_provider, items, _ = after_tool_turn(**STATELESS)
    whole = body(user("go"), *items, output("call_a"), **STATELESS)
    assert rejected(scripted_provider, whole) == []


def test_a_chained_delta_is_judged_as_the_whole_conversation() -> None:
    scripted_provider, items, response_id = after_tool_turn(include=[ENC])
    delta = body(output("call_a"), previous_response_id=response_id)
    assert rejected(scripted_provider, delta) == []
    view = scripted_provider.exchanges[-1].view
    assert isinstance(view, ResponsesRequestView)
    assert WIRE.history_items(view) == [user("go"), *items, output("call_a")]


# ---------------------------------------------------------------- rule 61: duplicates


def test_stored_items_sent_again_with_previous_response_id_are_duplicates() -> None:
    scripted_provider, items, response_id = after_tool_turn(include=[ENC])
    resent = body(*items, output("call_a"), previous_response_id=response_id)
    found = rejected(scripted_provider, resent)
    assert [(v.rule, v.message, v.at) for v in found] == [
        (DUPLICATE_ITEM, duplicate(items[0]["id"]), "input[0]"),
        (DUPLICATE_ITEM, duplicate(items[1]["id"]), "input[1]"),
    ]
    answer = WIRE.render_error(found[0])
    assert answer.status == 400
    assert answer.json()["error"] == {
        "message": duplicate(items[0]["id"]),
        "type": "invalid_request_error",
        "param": "input",
        "code": None,
    }


def test_a_reference_to_a_chained_item_is_a_duplicate() -> None:
    scripted_provider, items, response_id = after_tool_turn()
    reference = {"type": "item_reference", "id": items[0]["id"]}
    found = rejected(
        scripted_provider, body(reference, output("call_a"), previous_response_id=response_id)
    )
    assert [v.message for v in found if v.rule is DUPLICATE_ITEM] == [duplicate(items[0]["id"])]


def test_items_without_ids_are_never_duplicates() -> None:
    """A user message or a function_call_output has no id: sent again with the chain it
    is the client's own business (no report shows it refused), so it is served."""
    scripted_provider, _, response_id = after_tool_turn(include=[ENC])
    again = body(user("go"), output("call_a"), previous_response_id=response_id)
    assert [v for v in rejected(scripted_provider, again) if v.rule is DUPLICATE_ITEM] == []


def test_one_input_holding_an_id_twice_is_a_duplicate() -> None:
    scripted_provider, items, _ = after_tool_turn(**STATELESS)
    twice = body(user("go"), *items, output("call_a"), items[0], **STATELESS)
    assert duplicate(items[0]["id"]) in [v.message for v in rejected(scripted_provider, twice)]


# ---------------------------------------------------------------- rule 62: conversations


def conversation_turn() -> tuple[ScriptedProvider, list[dict[str, Any]], str]:
    """A provider that answered a first request in conversation ``conv_1``: its output
    items and its response id."""
    scripted_provider = provider()
    first = served_output(scripted_provider, body(user("go"), conversation="conv_1", include=[ENC]))
    return scripted_provider, first["output"], first["id"]


def test_a_conversation_continued_with_the_delta_holds_every_item() -> None:
    scripted_provider, items, _ = conversation_turn()
    delta = body(output("call_a"), conversation={"id": "conv_1"})
    assert rejected(scripted_provider, delta) == []
    view = scripted_provider.exchanges[-1].view
    assert isinstance(view, ResponsesRequestView)
    assert view.conversation == "conv_1"
    assert WIRE.history_items(view) == [user("go"), *items, output("call_a")]


def test_a_conversation_with_its_items_sent_again_is_refused() -> None:
    scripted_provider, items, _ = conversation_turn()
    resent = body(user("go"), *items, output("call_a"), conversation="conv_1")
    found = rejected(scripted_provider, resent)
    assert [v.message for v in found if v.rule is DUPLICATE_ITEM] == [
        duplicate(items[0]["id"]),
        duplicate(items[1]["id"]),
    ]


def test_a_conversation_and_a_previous_response_id_are_exclusive() -> None:
    scripted_provider, _, response_id = conversation_turn()
    both = body(output("call_a"), conversation="conv_1", previous_response_id=response_id)
    found = rejected(scripted_provider, both)
    assert [(v.rule, v.message) for v in found] == [
        (
            PREVIOUS_WITH_CONVERSATION,
            "'previous_response_id' cannot be used together with 'conversation'.",
        )
    ]
    assert WIRE.render_error(found[0]).json()["error"]["param"] is None
    # Either one alone continues the same conversation.
    other, _, response_id = conversation_turn()
    assert rejected(other, body(output("call_a"), previous_response_id=response_id)) == []


def test_a_request_with_neither_is_unaffected() -> None:
    scripted_provider, items, _ = after_tool_turn()
    assert rejected(scripted_provider, body(user("go"), *items, output("call_a"))) == []


def test_a_fault_adds_nothing_to_the_conversation() -> None:
    """A request answered with an HTTP error stores nothing: its retry, with the same
    delta, reaches the conversation once, and so does the next turn."""
    fault = ScriptedResponse.model_validate(
        {"stop": "no_finish", "fault": {"kind": "server-error"}}
    )
    scripted_provider = ScriptedProvider(case(TOOL_TURN, fault, FINAL, FINAL), WIRE)
    first = served_output(scripted_provider, body(user("go"), conversation="conv_1"))
    delta = body(output("call_a"), conversation="conv_1")
    assert scripted_provider.handle(request(delta)).status == 500
    assert rejected(scripted_provider, delta) == []
    view = scripted_provider.exchanges[-1].view
    assert isinstance(view, ResponsesRequestView)
    assert WIRE.history_items(view) == [user("go"), *first["output"], output("call_a")]
    served_output(scripted_provider, body(user("more"), conversation="conv_1"))
    again = scripted_provider.exchanges[-1].view
    assert isinstance(again, ResponsesRequestView)
    held = WIRE.history_items(again)
    assert held.count(output("call_a")) == 1
    assert held[-1] == user("more")
