"""Request fields and beta values the provider cannot judge are answered explicitly
(``conformance._provider.features``): a field or beta the real API does not take gets the
real API's own answer, one it takes but the suite does not model gets "not modelled by
this suite", and either leaves the cell ``error``, naming the feature, never a ``fail``
from an unrelated check.  What the lists hold is checked against the bundled cases (a
case's own betas are taken) and the wires (each has its lists)."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest

from conformance._provider.features import listed_for, unjudgeable
from conformance._recording.audit import Unjudged
from conformance._recording.audit_report import _UNJUDGED
from conformance._reference import ReferenceAdapter
from conformance._reference.adapter import ReferenceSession
from conformance._targets.api import WireRequest
from conformance.catalogue._features import Treatment, features
from conformance.http import HttpRequest
from conformance.wires._registry import wire_names
from tests.support import library, library_case, run_cell
from tests.targets.rewriting import rewriting

#: A case each column runs, and the reference passes.
CASES = {
    "anthropic-messages": "dropped-stream-output-is-text-streamed-so-far",
    "openai-responses": "dropped-stream-output-is-text-streamed-so-far",
    "openai-chat": "dropped-stream-output-is-text-streamed-so-far",
    "openai-chat:openrouter": "openrouter-gemini-reasoning-details-replayed-with-each-call",
    "gemini": "gemini-thought-after-call-stays-after-it",
}
CASE = CASES["anthropic-messages"]
ANSWERS = {
    "anthropic-messages": "frobnicate: Extra inputs are not permitted",
    "openai-responses": "Unknown parameter: 'frobnicate'.",
    "openai-chat": "Unrecognized request argument supplied: frobnicate",
    "gemini": 'Invalid JSON payload received. Unknown name "frobnicate": Cannot find field.',
}


def adding(field: str, value: object) -> ReferenceAdapter:
    def rewrite(body: dict[str, Any], number: int) -> None:
        body[field] = value

    return rewriting(rewrite, name=f"adds-{field}")


class _BetaSession(ReferenceSession):
    beta = ""

    def next_request(self) -> WireRequest:
        request = super().next_request()
        headers = {**request.headers, self.header: self.beta}
        return WireRequest(body=request.body_bytes(), headers=headers, path=request.path)

    header = "anthropic-beta"


def sending_beta(header: str, value: str) -> ReferenceAdapter:
    class CaseBrief(_BetaSession):
        pass

    CaseBrief.header, CaseBrief.beta = header, value

    class Beta(ReferenceAdapter):
        session_class = CaseBrief

    Beta.name = "sends-a-beta"
    return Beta()


def first_answer(transcript: Any) -> tuple[int, str]:
    exchange = transcript.exchanges[0]
    return exchange.response.status, exchange.response.body.decode()


# --- the three kinds, through a whole cell -------------------------------------------


@pytest.mark.parametrize("wire", sorted(ANSWERS))
def test_an_unknown_top_level_field_gets_the_real_answer_and_an_error_verdict(wire: str) -> None:
    result, transcript = run_cell(adding("frobnicate", 1), library_case(CASES[wire]), wire)
    assert result.verdict == "error"
    assert result.reason is not None
    assert "`frobnicate`" in result.reason
    assert ANSWERS[wire] in result.reason
    status, body = first_answer(transcript)
    assert status == 400
    assert ANSWERS[wire].replace('"', '\\"') in body
    assert [v.check for v in result.violations] == ["provider/unknown-field"]


def test_the_responses_answer_carries_openais_code_and_param() -> None:
    _, transcript = run_cell(adding("frobnicate", 1), library_case(CASE), "openai-responses")
    _, body = first_answer(transcript)
    error = json.loads(body)["error"]
    assert (error["code"], error["param"]) == ("unknown_parameter", "frobnicate")


def test_an_unknown_anthropic_beta_gets_the_real_answer() -> None:
    target = sending_beta("anthropic-beta", "interleaved-thinking-2025-05-14, made-up-2031-01-01")
    result, transcript = run_cell(target, library_case(CASE), "anthropic-messages")
    assert result.verdict == "error"
    assert result.reason is not None
    assert "made-up-2031-01-01" in result.reason
    _, body = first_answer(transcript)
    assert json.loads(body)["error"] == {
        "type": "invalid_request_error",
        "message": "Unexpected value(s) `made-up-2031-01-01` for the `anthropic-beta` header. "
        "Please consult our documentation at docs.anthropic.com or try again without the "
        "header.",
    }


def test_a_listed_beta_is_taken() -> None:
    target = sending_beta("anthropic-beta", "interleaved-thinking-2025-05-14,context-1m-2025-08-07")
    result, _ = run_cell(target, library_case(CASE), "anthropic-messages")
    assert result.verdict == "pass"


def test_an_openai_beta_value_nobody_documents_is_not_modelled() -> None:
    target = sending_beta("OpenAI-Beta", "responses=experimental")
    result, _ = run_cell(target, library_case(CASE), "openai-responses")
    assert result.verdict == "error"
    assert result.reason is not None
    assert "`openai-beta: responses=experimental`" in result.reason
    assert "does not model it" in result.reason


@pytest.mark.parametrize(
    ("wire", "field", "value"),
    [
        ("anthropic-messages", "container", "container_011"),
        ("anthropic-messages", "context_management", {"edits": []}),
        ("openai-responses", "prompt", {"id": "pmpt_1"}),
        ("gemini", "cachedContent", "cachedContents/abc"),
        ("gemini", "cached_content", "cachedContents/abc"),
    ],
)
def test_a_known_but_unmodelled_feature_is_answered_not_modelled(
    wire: str, field: str, value: object
) -> None:
    result, transcript = run_cell(adding(field, value), library_case(CASES[wire]), wire)
    assert result.verdict == "error"
    assert result.reason is not None
    assert f"`{field}` is taken by the real API, but this suite does not model it" in (
        result.reason
    )
    assert [v.check for v in result.violations] == ["provider/unmodelled-feature"]
    status, _ = first_answer(transcript)
    assert status == 400


@pytest.mark.parametrize(
    ("wire", "field", "value"),
    [
        ("anthropic-messages", "temperature", 0.5),
        ("anthropic-messages", "metadata", {"user_id": "u"}),
        ("openai-responses", "prompt_cache_key", "k"),
        ("openai-chat", "seed", 7),
        ("gemini", "safety_settings", []),
    ],
)
def test_an_inert_field_is_taken(wire: str, field: str, value: object) -> None:
    result, _ = run_cell(adding(field, value), library_case(CASES[wire]), wire)
    assert result.verdict == "pass", result.reason


def test_compatible_servers_are_not_held_to_openais_list() -> None:
    """OpenRouter takes `provider` (real traffic shows it answered 200); no public source
    lists what each compatible server takes, so only OpenAI's own column is held."""
    column = "openai-chat:openrouter"
    result, _ = run_cell(adding("provider", {"order": ["x"]}), library_case(CASES[column]), column)
    assert result.verdict == "pass", result.reason
    assert listed_for("openai-chat", "openrouter") is None
    assert listed_for("openai-chat", None) is not None


# --- the lists ------------------------------------------------------------------------


def test_every_wire_has_its_lists_and_each_answer_names_the_field() -> None:
    listed = features().wires
    assert set(listed) == set(wire_names())
    for wire in listed.values():
        assert "{name}" in wire.unknown_field.error
        if wire.unknown_beta is not None:
            assert "{name}" in wire.unknown_beta.error


def test_a_field_listed_twice_is_refused_at_load() -> None:
    raw = features().wires["gemini"].model_dump()
    raw["inert"] = (*raw["inert"], "contents")
    with pytest.raises(ValueError, match="listed twice: contents"):
        type(features().wires["gemini"]).model_validate(raw)


def test_snake_case_is_taken_only_where_the_body_is_protobuf_json() -> None:
    gemini, anthropic = features().wires["gemini"], features().wires["anthropic-messages"]
    assert gemini.treatment("system_instruction") is Treatment.MODELLED
    assert gemini.treatment("generation_config") is Treatment.MODELLED
    assert anthropic.treatment("max_tokens") is Treatment.MODELLED
    assert anthropic.treatment("maxTokens") is None
    assert anthropic.treatment("stop_sequences") is Treatment.INERT


def test_every_beta_a_bundled_case_configures_is_taken() -> None:
    listed = features().wires["anthropic-messages"].betas
    configured = {beta for loaded in library().cases for beta in loaded.case.given.options.betas}
    assert configured - set(listed) == set()


def test_a_plain_request_meets_no_answer_and_an_unlisted_field_does() -> None:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [], "stream": True}
    request = HttpRequest("POST", "/v1/messages", json.dumps(body).encode())
    assert unjudgeable("anthropic-messages", None, request, body) is None
    found = unjudgeable("anthropic-messages", None, request, {**body, "frobnicate": 1})
    assert found is not None
    assert (found.check, found.at) == ("provider/unknown-field", "frobnicate")


# --- the recordings audit ---------------------------------------------------------------


def test_every_reason_for_not_judging_has_its_summary_words() -> None:
    assert set(_UNJUDGED) == set(get_args(Unjudged))


def test_a_treatment_lookup_of_an_unlisted_field_is_none() -> None:
    assert features().wires["openai-chat"].treatment("frobnicate") is None
    assert features().wires["openai-chat"].treatment("seed") is Treatment.INERT
