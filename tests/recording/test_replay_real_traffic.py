"""Replay of real Responses recordings: a chain on the provider's own `resp_` ids
resolves against the bytes replay serves, a wrong id is still refused, and exchanges with
endpoints beside the conversation are left out of the replayed conversation.

The exchanges are real (``tests.wires.real_responses``, from pydantic/pydantic-ai's
cassettes), cut to the fields the suite reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance._recording.replay import ReplayProvider, recorded_answers, replay_file
from conformance._recording.to_case import played, recording_case
from conformance._runner import RunOptions
from conformance._targets.resolve import resolve_target
from conformance.http import HttpRequest
from conformance.wires._openai_responses import WIRE
from tests.wires.real_responses import CHAIN, CHAIN_RESPONSE_IDS, recording

CHAIN_CASSETTE = "test_openai_previous_response_id_seed_auto_chains_through_retries.yaml"


def written(tmp_path: Path, exchanges: Any, source: str) -> Path:
    path = tmp_path / f"{source.removesuffix('.yaml')}.json"
    path.write_text(recording(exchanges, source).to_json(), encoding="utf-8")
    return path


def chain_provider(tmp_path: Path) -> ReplayProvider:
    path = written(tmp_path, CHAIN, CHAIN_CASSETTE)
    rec = recording(CHAIN, CHAIN_CASSETTE)
    answers = recorded_answers(rec, played(rec))
    return ReplayProvider(answers, recording_case(rec, path), WIRE, None)


def post(body: dict[str, Any]) -> HttpRequest:
    return HttpRequest("POST", "/v1/responses", json.dumps(body).encode())


def test_a_client_that_chains_on_the_served_ids_is_answered_every_time(tmp_path: Path) -> None:
    """The recorded requests sent again as they were: each names the `resp_` id of the
    bytes replay served before it, and each is answered with the next recorded answer."""
    provider = chain_provider(tmp_path)
    for asked, answered in CHAIN:
        response = provider.handle(post(asked))
        assert response.status == 200, response.body
        assert response.json()["id"] == answered["id"]


def test_a_wrong_previous_response_id_is_refused_in_replay(tmp_path: Path) -> None:
    provider = chain_provider(tmp_path)
    assert provider.handle(post(CHAIN[0][0])).status == 200
    wrong = {**CHAIN[1][0], "previous_response_id": CHAIN_RESPONSE_IDS[3]}  # not served yet
    refused = provider.handle(post(wrong))
    assert refused.status == 400  # as every public report shows it (rule 60)
    assert refused.json()["error"]["message"] == (
        f"Previous response with id '{CHAIN_RESPONSE_IDS[3]}' not found."
    )


def test_the_reference_replays_the_real_chain(tmp_path: Path) -> None:
    path = written(tmp_path, CHAIN, CHAIN_CASSETTE)
    result = replay_file(path, path.name, resolve_target("reference", None), RunOptions())
    # The reference replays the whole conversation instead of chaining: drift, no failure.
    assert result.status in ("pass", "drift"), result


# test_openai_responses_compact_with_auto_previous_response_id_chain.yaml: two turns, the
# conversation compacted at /v1/responses/compact, then a turn on the compaction item.
# The compaction's encrypted_content is cut to its first characters.
_COMPACTED = {
    "encrypted_content": "gAAAAABp3rekFfHiVaTz",
    "id": "cmp_0d4b654a05c1a7a70169deb7a23d008197b9c84fd37d3ebffc",
    "type": "compaction",
}


def _said(response_id: str, item_id: str, text: str, previous: str | None) -> dict[str, Any]:
    content = [{"annotations": [], "text": text, "type": "output_text"}]
    item = {"content": content, "id": item_id, "role": "assistant", "status": "completed"}
    return {
        "id": response_id,
        "object": "response",
        "output": [{**item, "type": "message"}],
        "previous_response_id": previous,
        "status": "completed",
    }


FIRST = "resp_0d4b654a05c1a7a70069deb79f81b88197a19f61e394151ecc"
SECOND = "resp_0d4b654a05c1a7a70069deb7a08194819784d6491244b331d6"
COMPACT_CHAIN = (
    (
        {
            "input": [{"content": "What is 2+2?", "role": "user"}],
            "model": "gpt-4.1",
            "stream": False,
        },
        _said(
            FIRST, "msg_0d4b654a05c1a7a70069deb7a0037c8197a50d469f153a4a5c", "2 + 2 = **4**", None
        ),
    ),
    (
        {
            "input": [{"content": "And 3+3?", "role": "user"}],
            "model": "gpt-4.1",
            "previous_response_id": FIRST,
            "stream": False,
        },
        _said(
            SECOND, "msg_0d4b654a05c1a7a70069deb7a1610c81978d03f03f1593780f", "3 + 3 = **6**", FIRST
        ),
    ),
    (
        {
            "_path": "/v1/responses/compact",
            "input": [],
            "model": "gpt-4.1",
            "previous_response_id": SECOND,
        },
        {
            "id": "resp_0d4b654a05c1a7a70169deb7a1e2a08197be148700090864cf",
            "object": "response.compaction",
            "output": [_COMPACTED],
        },
    ),
    (
        {
            "input": [_COMPACTED, {"content": "And 4+4?", "role": "user"}],
            "model": "gpt-4.1",
            "stream": False,
        },
        _said(
            "resp_0d4b654a05c1a7a70069deb7a4bee48197afc250d9028520cd",
            "msg_0d4b654a05c1a7a70069deb7a517d88197aa72b8abc5cd5d24",
            "4 + 4 = 8",
            None,
        ),
    ),
)
COMPACT_CASSETTE = "test_openai_responses_compact_with_auto_previous_response_id_chain.yaml"


def test_an_exchange_beside_the_conversation_is_left_out_of_it() -> None:
    """The compaction answer has no `status`: it is no turn, and reading it as one broke
    the whole replay ("`status` is missing")."""
    plays = played(recording(COMPACT_CHAIN, COMPACT_CASSETTE))
    assert [p.exchange.number for p in plays] == [1, 2, 4]
    assert all(p.response is not None for p in plays)


def test_a_recording_with_a_compaction_replays(tmp_path: Path) -> None:
    path = written(tmp_path, COMPACT_CHAIN, COMPACT_CASSETTE)
    result = replay_file(path, path.name, resolve_target("reference", None), RunOptions())
    assert result.status in ("pass", "drift"), result


def test_a_recording_with_no_conversation_turn_is_not_applicable(tmp_path: Path) -> None:
    """test_responses_count_tokens.yaml holds one POST /v1/responses/input_tokens only."""
    counted = (
        (
            {
                "_path": "/v1/responses/input_tokens",
                "input": [{"content": "", "role": "user"}],
                "instructions": "Follow the system instructions.",
                "model": "gpt-4.1-mini",
            },
            {"input_tokens": 16, "object": "response.input_tokens"},
        ),
    )
    path = written(tmp_path, counted, "test_responses_count_tokens.yaml")
    result = replay_file(path, path.name, resolve_target("reference", None), RunOptions())
    assert result.status == "n/a"
    assert (result.reason or "").startswith(
        "holds no conversation turn of the wire, only other calls: POST /v1/responses/input_tokens"
    )
