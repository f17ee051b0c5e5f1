"""`recording audit`: each recorded request judged by the suite's provider beside the
provider's real answer.  Every finding is shown on a recording made here: a false
refusal is found (and fails the command), agreement and a missed rejection are told
apart, what cannot be judged says why, and bad input is a clear error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance._cli import main
from conformance._recording.audit import audit_paths, audit_recording, exclusions
from conformance._recording.file_format import Metadata, Recording, build_recording, record_exchange
from conformance.errors import ExclusionError
from conformance.http import HttpRequest, HttpResponse

_ANSWER = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "Hello."}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 3, "output_tokens": 2},
}


def _meta(wire: str = "anthropic-messages") -> Metadata:
    return Metadata(
        format_version=1,
        wire=wire,
        recorded_at="2026-01-01T00:00:00Z",
        suite_version="test",
        sanitizer_version=1,
        synthetic=False,
        source="api.example.test",
    )


def _anthropic(messages: list[dict[str, Any]]) -> bytes:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages}
    return json.dumps(body).encode()


def _recording(
    *exchanges: tuple[str, bytes, int, bytes], wire: str = "anthropic-messages"
) -> Recording:
    recorded = [
        record_exchange(
            n,
            HttpRequest("POST", path, body, "", {"content-type": "application/json"}),
            HttpResponse(status, answer, (("content-type", "application/json"),)),
        )
        for n, (path, body, status, answer) in enumerate(exchanges, start=1)
    ]
    return build_recording(_meta(wire), recorded)


_HELLO = [{"role": "user", "content": "Hi"}]
#: A user message with no content: Anthropic refuses it (rule A15), so the suite does.
_EMPTY_USER = [{"role": "user", "content": []}]
_OK = json.dumps(_ANSWER).encode()
_REFUSED = json.dumps(
    {"type": "error", "error": {"type": "invalid_request_error", "message": "no"}}
).encode()


def test_an_accepted_request_agrees() -> None:
    audited = audit_recording(_recording(("/v1/messages", _anthropic(_HELLO), 200, _OK)), "r")
    (exchange,) = audited.exchanges
    assert (exchange.finding, exchange.suite_accepts, exchange.rules) == ("agrees", True, ())


def test_a_request_the_provider_answered_but_the_suite_refuses_is_a_false_refusal() -> None:
    audited = audit_recording(_recording(("/v1/messages", _anthropic(_EMPTY_USER), 200, _OK)), "r")
    (exchange,) = audited.exchanges
    assert exchange.finding == "false-refusal"
    assert exchange.suite_accepts is False
    assert exchange.rules == ("anthropic-messages/user-message-nonempty",)
    fired = exchange.fired[0]
    assert fired.evidence
    assert fired.source
    assert "non-empty content" in fired.message


def test_a_refusal_both_give_agrees_and_one_only_the_provider_gives_is_a_missed_rejection() -> None:
    audited = audit_recording(
        _recording(
            ("/v1/messages", _anthropic(_EMPTY_USER), 400, _REFUSED),
            ("/v1/messages", _anthropic(_HELLO), 400, _REFUSED),
        ),
        "r",
    )
    assert [e.finding for e in audited.exchanges] == ["agrees", "missed-rejection"]


def test_other_endpoints_and_transient_answers_are_not_judged_and_say_why() -> None:
    audited = audit_recording(
        _recording(
            ("/v1/messages/count_tokens", _anthropic(_EMPTY_USER), 200, b"{}"),
            ("/v1/messages", _anthropic(_EMPTY_USER), 429, _REFUSED),
        ),
        "r",
    )
    first, second = audited.exchanges
    assert (first.finding, first.unjudged, first.suite_accepts) == (
        "not-judged",
        "other-endpoint",
        None,
    )
    assert "count_tokens is not a conversation endpoint" in (first.reason or "")
    # A rate limit says nothing of the request, even one the suite refuses.
    assert (second.finding, second.unjudged) == ("not-judged", "provider-status")


def _responses(previous: str | None) -> bytes:
    body: dict[str, Any] = {"model": "gpt-5", "input": "Hi"}
    if previous:
        body["previous_response_id"] = previous
    return json.dumps(body).encode()


def _responses_answer(response_id: str) -> bytes:
    return json.dumps(
        {
            "id": response_id,
            "object": "response",
            "status": "completed",
            "model": "gpt-5",
            "output": [
                {
                    "id": "msg_" + response_id[5:],
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "Hello.", "annotations": []}],
                }
            ],
        }
    ).encode()


def test_a_chain_on_a_response_from_before_the_recording_is_not_judged() -> None:
    audited = audit_recording(
        _recording(
            ("/v1/responses", _responses("resp_before"), 200, _responses_answer("resp_a1")),
            wire="openai-responses",
        ),
        "r",
    )
    (exchange,) = audited.exchanges
    assert (exchange.finding, exchange.unjudged) == ("not-judged", "unseen-state")
    assert "resp_before" in (exchange.reason or "")


def test_a_chain_on_a_response_the_recording_holds_is_judged() -> None:
    audited = audit_recording(
        _recording(
            ("/v1/responses", _responses(None), 200, _responses_answer("resp_a1")),
            ("/v1/responses", _responses("resp_a1"), 200, _responses_answer("resp_a2")),
            wire="openai-responses",
        ),
        "r",
    )
    assert [e.unjudged for e in audited.exchanges] == [None, None]
    assert all(e.suite_accepts is not None for e in audited.exchanges)


def _write(tmp_path: Path, name: str, recording: Recording) -> Path:
    path = tmp_path / name
    path.write_text(recording.to_json(), encoding="utf-8")
    return path


def test_the_command_fails_on_a_false_refusal_and_writes_every_exchange(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, "bad.json", _recording(("/v1/messages", _anthropic(_EMPTY_USER), 200, _OK)))
    _write(tmp_path, "good.json", _recording(("/v1/messages", _anthropic(_HELLO), 200, _OK)))
    out = tmp_path / "audit.json"
    assert main(["recording", "audit", str(tmp_path), "--json", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "FALSE REFUSAL" in printed
    assert "bad.json exchange 1" in printed
    assert "anthropic-messages/user-message-nonempty" in printed
    data = json.loads(out.read_text())
    rows = {(e["recording"].split("/")[-1], e["exchange"]): e for e in data["exchanges"]}
    bad = rows[("bad.json", 1)]
    assert {k: bad[k] for k in ("real_status", "suite_accepts", "rules")} == {
        "real_status": 200,
        "suite_accepts": False,
        "rules": ["anthropic-messages/user-message-nonempty"],
    }
    assert rows[("good.json", 1)]["suite_accepts"] is True
    assert data["ok"] is False


def test_the_command_passes_when_the_suite_accepts_all_that_was_answered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, "good.json", _recording(("/v1/messages", _anthropic(_HELLO), 200, _OK)))
    assert main(["recording", "audit", str(tmp_path)]) == 0
    assert "0 false refusals" in capsys.readouterr().out


def test_an_excluded_recording_is_listed_with_its_reason_and_not_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _write(
        tmp_path, "edited.json", _recording(("/v1/messages", _anthropic(_EMPTY_USER), 200, _OK))
    )
    listing = tmp_path / "excluded.toml"
    listing.write_text('[excluded]\n"edited.json" = "hand-edited upstream"\n')
    assert main(["recording", "audit", str(bad), "--exclude", str(listing)]) == 0
    assert "/edited.json: hand-edited upstream" in capsys.readouterr().out


def test_a_broken_file_is_an_error_line_and_the_others_are_still_audited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cut.json").write_text('{"metadata": ')
    _write(tmp_path, "good.json", _recording(("/v1/messages", _anthropic(_HELLO), 200, _OK)))
    report = audit_paths([(p, p.name) for p in sorted(tmp_path.glob("*.json"))])
    assert [r.error is not None for r in report.recordings] == [True, False]
    assert report.counts()["agrees"] == 1
    assert main(["recording", "audit", str(tmp_path)]) == 1
    assert "/cut.json: line 1 column 14: not JSON" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("nothing = 1\n", "[excluded]: missing"),
        ('[excluded]\n"a.json" = 3\n', "excluded.a.json: give the reason"),
        ("[excluded\n", "not TOML"),
    ],
)
def test_a_bad_exclusion_file_is_named(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "x.toml"
    path.write_text(text)
    with pytest.raises(ExclusionError, match=problem.replace("[", r"\[")):
        exclusions(path)


def test_no_directory_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["recording", "audit", str(tmp_path / "missing")]) == 2
    assert main(["recording", "audit", str(tmp_path)]) == 2


def _thinking_turn(signature: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Greet.", "signature": signature},
                {"type": "text", "text": "Hello."},
            ],
        },
        {"role": "user", "content": "Again"},
    ]


def test_a_turn_minted_outside_the_recording_is_the_providers_saved_history() -> None:
    # A signature the recording never shows being served, in a request the provider
    # answered 200: it was the provider's own (minted before the recording, or in
    # another session), so the audit does not call it invalid.
    audited = audit_recording(
        _recording(
            ("/v1/messages", _anthropic(_HELLO), 200, _OK),
            ("/v1/messages", _anthropic(_thinking_turn("EuYBCkQYAiJA")), 200, _OK),
        ),
        "r",
    )
    assert [e.finding for e in audited.exchanges] == ["agrees", "agrees"]


def test_a_token_changed_from_one_served_is_still_judged() -> None:
    # The first request's history holds the signature; the second sends it altered
    # beside the original (the message shares a known token), so the signature rule
    # still fires: a 200 there is a false refusal the audit reports.
    first = _thinking_turn("EuYBCkQYAiJA")
    altered = [
        *first,
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Greet.", "signature": "EuYBCkQYAiJA"},
                {"type": "thinking", "thinking": "Again.", "signature": "tampered"},
                {"type": "text", "text": "Hello again."},
            ],
        },
        {"role": "user", "content": "Once more"},
    ]
    audited = audit_recording(
        _recording(
            ("/v1/messages", _anthropic(first), 200, _OK),
            ("/v1/messages", _anthropic(altered), 400, _REFUSED),
        ),
        "r",
    )
    assert [e.finding for e in audited.exchanges] == ["agrees", "agrees"]
    assert "anthropic-messages/signature-valid" in audited.exchanges[1].rules


def test_a_field_the_suite_does_not_model_is_not_judged() -> None:
    """`container` is taken by the real API; the provider does not keep containers."""
    body = json.loads(_anthropic(_HELLO)) | {"container": "container_1"}
    audited = audit_recording(
        _recording(("/v1/messages", json.dumps(body).encode(), 200, _OK)), "r"
    )
    (exchange,) = audited.exchanges
    assert (exchange.finding, exchange.unjudged) == ("not-judged", "unmodelled-feature")
    assert exchange.reason is not None
    assert "`container`" in exchange.reason


def test_an_unlisted_field_the_real_api_answered_shows_the_list_wrong() -> None:
    body = json.dumps(json.loads(_anthropic(_HELLO)) | {"frobnicate": 1}).encode()
    taken = audit_recording(_recording(("/v1/messages", body, 200, _OK)), "r")
    refused = audit_recording(_recording(("/v1/messages", body, 400, _REFUSED)), "r")
    assert taken.exchanges[0].finding == "false-refusal"
    assert taken.exchanges[0].rules == ("provider/unknown-field",)
    assert refused.exchanges[0].finding == "agrees"
