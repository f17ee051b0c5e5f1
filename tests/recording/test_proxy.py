"""The recording proxy, against local fake upstreams only: a stream reaches the client
while the upstream is still sending it, and drops and errors are recorded as such."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance._recording.load import load_recording, recording_files
from conformance._recording.proxy import ProxyServer, start_proxy
from conformance.wires._sse import format_event

pytestmark = pytest.mark.slow

BODY = json.dumps(
    {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "stream": True,
        "messages": [{"role": "user", "content": "hi"}],
    }
).encode()
START = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
}
EVENTS = [
    format_event(str(data["type"]), data)
    for data in (
        START,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Hello"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    )
]
KEY = "sk-ant-api03-" + "Q" * 60
#: The headers each fake upstream request arrived with.
SEEN: list[dict[str, str]] = []


@contextlib.contextmanager
def _upstream(serve: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            SEEN.append({k.lower(): v for k, v in self.headers.items()})
            serve(self)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def _proxy(upstream: str, out: Path) -> Iterator[ProxyServer]:
    server, _ = start_proxy(upstream, out)
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _stream_head(handler: BaseHTTPRequestHandler, status: int = 200) -> None:
    handler.send_response(status)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("connection", "close")
    handler.end_headers()


def _post(client: httpx.Client, base: str) -> httpx.Response:
    return client.post(f"{base}/v1/messages", content=BODY, headers={"x-api-key": KEY})


def test_the_first_event_reaches_the_client_before_the_upstream_sends_the_last(
    tmp_path: Path,
) -> None:
    first_seen = threading.Event()
    waited: list[bool] = []

    def serve(handler: BaseHTTPRequestHandler) -> None:
        _stream_head(handler)
        for event in EVENTS[:-1]:
            handler.wfile.write(event)
            handler.wfile.flush()
        # The last event waits until the client has the first one: were the proxy to
        # buffer the stream, the client would never see it and this wait would time out.
        waited.append(first_seen.wait(timeout=20))
        handler.wfile.write(EVENTS[-1])
        handler.wfile.flush()

    with (
        _upstream(serve) as upstream,
        _proxy(upstream, tmp_path) as proxy,
        httpx.Client(timeout=30) as client,
        client.stream(
            "POST", f"{proxy.base_url}/v1/messages", content=BODY, headers={"x-api-key": KEY}
        ) as response,
    ):
        received = b""
        for chunk in response.iter_raw():
            received += chunk
            if b"message_start" in received:
                first_seen.set()
    assert waited == [True]
    assert received == b"".join(EVENTS)
    assert SEEN[-1]["accept-encoding"] == "identity"  # never a compressed recording
    assert SEEN[-1]["x-api-key"] == KEY  # the upstream gets the credential; the file not
    (path,) = recording_files(tmp_path)
    recording = load_recording(path)  # loads: sanitized, digest intact
    exchange = recording.exchanges[0]
    assert exchange.request.headers["x-api-key"] == "[redacted]"
    assert KEY not in path.read_text(encoding="utf-8")
    assert exchange.response.body == b"".join(EVENTS)
    assert exchange.response.ended == "complete"
    assert len(exchange.response.chunks) >= 2  # as received, not one buffered body


def test_an_upstream_that_drops_mid_stream_is_recorded_dropped(tmp_path: Path) -> None:
    def serve(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("content-length", "100000")  # promised, never delivered
        handler.end_headers()
        handler.wfile.write(EVENTS[0])
        handler.wfile.flush()
        handler.close_connection = True

    with (
        _upstream(serve) as upstream,
        _proxy(upstream, tmp_path) as proxy,
        httpx.Client(timeout=30) as client,
        pytest.raises(httpx.HTTPError),
    ):
        _post(client, proxy.base_url).read()
    (path,) = recording_files(tmp_path)
    response = load_recording(path).exchanges[0].response
    assert response.ended == "dropped"
    assert response.reason is not None
    assert "mid-answer" in response.reason
    assert response.body == EVENTS[0]


def test_an_upstream_error_is_recorded_as_answered(tmp_path: Path) -> None:
    error = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'

    def serve(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(529)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(error)))
        handler.end_headers()
        handler.wfile.write(error)

    with (
        _upstream(serve) as upstream,
        _proxy(upstream, tmp_path) as proxy,
        httpx.Client(timeout=30) as client,
    ):
        answer = _post(client, proxy.base_url)
    assert answer.status_code == 529
    assert answer.content == error
    (path,) = recording_files(tmp_path)
    response = load_recording(path).exchanges[0].response
    assert (response.status, response.body, response.ended) == (529, error, "complete")


def test_an_unreachable_upstream_is_a_502_recorded_unreachable(tmp_path: Path) -> None:
    with _upstream(lambda handler: None) as upstream:
        pass  # closed: nothing listens there any more
    with _proxy(upstream, tmp_path) as proxy, httpx.Client(timeout=30) as client:
        answer = _post(client, proxy.base_url)
    assert answer.status_code == 502
    (path,) = recording_files(tmp_path)
    assert load_recording(path).exchanges[0].response.ended == "unreachable"


def test_record_refuses_a_listen_address_off_loopback(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance._cli import main

    code = main(
        ["record", "--upstream", "http://127.0.0.1:9", "--listen", "0.0.0.0:0", "--out", "x"]
    )
    assert code == 2
    assert "not loopback" in capsys.readouterr().out


def test_two_client_runs_sharing_a_first_message_are_two_recordings(tmp_path: Path) -> None:
    """Issue 25 item 13: `record` merged a second run of the same client (the same
    first message) into the first run's recording.  A request with a shorter history
    than the conversation's last starts a new one; a retry (as long) and the next turn
    (longer) do not."""
    import json

    from conformance._recording.proxy import Recorder
    from conformance.http import HttpRequest, HttpResponse

    def request(*turns: str) -> HttpRequest:
        roles = ("user", "assistant")
        messages = [{"role": roles[i % 2], "content": t} for i, t in enumerate(turns)]
        body = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": messages}
        return HttpRequest("POST", "/v1/messages", json.dumps(body).encode())

    answer = HttpResponse(200, b"{}", (("content-type", "application/json"),))
    recorder = Recorder(tmp_path, "https://api.anthropic.com")
    for turns in (("Hi",), ("Hi",), ("Hi", "Hello", "Bye"), ("Hi",), ("Hi", "Yo", "Bye")):
        recorder.add(request(*turns), answer, "complete", None)
    recorder.close()
    first, second = (load_recording(path) for path in recording_files(tmp_path))
    assert len(first.exchanges) == 3  # the first run: its retry and its next turn
    assert len(second.exchanges) == 2  # the second run, apart
