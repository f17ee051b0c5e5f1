"""Issue 13: byte-level framing of a served body (line endings, read boundaries), honoured
byte-exactly by the provider and every transport: respx over httpx and httpx2, and the
loopback socket a command reads."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import httpx2
import pytest

from conformance._cases.library import load_library
from conformance._provider.intercept import intercept
from conformance._provider.loopback import LoopbackServer
from conformance._provider.scripted import ScriptedProvider
from conformance.http import HttpRequest, HttpResponse
from conformance.vocabulary import Framing
from conformance.wires._reframe import cuts, reframe, split
from conformance.wires._registry import get_wire

SSE = (("content-type", "text/event-stream"),)
EVENTS = ('event: a\ndata: {"t":"Grüße"}\n\n'.encode(), b'event: b\ndata: {"t":"x"}\n\n')


def streamed() -> HttpResponse:
    return HttpResponse(200, b"".join(EVENTS), SSE, EVENTS)


def test_no_framing_leaves_the_response_as_rendered() -> None:
    assert reframe(streamed(), None) is not None
    assert reframe(streamed(), None) == streamed()


@pytest.mark.parametrize(("ending", "raw"), [("crlf", b"\r\n"), ("cr", b"\r"), ("lf", b"\n")])
def test_line_endings_rewrite_every_sse_line_break_and_nothing_else(
    ending: str, raw: bytes
) -> None:
    framed = reframe(streamed(), Framing(line_ending=ending))
    assert framed.body == b"".join(EVENTS).replace(b"\n", raw)
    assert framed.chunks == tuple(e.replace(b"\n", raw) for e in EVENTS)  # one read per event
    assert framed.framed


def test_a_json_body_keeps_its_own_bytes() -> None:
    body = b'{"a":\n1}'
    framed = reframe(
        HttpResponse(200, body, (("content-type", "application/json"),)),
        Framing(line_ending="crlf"),
    )
    assert framed.body == body


def test_mid_character_cuts_after_the_lead_byte_of_every_multibyte_sequence() -> None:
    body = "aé東🙂".encode()
    pieces = split(body, cuts(body, "mid-character"))
    assert pieces == (b"a\xc3", b"\xa9\xe6", b"\x9d\xb1\xf0", b"\x9f\x99\x82")
    for piece in pieces[:-1]:
        with pytest.raises(UnicodeDecodeError):
            piece.decode()  # every read but the last ends inside a character
    assert b"".join(pieces) == body


def test_mid_line_cuts_every_line_and_may_split_a_crlf_pair() -> None:
    body = b"data: 1\r\n\r\ndata: 22\r\n\r\n"
    pieces = split(body, cuts(body, "mid-line"))
    assert b"".join(pieces) == body
    assert pieces[0] == b"data"  # the line `data: 1\r\n` is cut in its middle
    assert all(len(p) < len(b"data: 1\r\n") for p in pieces)


def test_read_sizes_and_bytewise() -> None:
    body = b"abcdefgh"
    assert split(body, cuts(body, (1, 2, 10))) == (b"a", b"bc", b"defgh")
    assert split(body, cuts(body, "bytewise")) == tuple(bytes([b]) for b in body)


CASE = "stream-events-framing-crlf-lines-split-across-reads"


def served(column: str = "openai-chat") -> HttpResponse:
    """Response 1 of the CRLF case as the provider serves it, streamed."""
    case = next(c.case for c in load_library().cases if c.case.id == CASE)
    provider = ScriptedProvider(case, get_wire(column))
    body = (
        b'{"model":"gpt-4.1","stream":true,"messages":[{"role":"user","content":"What port '
        b'does the server use?"}],"tools":[{"type":"function","function":{"name":"read_file",'
        b'"parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}]}'
    )
    return provider.handle(HttpRequest("POST", "/v1/chat/completions", body))


def test_the_provider_serves_the_scripted_framing() -> None:
    response = served()
    assert response.status == 200, response.body
    assert response.framed
    assert b"\r\n\r\n" in response.body
    assert b"\n\n" not in response.body
    assert len(response.chunks) > 10  # every line cut in two
    assert b"".join(response.chunks) == response.body


def handler(response: HttpResponse) -> Callable[[HttpRequest], HttpResponse]:
    return lambda request: response


def test_respx_hands_httpx_and_httpx2_clients_the_exact_reads() -> None:
    response = served()
    with intercept(handler(response), "http://provider.test"):
        with httpx.Client() as client, client.stream("POST", "http://provider.test/x") as got:
            assert tuple(got.iter_raw()) == response.chunks
        with httpx2.Client() as client2, client2.stream("POST", "http://provider.test/x") as got2:
            assert tuple(got2.iter_raw()) == response.chunks

        async def read_async() -> tuple[bytes, ...]:
            async with (
                httpx.AsyncClient() as client,
                client.stream("POST", "http://provider.test/x") as got,
            ):
                return tuple([piece async for piece in got.aiter_raw()])

        assert asyncio.run(read_async()) == response.chunks


def test_the_loopback_socket_carries_the_exact_bytes() -> None:
    response = served()
    with LoopbackServer(handler(response)) as server, httpx.Client(trust_env=False) as client:
        got = client.post(f"{server.base_url}/x", content=b"{}")
    assert got.content == response.body
