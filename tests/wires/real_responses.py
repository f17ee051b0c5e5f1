"""Real OpenAI Responses exchanges, cut to the fields the suite reads, for regression tests.

From pydantic/pydantic-ai tests/models/cassettes/test_openai_responses/ (commit
4fda38988f2939fa6ea9cdefcf120693e10ef491, MIT).  Every id is as recorded; bodies are cut
to the fields the rules and the reader use (tools, usage and the response object's
other settings left out).
"""

from __future__ import annotations

import json
from typing import Any

from conformance._recording.file_format import (
    Metadata,
    RecordedExchange,
    RecordedRequest,
    RecordedResponse,
    Recording,
    build_recording,
)

#: test_openai_previous_response_id_seed_auto_chains_through_retries.yaml: gpt-4.1, each
#: request after the first continues the one before by its real `resp_` id and sends only
#: what is new (the prompt, then each function_call_output); every one was answered 200.
CHAIN_RESPONSE_IDS = (
    "resp_0435eb6c2aa8e9eb0069e15ffdbb848195ab503209f100317f",
    "resp_0435eb6c2aa8e9eb0069e15ffeb3fc81959cd2d1e915a8c7ea",
    "resp_0435eb6c2aa8e9eb0069e1600000608195818a61245c018620",
    "resp_0435eb6c2aa8e9eb0069e160015f14819589a941eb8f14e5a5",
)
_CHAIN_TOOLS = [
    {
        "name": "get_weather",
        "parameters": {
            "additionalProperties": False,
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "type": "object",
        },
        "strict": True,
        "type": "function",
    }
]


def _chain_request(input_items: list[dict[str, Any]], previous: str | None) -> dict[str, Any]:
    body: dict[str, Any] = {"input": input_items, "model": "gpt-4.1", "stream": False}
    if previous is not None:
        body["previous_response_id"] = previous
        body["store"] = True
    return {**body, "tool_choice": "auto", "tools": _CHAIN_TOOLS}


def _message(item_id: str, text: str) -> dict[str, Any]:
    content = [{"annotations": [], "logprobs": [], "text": text, "type": "output_text"}]
    return {
        "content": content,
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "type": "message",
    }


def _call(item_id: str, call_id: str, city: str) -> dict[str, Any]:
    return {
        "arguments": json.dumps({"city": city}, separators=(",", ":")),
        "call_id": call_id,
        "id": item_id,
        "name": "get_weather",
        "status": "completed",
        "type": "function_call",
    }


def _answer(response_id: str, previous: str | None, item: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "model": "gpt-4.1-2025-04-14",
        "output": [item],
        "previous_response_id": previous,
        "status": "completed",
        "store": True,
    }


FIRST_CALL = "call_P1vN20XNjvNyIm0VshHYzmSA"
SECOND_CALL = "call_N2BikjqNxghwNIwHl2XKfb0F"
_RETRY_TEXT = (
    'Location not recognized. The tool only supports the airport code "NYC". Call again '
    'with city="NYC".\n\nFix the errors and try again.'
)
r0, r1, r2, r3 = CHAIN_RESPONSE_IDS
CHAIN: tuple[tuple[dict[str, Any], dict[str, Any]], ...] = (
    (
        _chain_request([{"content": "Say hi in one word, no punctuation.", "role": "user"}], None),
        _answer(
            r0, None, _message("msg_0435eb6c2aa8e9eb0069e15ffe56b4819587eaac6a6c786706", "Hello")
        ),
    ),
    (
        _chain_request([{"content": "What's the weather in New York?", "role": "user"}], r0),
        _answer(
            r1,
            r0,
            _call("fc_0435eb6c2aa8e9eb0069e15fffae50819597bbbe870015ea70", FIRST_CALL, "New York"),
        ),
    ),
    (
        _chain_request(
            [{"call_id": FIRST_CALL, "output": _RETRY_TEXT, "type": "function_call_output"}], r1
        ),
        _answer(
            r2,
            r1,
            _call("fc_0435eb6c2aa8e9eb0069e16000fad08195bb4d519c2d62b811", SECOND_CALL, "NYC"),
        ),
    ),
    (
        _chain_request(
            [{"call_id": SECOND_CALL, "output": "Sunny, 72F", "type": "function_call_output"}], r2
        ),
        _answer(
            r3,
            r2,
            _message(
                "msg_0435eb6c2aa8e9eb0069e16003516081958ff28fb508f53045",
                "The weather in New York is sunny and 72\u00b0F.",
            ),
        ),
    ),
)


def recording(
    exchanges: tuple[tuple[dict[str, Any], dict[str, Any]], ...], source: str
) -> Recording:
    """The exchanges as a recording of the vendored corpus's shape (JSON answers, 200)."""
    recorded = [
        RecordedExchange(
            number=k + 1,
            request=RecordedRequest(
                method="POST",
                path=str(asked.pop("_path", "/v1/responses")),
                headers={"content-type": "application/json"},
                body=json.dumps(asked, separators=(",", ":")),
            ),
            response=RecordedResponse(
                status=200,
                headers=(("content-type", "application/json"),),
                chunks=(json.dumps(answered),),
            ),
        )
        for k, (asked, answered) in enumerate((dict(a), b) for a, b in exchanges)
    ]
    metadata = Metadata(
        format_version=1,
        wire="openai-responses",
        model="gpt-4.1",
        recorded_at="2026-01-01T00:00:00Z",
        suite_version="0.1.0",
        sanitizer_version=1,
        synthetic=False,
        redacted_text=False,
        source=f"api.openai.com (vcrpy cassette {source})",
        origin=f"pydantic/pydantic-ai tests/models/cassettes/test_openai_responses/{source}",
        license="MIT",
        edits="cut to the fields the suite reads",
    )
    return build_recording(metadata, recorded)
