"""Issue 21 (Gemini): both dummy signatures the thought-signatures doc allows.

The FAQ of ai.google.dev/gemini-api/docs/thought-signatures names two strings a client
may set in place of a signature it does not have: ``skip_thought_signature_validator``
and ``context_engineering_is_the_way_to_go``.  The suite knew only the first, so the
second, as real clients send it (the base64 of its bytes), was refused as a corrupted
signature.  Each test of the second dummy failed before the fix.
"""

from __future__ import annotations

import base64
import json

import pytest

from conformance.vocabulary import ToolCall
from conformance.wires._gemini import WIRE
from conformance.wires._registry import get_wire
from conformance.wires._thought_signatures import (
    DUMMY_SIGNATURES,
    SENTINELS,
    canonical,
    is_sentinel,
)
from tests.wires.test_gemini import (
    JSON_PATH,
    PARALLEL,
    PARALLEL_ANSWERS,
    call,
    context,
    errors,
    loop,
    model,
    parse,
    request,
)
from tests.wires.test_openai_chat import assistant, tool
from tests.wires.test_openai_chat import body as chat_body
from tests.wires.test_openai_chat import call as chat_call
from tests.wires.test_openai_chat import errors as chat_errors
from tests.wires.test_openai_chat import user as chat_user
from tests.wires.test_openai_chat_dialects import SIGNED_TURN, signed

#: The request pydantic-ai sent to gemini-3-pro-preview:generateContent, answered 200: a
#: call made by another model (OpenAI's), carried over with the second dummy as the base64
#: of its bytes (pydantic/pydantic-ai tests/models/cassettes/test_google/
#: test_thinking_with_tool_calls_from_other_model.yaml, third interaction; the tools
#: and generationConfig left out).
REAL_SECOND_DUMMY = {
    "contents": [
        {"parts": [{"text": "What is the capital of the country?"}], "role": "user"},
        {
            "parts": [
                {
                    "functionCall": {
                        "args": {},
                        "id": "call_1w9YRdMtRTRucwZShoZYlLJp",
                        "name": "get_country",
                    },
                    "thoughtSignature": "Y29udGV4dF9lbmdpbmVlcmluZ19pc190aGVfd2F5X3RvX2dv",
                }
            ],
            "role": "model",
        },
        {
            "parts": [
                {
                    "functionResponse": {
                        "id": "call_1w9YRdMtRTRucwZShoZYlLJp",
                        "name": "get_country",
                        "response": {"return_value": "Mexico"},
                    }
                }
            ],
            "role": "user",
        },
    ]
}
#: pydantic-ai's first dummy, to gemini-2.0-flash, answered 200 (test_google/
#: test_google_model_structured_output.yaml, second interaction).
REAL_FIRST_DUMMY_BASE64 = "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="

#: Made up: near the dummies, documented nowhere.
NOT_A_DUMMY = ("context_engineering_is_the_way", "skip_thought_signature_validator_2")


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_the_real_bytes_are_the_base64_of_the_two_dummies() -> None:
    second = WIRE.parse(request(REAL_SECOND_DUMMY), None).raw["contents"][1]["parts"][0][
        "thoughtSignature"
    ]
    assert base64.b64decode(second) == b"context_engineering_is_the_way_to_go"
    assert base64.b64decode(REAL_FIRST_DUMMY_BASE64) == b"skip_thought_signature_validator"
    assert (
        set(DUMMY_SIGNATURES)
        == SENTINELS
        == {
            "skip_thought_signature_validator",
            "context_engineering_is_the_way_to_go",
        }
    )


def test_the_real_request_with_the_second_dummy_is_accepted() -> None:
    """The call was minted by another model: nothing Gemini served is asked of it, and
    the dummy is no corrupted signature (was: Corrupted thought signature.)."""
    view = WIRE.parse(request(REAL_SECOND_DUMMY, path=JSON_PATH, query=""), context())
    assert WIRE.validate(view, context()) == []
    (block,) = view.messages[1].blocks
    assert isinstance(block, ToolCall)
    assert (
        block.signature == "context_engineering_is_the_way_to_go"
    )  # the literal, as the ledger reads it


@pytest.mark.parametrize("dummy", DUMMY_SIGNATURES)
@pytest.mark.parametrize("spell", [str, b64, lambda d: b64(d).rstrip("=")])
def test_each_dummy_in_each_spelling_stands_in_for_a_served_call_s_signature(
    dummy: str, spell: object
) -> None:
    spelled = spell(dummy)  # type: ignore[operator]
    stand_in = model(
        call("read", {"p": "a"}, "call_a", spelled), call("read", {"p": "b"}, "call_b")
    )
    assert is_sentinel(spelled)
    assert canonical(spelled) == dummy
    assert errors(loop(stand_in, PARALLEL_ANSWERS), served=[PARALLEL]) == []


@pytest.mark.parametrize("made_up", NOT_A_DUMMY)
@pytest.mark.parametrize("spell", [str, b64])
def test_another_made_up_string_is_still_corrupted(made_up: str, spell: object) -> None:
    spelled = spell(made_up)  # type: ignore[operator]
    forged = model(call("read", {"p": "a"}, "call_a", spelled), call("read", {"p": "b"}, "call_b"))
    assert not is_sentinel(spelled)
    assert "Corrupted thought signature." in errors(
        loop(forged, PARALLEL_ANSWERS), served=[PARALLEL]
    )


def test_the_ledger_treats_both_dummies_as_no_payload_on_both_gemini_endpoints() -> None:
    for name in ("gemini", "openai-chat"):
        hints = get_wire(name).hints
        assert all(hints.sentinel(dummy) for dummy in DUMMY_SIGNATURES)
        assert not hints.sentinel(NOT_A_DUMMY[0])


def test_the_view_carries_the_second_dummy_as_the_literal() -> None:
    view = parse(
        loop(model(call("read", {}, "call_a", b64(DUMMY_SIGNATURES[1]))), PARALLEL_ANSWERS)
    )
    assert view.messages[1].blocks[0].signature == DUMMY_SIGNATURES[1]  # type: ignore[union-attr]


@pytest.mark.parametrize("spelled", [DUMMY_SIGNATURES[1], b64(DUMMY_SIGNATURES[1])])
def test_the_openai_compatible_endpoint_accepts_the_second_dummy(spelled: str) -> None:
    payload = chat_body(
        chat_user("go"),
        assistant(None, signed("fc_1", spelled), chat_call("fc_2")),
        tool("fc_1"),
        tool("fc_2"),
    )
    assert chat_errors(payload, "gemini", served=[SIGNED_TURN]) == []


def test_the_openai_compatible_endpoint_still_refuses_a_made_up_string() -> None:
    payload = chat_body(
        chat_user("go"),
        assistant(None, signed("fc_1", b64(NOT_A_DUMMY[0])), chat_call("fc_2")),
        tool("fc_1"),
        tool("fc_2"),
    )
    found = chat_errors(payload, "gemini", served=[SIGNED_TURN])
    assert any("Corrupted thought signature." in message for message in found)


def test_the_real_request_body_is_the_cassette_s_json() -> None:
    """Guards the embedded bytes: the part-level sibling, the literal ids."""
    text = json.dumps(REAL_SECOND_DUMMY)
    assert '"thoughtSignature": "Y29udGV4dF9lbmdpbmVlcmluZ19pc190aGVfd2F5X3RvX2dv"' in text
