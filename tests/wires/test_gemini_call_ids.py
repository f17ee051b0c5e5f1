"""Issue 21 (Gemini): calls without ids, as real Gemini sends them.

25 of the 27 functionCall parts in pydantic-ai's recorded test_google cassettes carry no
``id``; the client names each call itself (pydantic-ai: ``pyd_ai_<uuid>``) and Gemini
pairs a functionResponse with its call by order.  The reader used to name an id-less
call from its position only, so every answer's first call was the same id, and a call
the client named itself was not the served call it replays: the reference failed
``invariant/ledger-paired`` on six real recordings.  Each test of the pairing failed
before the fix.
"""

from __future__ import annotations

import json
from typing import Any

from conformance._cases.schema import Case
from conformance._checks.ledger import PAIRED, ledger_violations
from conformance._provider.scripted import ScriptedProvider
from conformance._transcript import Transcript
from conformance.vocabulary import ScriptedResponse, ToolCall, ToolResult
from conformance.wires._gemini import WIRE
from tests.wires.test_gemini import JSON_PATH, request

#: gemini-3-flash-preview's first answer in pydantic/pydantic-ai tests/models/cassettes/
#: test_google/test_google_instructions_only_with_tool_calls.yaml: three parallel calls
#: to one tool, none with an id, the first signed (usage and finishMessage left out).
SIGNATURE = (
    "Es8FCswFAXLI2nxFGW9oAYt0fTQoHlYcudYTgqNXlir9nzbXoqFXqLY9sWOIMaevBSmRIl/38GhJB+V+cQHNBmU"
    "zxq17UwAqJmMgQ99kWRCfLmU1uUtLpz260ep1CbMwDTJeIsjLz9JzjMd3vMx7gWYrvmOMg7aANsbpw1iHw/YtlA"
    "5mXdU0Mn6TOdO9UiGTnnDgzfqu/aoYPNT2DSs/ZlUVpOawy+Ds0hY+BakQLutn2fT++i4lLLwstQjuAsgONiLIW"
    "p47NyJ9S9mR8kMnlKuDn1xZMxAHl9YK6j47Rmu9qiWM0fK9fxJOzRiUxQ4eDhWqUKAjrdPPsH8MYaIJMANNbrS2"
    "rtHUWcsfKTPbKlBGUA/5BtuxIT11yIIL78MF+RId8W6s0j2VuRYNzzLqAz961XU9v3+sd7TS+aiSXzzffIoDVpv"
    "z0Ozs5Dq6jkzTEnPqbxBX7ctd+SHh/X+DYXYEk/f+0RKTn4ZWjVIVGeAqcg66zZCNtbzfCDKh9164rrhDUEddrr"
    "NVyQ+N04iUYxZCvU7xSSTLxbt8zJ2LhPNWmI6Y3zhISUP23o/TcvpRecQgR2iTY4k2UV3iTygB9qcYnC3Ka4+Si"
    "uXuAfRHs28FqtHvA6jrEDty6+DDaG5uudrN3wTYvawBYnxTLgK3uDTuTkg+OLYl5WEF+/9BOd3kcoxx+yDR140X"
    "t21+rXGLC7fusqaJ/TZoClO3mf7V7lEEypYVRMpvbC9B8gI84x6o4yXc+G1EJrJIOmch/K6tyE9razLuPy5BzT3"
    "WDvieYDOpGNvePrKbWWtJKXt06undMLLzM7lwVFGPCB03sP7e3YCKRHQ9LE4eVD5CHa0UEISGhQ7vytpzfXKFNi2"
    "C35MujDS4DYE9/aG4YiJdCPxCinmggdYw5j872KKx8VNlZC8CZShSkt7Hnbc6pDIbCKpg2x4yTeBAT3783UHrkQ"
    "CEaZs="
)
REAL_ANSWER = {
    "candidates": [
        {
            "content": {
                "parts": [
                    {
                        "functionCall": {"args": {}, "name": "generate_topic"},
                        "thoughtSignature": SIGNATURE,
                    },
                    {"functionCall": {"args": {}, "name": "generate_topic"}},
                    {"functionCall": {"args": {}, "name": "generate_topic"}},
                ],
                "role": "model",
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "modelVersion": "gemini-3-flash-preview",
    "responseId": "wOd8abGuO5rgz7IP5tLEGA",
}
#: pydantic-ai's next request, answered 200: the calls under ids it made up, the
#: signature in the URL-safe alphabet, three responses in the calls' order (the same
#: cassette, second interaction; the system instruction, tools and config left out).
CLIENT_IDS = (
    "pyd_ai_df5891897e434a16add992cc09f10172",
    "pyd_ai_102eb2f935364e77bac26307e3428e2b",
    "pyd_ai_cc6e16722f9a428db81532521a689ea7",
)
RESULTS = ("cars", "penguins", "cars")


def url_safe(signature: str) -> str:
    return signature.replace("+", "-").replace("/", "_")


def real_request(ids: tuple[str | None, ...] = CLIENT_IDS) -> dict[str, Any]:
    def named(call_id: str | None) -> dict[str, Any]:
        return {} if call_id is None else {"id": call_id}

    calls: list[dict[str, Any]] = [
        {"functionCall": {"args": {}, **named(i), "name": "generate_topic"}} for i in ids
    ]
    calls[0]["thoughtSignature"] = url_safe(SIGNATURE)
    answers = [
        {
            "functionResponse": {
                **named(i),
                "name": "generate_topic",
                "response": {"return_value": result},
            }
        }
        for i, result in zip(ids, RESULTS, strict=True)
    ]
    return {
        "contents": [
            {"parts": [{"text": ""}], "role": "user"},
            {"parts": calls, "role": "model"},
            {"parts": answers, "role": "user"},
        ]
    }


def served() -> ScriptedResponse:
    return WIRE.read(json.dumps(REAL_ANSWER).encode(), False)


def test_the_reader_names_each_id_less_call_apart_and_renders_them_id_less_again() -> None:
    answer = served()
    ids = [b.id for b in answer.blocks if isinstance(b, ToolCall)]
    assert len(set(ids)) == 3  # was: three ids from positions, distinct only within
    assert served() == answer  # deterministic
    assert not answer.gemini_call_ids
    other = {**REAL_ANSWER, "responseId": "another answer"}
    again = WIRE.read(json.dumps(other).encode(), False)
    assert not {b.id for b in again.blocks if isinstance(b, ToolCall)} & set(ids)  # was: equal


def test_an_answer_whose_calls_came_with_ids_keeps_them_and_says_so() -> None:
    """The last answer of the same cassette names its call (``id`` given)."""
    part = REAL_ANSWER["candidates"][0]["content"]["parts"][1]  # type: ignore[index]
    named = json.loads(json.dumps(REAL_ANSWER))
    named["candidates"][0]["content"]["parts"] = [
        {"functionCall": {**part["functionCall"], "id": "xb9ov3fw"}}
    ]
    answer = WIRE.read(json.dumps(named).encode(), False)
    assert answer.gemini_call_ids
    assert [b.id for b in answer.blocks if isinstance(b, ToolCall)] == ["xb9ov3fw"]


def test_calls_the_client_named_itself_are_the_served_calls_in_order() -> None:
    answer = served()
    ids = [b.id for b in answer.blocks if isinstance(b, ToolCall)]
    http = request(real_request(), path=JSON_PATH, query="")
    context = _context(answer)
    view = WIRE.parse(http, context)
    assert [b.id for b in view.messages[1].blocks if isinstance(b, ToolCall)] == ids
    results = view.messages[2].blocks
    assert [(r.call_id, r.content) for r in results if isinstance(r, ToolResult)] == list(
        zip(ids, RESULTS, strict=True)
    )
    assert WIRE.validate(view, context) == []


def test_responses_without_ids_answer_the_calls_by_position() -> None:
    answer = served()
    ids = [b.id for b in answer.blocks if isinstance(b, ToolCall)]
    context = _context(answer)
    view = WIRE.parse(request(real_request((None, None, None))), context)
    assert [b.id for b in view.messages[1].blocks if isinstance(b, ToolCall)] == ids
    assert [r.call_id for r in view.messages[2].blocks if isinstance(r, ToolResult)] == ids


def _context(answer: ScriptedResponse) -> Any:
    from tests.wires.test_gemini import context

    return context([answer])


def _case(answer: ScriptedResponse) -> Case:
    return Case.model_validate(
        {
            "id": "gemini-id-less-probe",
            "title": "three id-less parallel calls, then an answer",
            "provenance": [{"rule": 41}, {"rule": 42}],
            "features": ["parallel-tool-calls"],
            "wires": {"gemini": "Gemini sends calls without ids."},
            "given": {
                "tools": [{"name": "generate_topic", "result": "cars"}],
                "turns": [
                    {
                        "user": "Tell three jokes.",
                        "responses": [
                            answer.model_dump(exclude_none=True),
                            {"stop": "end", "blocks": [{"kind": "text", "text": "Jokes."}]},
                        ],
                    }
                ],
            },
            "expect": [{"requests": 2}],
        }
    )


def _conversation(answer: ScriptedResponse, ids: tuple[str | None, ...]) -> Transcript:
    case = _case(answer)
    provider = ScriptedProvider(case, WIRE)
    first = {"contents": [{"parts": [{"text": "Tell three jokes."}], "role": "user"}]}
    assert provider.handle(request(first)).status == 200
    second = real_request(ids)
    second["contents"][0]["parts"] = [{"text": "Tell three jokes."}]
    assert provider.handle(request(second)).status == 200
    return Transcript(case, "gemini", None, list(provider.exchanges))


def test_the_ledger_pairs_the_signature_with_the_call_the_client_named_itself() -> None:
    """Was: tool_call signature minted paired with the reader's id, sent paired with
    the client's."""
    assert ledger_violations(_conversation(served(), CLIENT_IDS), WIRE) == []


def test_a_call_shown_with_its_id_and_renamed_is_still_mispaired() -> None:
    """Negative: when the answer showed the ids (``gemini_call_ids``), a client that
    sends the signed call under another id changed it, and the ledger says so."""
    shown = served().model_copy(update={"gemini_call_ids": True})
    found = ledger_violations(_conversation(shown, CLIENT_IDS), WIRE)
    assert [v.check for v in found] == [PAIRED.id]


def test_the_lint_refuses_a_result_for_a_call_no_client_sees_the_id_of() -> None:
    """A result scripted per call is looked up by the id the client reports: on Gemini
    only a response with ``gemini_call_ids`` shows it."""
    from conformance._cases.lint import lint_case

    answer = served()
    first = next(b.id for b in answer.blocks if isinstance(b, ToolCall))
    data = _case(answer).model_dump(mode="json", by_alias=True, exclude_none=True)
    data["given"]["results"] = {first: {"content": "cars"}}
    hidden = lint_case(Case.model_validate(data), "parallel-tool-calls/x.yaml")
    assert any(f"results.{first}" in p and "gemini_call_ids" in p for p in hidden)
    data["given"]["turns"][0]["responses"][0]["gemini_call_ids"] = True
    shown = lint_case(Case.model_validate(data), "parallel-tool-calls/x.yaml")
    assert not any("gemini_call_ids" in p for p in shown)


def test_vertex_publisher_path_for_google_models_is_served() -> None:
    """pydantic-ai's request to Vertex AI, answered 200 (test_google/
    test_google_vertex_service_tier_flex_stream.yaml): was provider/unknown-endpoint."""
    vertex = (
        "/v1beta1/projects/pydantic-ai/locations/global/publishers/google/models/"
        "gemini-3-flash-preview:streamGenerateContent"
    )
    body = {"contents": [{"parts": [{"text": "Reply with exactly: OK"}], "role": "user"}]}
    http = request(body, path=vertex)
    assert WIRE.serves(http)
    assert WIRE.parse(http, None).model == "gemini-3-flash-preview"
    assert WIRE.wants_stream(http, WIRE.parse(http, None))
    other = "/v1beta1/projects/p/locations/us/publishers/anthropic/models/claude:rawPredict"
    assert not WIRE.serves(request(body, path=other))
    assert not WIRE.serves(request(body, path=vertex.replace("publishers/google/", "")[:-6]))
