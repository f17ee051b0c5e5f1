"""Message threads on the Anthropic wire (rules 56-59): the provider keeps each thread,
rebuilds a ``continue``'s conversation before it judges it, and answers each thread
error with its documented status and ``error.details.error_code``."""

from __future__ import annotations

import json
from typing import Any

from conformance._checks.recorded import recorded_violations
from conformance._provider.scripted import ScriptedProvider
from conformance._transcript import Transcript
from conformance.http import HttpRequest, HttpResponse
from conformance.wires._anthropic_messages._thread_rules import (
    THREAD_ALREADY_CONTINUED,
    THREAD_BETA,
    THREAD_CALLS_UNANSWERED,
    THREAD_CREATE_ONLY,
    THREAD_DELTA_RESENT,
    THREAD_FINGERPRINT,
    THREAD_NOT_FOUND,
    THREAD_SHAPE,
    THREAD_UNSUPPORTED,
    THREADS_BETA,
    supports_threads,
)
from conformance.wires._anthropic_messages._view import AnthropicRequestView
from conformance.wires._anthropic_messages.rules import TOOL_USE_ANSWERED
from conformance.wires._registry import get_wire
from tests.targets.conversation import ALPHA, CASE

WIRE = get_wire("anthropic-messages")
SYSTEM = "You are terse."
TOOLS = [{"name": "read_file", "description": "Read a file", "input_schema": {"type": "object"}}]
PROMPT = {"role": "user", "content": "Read alpha.txt"}
RESULT = {
    "role": "user",
    "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": ALPHA}],
}
NEXT_PROMPT = {"role": "user", "content": "Now summarize"}


def post(
    provider: ScriptedProvider, body: dict[str, Any], beta: str | None = THREADS_BETA
) -> HttpResponse:
    headers = {"content-type": "application/json"}
    if beta is not None:
        headers["anthropic-beta"] = beta
    return provider.handle(
        HttpRequest("POST", "/v1/messages", json.dumps(body).encode(), "", headers)
    )


def base(**fields: Any) -> dict[str, Any]:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
    }
    return {**body, **fields}


def create(**fields: Any) -> dict[str, Any]:
    return base(system=SYSTEM, tools=TOOLS, messages=[PROMPT], thread={"type": "create"}, **fields)


def cont(previous: str, messages: list[Any], **fields: Any) -> dict[str, Any]:
    thread = {"type": "continue", "previous_message_id": previous}
    return base(messages=messages, thread=thread, **fields)


def reply(response: HttpResponse) -> dict[str, Any]:
    message = json.loads(response.body)
    assert isinstance(message, dict)
    return message


def error(response: HttpResponse) -> dict[str, Any]:
    found = json.loads(response.body)["error"]
    assert isinstance(found, dict)
    return found


def rules_of(provider: ScriptedProvider, number: int) -> list[str]:
    return [v.check for v in provider.exchanges[number - 1].violations]


def opened() -> tuple[ScriptedProvider, dict[str, Any]]:
    """A provider whose first request opened a thread, and the reply to it."""
    provider = ScriptedProvider(CASE, WIRE)
    first = post(provider, create())
    assert first.status == 200
    return provider, reply(first)


def test_a_continue_is_judged_as_the_whole_conversation_a_stateless_client_sends() -> None:
    provider, first = opened()
    answer = post(provider, cont(first["id"], [RESULT]))
    assert answer.status == 200, answer.body
    stateless = ScriptedProvider(CASE, WIRE)
    post(stateless, base(system=SYSTEM, tools=TOOLS, messages=[PROMPT]), beta=None)
    whole = [PROMPT, {"role": "assistant", "content": first["content"]}, RESULT]
    post(stateless, base(system=SYSTEM, tools=TOOLS, messages=whole), beta=None)
    threaded, plain = provider.exchanges[1].view, stateless.exchanges[1].view
    assert isinstance(threaded, AnthropicRequestView)
    assert plain is not None
    assert threaded.messages == plain.messages
    assert (threaded.system, threaded.tools) == (plain.system, plain.tools)
    assert threaded.raw["messages"] == plain.raw["messages"]
    assert threaded.thread is not None
    assert threaded.thread.start == 2
    # The recorded request is the delta, byte for byte.
    assert json.loads(provider.exchanges[1].request.body)["messages"] == [RESULT]
    assert provider.exchanges[1].violations == ()


def test_each_reply_extends_the_thread_under_its_own_id() -> None:
    provider, first = opened()
    second = reply(post(provider, cont(first["id"], [RESULT])))
    third = post(provider, cont(second["id"], [NEXT_PROMPT]))
    assert third.status == 200, third.body
    view = provider.exchanges[2].view
    assert view is not None
    assert [m["role"] for m in view.raw["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert view.raw["messages"][3]["content"] == second["content"]


def test_an_unknown_previous_message_id_is_thread_not_found() -> None:
    provider, _ = opened()
    answer = post(provider, cont("msg_01NoSuchResponse", [RESULT]))
    assert answer.status == 404
    assert error(answer)["type"] == "not_found_error"
    assert error(answer)["details"] == {"error_code": "thread_not_found"}
    assert "msg_01NoSuchResponse" in error(answer)["message"]
    assert rules_of(provider, 2)[0] == THREAD_NOT_FOUND.id
    assert provider.exchanges[1].served is None  # no scripted response consumed


def test_a_stale_previous_message_id_is_thread_already_continued() -> None:
    provider, first = opened()
    assert post(provider, cont(first["id"], [RESULT])).status == 200
    answer = post(provider, cont(first["id"], [RESULT]))
    assert answer.status == 400
    assert error(answer)["type"] == "invalid_request_error"
    assert error(answer)["details"] == {"error_code": "thread_already_continued"}
    assert rules_of(provider, 3)[0] == THREAD_ALREADY_CONTINUED.id


def test_a_continue_answered_with_an_error_leaves_the_thread_where_it_was() -> None:
    provider, first = opened()
    refused = post(provider, cont(first["id"], [RESULT, RESULT]))  # the result twice
    assert refused.status == 400
    answer = post(provider, cont(first["id"], [RESULT]))  # the retry names the same id
    assert answer.status == 200, answer.body


def test_an_unsupported_model_is_a_fallback_not_a_verdict() -> None:
    assert not supports_threads("claude-3-7-sonnet-20250219")
    provider = ScriptedProvider(CASE, WIRE)
    answer = post(provider, create(model="claude-3-7-sonnet-20250219"))
    assert answer.status == 400
    assert error(answer)["details"] == {"error_code": "thread_unsupported_request"}
    assert rules_of(provider, 1) == [THREAD_UNSUPPORTED.id]
    # The SDKs fall back to the whole conversation without `thread`: served.
    stateless = base(model="claude-3-7-sonnet-20250219", system=SYSTEM, tools=TOOLS)
    assert post(provider, {**stateless, "messages": [PROMPT]}, beta=None).status == 200
    transcript = Transcript(CASE, WIRE.name, None, exchanges=list(provider.exchanges))
    assert recorded_violations(transcript, WIRE) == []


def test_models_the_page_lists_take_threads_aliases_included() -> None:
    assert supports_threads("claude-sonnet-4-5")  # claude-sonnet-4-5-20250929
    assert supports_threads("claude-opus-4-7")
    assert supports_threads("claude-fable-5-1")
    assert not supports_threads("claude-opus-4-1")
    assert not supports_threads(None)


def test_a_thread_without_the_beta_header_is_recorded_and_served() -> None:
    provider = ScriptedProvider(CASE, WIRE)
    answer = post(provider, create(), beta=None)
    assert answer.status == 200
    (violation,) = provider.exchanges[0].violations
    assert violation.check == THREAD_BETA.id
    assert violation.message == "thread: Extra inputs are not permitted"
    assert violation.evidence == "inferred"
    assert not violation.rejects


def test_a_malformed_thread_is_recorded() -> None:
    provider = ScriptedProvider(CASE, WIRE)
    post(provider, base(messages=[PROMPT], thread={"type": "resume"}))
    assert rules_of(provider, 1) == [THREAD_SHAPE.id]
    provider = ScriptedProvider(CASE, WIRE)
    post(provider, base(messages=[PROMPT], thread={"type": "continue"}))
    (violation,) = provider.exchanges[0].violations
    assert violation.message == "thread.continue.previous_message_id: Field required"


def test_create_only_fields_and_a_changed_model_on_a_continue_are_inferred() -> None:
    provider, first = opened()
    answer = post(provider, cont(first["id"], [RESULT], system=SYSTEM, model="claude-sonnet-4-6"))
    assert answer.status == 200
    violations = provider.exchanges[1].violations
    assert [v.check for v in violations] == [
        THREAD_CREATE_ONLY.id,
        THREAD_FINGERPRINT.id,
    ]
    assert all(v.evidence == "inferred" for v in violations)
    # The thread's own system prompt is what the provider judges.
    view = provider.exchanges[1].view
    assert view is not None
    assert view.system == SYSTEM


def test_a_resent_history_rebuilds_a_conversation_the_provider_refuses() -> None:
    provider, first = opened()
    whole = [PROMPT, {"role": "assistant", "content": first["content"]}, RESULT]
    answer = post(provider, cont(first["id"], whole))
    assert answer.status == 400
    assert rules_of(provider, 2)[:2] == [THREAD_DELTA_RESENT.id, TOOL_USE_ANSWERED.id]
    assert "tool_use` ids were found without `tool_result`" in error(answer)["message"]


def test_a_delta_without_the_tool_results_is_recorded() -> None:
    provider, first = opened()
    post(provider, cont(first["id"], []))
    assert rules_of(provider, 2)[0] == THREAD_CALLS_UNANSWERED.id


def test_a_paused_turn_resumes_with_no_new_message() -> None:
    provider = ScriptedProvider(PAUSED, WIRE)
    first = reply(post(provider, base(messages=[PROMPT], thread={"type": "create"}, thinking=None)))
    answer = post(provider, cont(first["id"], [], thinking=None))
    assert answer.status == 200, answer.body
    view = provider.exchanges[1].view
    assert view is not None
    assert view.raw["messages"] == [PROMPT, {"role": "assistant", "content": first["content"]}]
    assert provider.exchanges[1].violations == ()


PAUSED = CASE.model_validate(
    {
        "id": "paused",
        "title": "A paused turn",
        "provenance": [{"rule": 14}],
        "features": ["pause-turn"],
        "wires": {"anthropic-messages": "pause_turn"},
        "given": {
            "turns": [
                {
                    "user": "Read alpha.txt",
                    "responses": [
                        {"stop": "pause", "blocks": [{"kind": "text", "text": "Searching."}]},
                        {"stop": "end", "blocks": [{"kind": "text", "text": "Found it."}]},
                    ],
                }
            ]
        },
        "expect": [{"requests": 2}],
    }
)


def test_every_thread_rule_is_in_the_wire_s_book_ahead_of_the_conversation_rules() -> None:
    ids = [rule.id for rule in WIRE.rules]
    assert ids.index(THREAD_NOT_FOUND.id) < ids.index(TOOL_USE_ANSWERED.id)


def test_a_continue_of_a_response_before_the_recording_is_unseen_state() -> None:
    provider, first = opened()
    post(provider, cont("msg_01AnsweredBeforeTheRecording", [RESULT]))
    view = provider.exchanges[1].view
    assert view is not None
    reason = WIRE.unseen_state(view, [provider.exchanges[0].response.body])
    assert reason is not None
    assert "msg_01AnsweredBeforeTheRecording" in reason
    post(provider, cont(first["id"], [RESULT]))
    seen = provider.exchanges[2].view
    assert seen is not None
    assert WIRE.unseen_state(seen, [provider.exchanges[0].response.body]) is None
    assert WIRE.unseen_state(provider.exchanges[0].view or seen, []) is None  # a create


BLANK = CASE.model_validate(
    {
        "id": "blank-reply-blocks",
        "title": "Replies with blank text: an empty block before a call, then an empty answer",
        "provenance": [{"rule": 15}],
        "features": ["empty-content"],
        "wires": {"anthropic-messages": "Claude can stream an empty text block or no content"},
        "given": {
            "tools": [
                {
                    "name": "read_file",
                    "description": "Read a file",
                    "parameters": {"type": "object"},
                    "result": ALPHA,
                }
            ],
            "turns": [
                {
                    "user": "Read alpha.txt",
                    "responses": [
                        {
                            "stop": "tool_calls",
                            "blocks": [
                                {"kind": "text", "text": ""},
                                {"kind": "tool_call", "id": "toolu_01", "name": "read_file"},
                            ],
                        },
                        {"stop": "end", "blocks": [{"kind": "text", "text": "\n\n"}]},
                    ],
                },
                {
                    "user": "Now summarize",
                    "responses": [{"stop": "end", "blocks": [{"kind": "text", "text": "Done."}]}],
                },
            ],
        },
        "expect": [{"requests": 3}],
    }
)


def test_blank_text_the_api_generated_is_held_not_judged_on_a_continue() -> None:
    """A thread holds the reply server-side: a continue never sends its blank text block
    or its empty answer, so neither is a rule the client broke (rule 15 judges what a
    client sends)."""
    provider = ScriptedProvider(BLANK, WIRE)
    first = reply(post(provider, base(messages=[PROMPT], thread={"type": "create"}, thinking=None)))
    assert first["content"][0] == {"type": "text", "text": ""}
    second = post(provider, cont(first["id"], [RESULT], thinking=None))
    assert second.status == 200, second.body
    assert provider.exchanges[1].violations == ()
    view = provider.exchanges[1].view
    assert view is not None
    assert view.raw["messages"][1]["content"] == [first["content"][1]]
    third = post(provider, cont(reply(second)["id"], [NEXT_PROMPT], thinking=None))
    assert third.status == 200, third.body
    assert provider.exchanges[2].violations == ()
    held = provider.exchanges[2].view
    assert held is not None
    assert [m["role"] for m in held.raw["messages"]] == ["user", "assistant", "user", "user"]


def test_blank_text_a_client_sends_itself_is_still_refused() -> None:
    """The same blank blocks re-sent by the client (a create with the whole history, as
    a runner that starts a new thread does) are judged: 400 (rule 15)."""
    provider = ScriptedProvider(BLANK, WIRE)
    first = reply(post(provider, base(messages=[PROMPT], thread={"type": "create"}, thinking=None)))
    whole = [PROMPT, {"role": "assistant", "content": first["content"]}, RESULT]
    answer = post(provider, base(messages=whole, thread={"type": "create"}, thinking=None))
    assert answer.status == 400
    assert "text content blocks must be non-empty" in error(answer)["message"]
