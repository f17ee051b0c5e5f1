"""The sanitizer: no generated secret, in any position, survives into a written
recording; payloads, ids and signatures stay byte-exact; a recording still holding a
secret is refused."""

from __future__ import annotations

import json
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.http import HttpRequest, HttpResponse
from conformance.recording.clean import clean_exchange, secrets_in
from conformance.recording.model import record_exchange
from conformance.recording.sanitize import scrub_chunks

TAIL = string.ascii_letters + string.digits
SECRETS = st.one_of(
    st.text(TAIL + "_-", min_size=40, max_size=90).map(lambda s: "sk-ant-api03-" + s),
    st.text(TAIL, min_size=24, max_size=60).map(lambda s: "sk-proj-" + s),
    st.text("0123456789abcdef", min_size=64, max_size=64).map(lambda s: "sk-or-v1-" + s),
    st.text(TAIL + "_-", min_size=35, max_size=35).map(lambda s: "AIza" + s),
)
SIGNATURE = "EqQBCkgIARABGAIiQHk0sk-ant-abcAIzaSyFAKEFAKEFAKEFAKEFAKEFAKE/+=="
POSITIONS = ("header", "x-api-key", "x-goog-api-key", "cookie", "query", "body", "sse")


def _exchange(secret: str, position: str, depth: int) -> tuple[HttpRequest, HttpResponse]:
    headers = {"content-type": "application/json"}
    query = "alt=sse"
    nested: object = {"note": f"use {secret} please"} if position == "body" else {"note": "hi"}
    for _ in range(depth):
        nested = {"metadata": [nested]}
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "signature": SIGNATURE, "id": "msg_01"},
    ]
    body = {"model": "m", "messages": messages, "extra": nested}
    if position == "header":
        headers["authorization"] = f"Bearer {secret}"
    elif position in ("x-api-key", "x-goog-api-key", "cookie"):
        headers[position] = secret
    elif position == "query":
        query = f"alt=sse&key={secret}"
    data = json.dumps({"type": "delta", "text": f"key is {secret}" if position == "sse" else "x"})
    event = f"event: delta\ndata: {data}\n\n".encode()
    cut = len(event) // 2  # a secret split across two reads is still found
    response = HttpResponse(
        200, event, (("content-type", "text/event-stream"),), (event[:cut], event[cut:])
    )
    request = HttpRequest("POST", "/v1/messages", json.dumps(body).encode(), query, headers)
    return request, response


@settings(max_examples=150, deadline=None)
@given(SECRETS, st.sampled_from(POSITIONS), st.integers(0, 4))
def test_no_secret_survives_into_a_recording(secret: str, position: str, depth: int) -> None:
    request, response = _exchange(secret, position, depth)
    raw = record_exchange(1, request, response)
    assert secrets_in((raw,)), "the uncleaned exchange holds the secret (negative example)"
    cleaned = clean_exchange(raw)
    written = cleaned.model_dump_json()
    assert secret not in written
    assert secrets_in((cleaned,)) == []
    assert SIGNATURE in cleaned.request.body if isinstance(cleaned.request.body, str) else False
    # chunk boundaries kept: same number of chunks, same sizes
    assert [len(str(c)) for c in cleaned.response.chunks] == [
        len(str(c)) for c in raw.response.chunks
    ]


def test_redact_text_keeps_lengths_payloads_and_ids() -> None:
    event = (
        b'data: {"type":"x","text":"Hello secret plan","signature":"c2lnbmF0dXJl","id":"rs_1"}\n\n'
    )
    (out,) = scrub_chunks((event,), redact_text=True)
    assert len(out) == len(event)
    assert b"Hello" not in out
    assert b'"signature":"c2lnbmF0dXJl"' in out
    assert b'"id":"rs_1"' in out


def test_a_key_shaped_run_inside_a_payload_is_not_touched() -> None:
    inside = b'{"text":"ok","note":"abcsk-proj-AAAAAAAAAAAAAAAAAAAAAAAAAAAA"}'
    assert scrub_chunks((inside,)) == (inside,)
