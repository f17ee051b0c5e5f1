"""Issue 15: a request beyond the script is a non-retryable 400 in the wire's error
shape, and its message counts the served responses, rejected requests aside."""

from __future__ import annotations

import json
from collections.abc import Mapping

from conformance._cases.library import load_library
from conformance._provider.scripted import RETRY_ALLOWANCE, ScriptedProvider
from conformance.http import HttpRequest
from conformance.wires._registry import get_wire

#: Two turns of one plain response each (no ``if_continued``/``if_retried`` answer, which
#: a request that starts a turn passes over).
CASE_ID = "xml-prose-mention-left-untouched"


def provider() -> ScriptedProvider:
    (case,) = [c.case for c in load_library().cases if c.case.id == CASE_ID]
    return ScriptedProvider(case, get_wire("openai-chat"))


def chat(*messages: Mapping[str, object]) -> HttpRequest:
    body = {"model": "m", "messages": list(messages), "stream": True}
    return HttpRequest(
        "POST",
        "/v1/chat/completions",
        json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )


USER = {"role": "user", "content": "hi"}
#: A tool message answering nothing: rejected by the wire's rules.
ORPHAN = {"role": "tool", "tool_call_id": "call_x", "content": "r"}


def test_a_request_past_the_end_is_a_400_that_says_beyond_the_script() -> None:
    served = provider()
    for _ in served.script:
        assert served.handle(chat(USER)).status == 200
    extra = served.handle(chat(USER))
    assert extra.status == 400  # was 500, which SDKs retry until their timeout
    message = json.loads(extra.body)["error"]["message"]
    assert "beyond the script" in message
    assert "2 scripted responses, all served" in message


def test_after_rejected_requests_the_message_counts_served_responses() -> None:
    served = provider()
    assert served.handle(chat(USER)).status == 200
    rejected = 0
    while not served.exhausted:
        assert served.handle(chat(USER, ORPHAN)).status == 400
        rejected += 1
    assert rejected > RETRY_ALLOWANCE
    last = served.handle(chat(USER))
    message = json.loads(last.body)["error"]["message"]
    assert "1 of 2 scripted responses served" in message
    assert "all served" not in message
