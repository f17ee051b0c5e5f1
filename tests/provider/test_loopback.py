"""The loopback server: a real socket in front of a handler, and nothing left after."""

from __future__ import annotations

import http.client
import socket
import threading
from collections.abc import Iterator

import pytest

from conformance._provider.loopback import LoopbackServer
from conformance.http import HttpRequest, HttpResponse, json_response

EVENTS = (b"event: a\ndata: {}\n\n", b"event: b\ndata: {}\n\n", b"event: c\ndata: {}\n\n")


class Recorder:
    """Echoes what it received; fails on /boom."""

    def __init__(self) -> None:
        self.requests: list[HttpRequest] = []

    def __call__(self, request: HttpRequest) -> HttpResponse:
        self.requests.append(request)
        if request.path == "/boom":
            raise ValueError("scripted failure")
        return json_response(201, {"path": request.path, "body": request.body.decode()})


def connect(server: LoopbackServer) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)


def test_every_method_reaches_the_handler_with_path_query_headers_body() -> None:
    recorder = Recorder()
    methods = ["POST", "GET", "PUT", "DELETE", "PATCH", "OPTIONS"]
    with LoopbackServer(recorder) as server:
        assert server.base_url == f"http://127.0.0.1:{server.port}"
        connection = connect(server)
        for method in methods:
            connection.request(method, "/v1/x:y?alt=sse&k=1", body=b"{}", headers={"X-Key": "v"})
            response = connection.getresponse()
            assert response.status == 201
            assert response.read() == b'{"path":"/v1/x:y","body":"{}"}'
        connection.close()
    assert [r.method for r in recorder.requests] == methods
    first = recorder.requests[0]
    assert (first.path, first.query, first.body) == ("/v1/x:y", "alt=sse&k=1", b"{}")
    assert first.header("x-key") == "v"


def test_a_chunked_request_body_is_read_whole() -> None:
    recorder = Recorder()
    with LoopbackServer(recorder) as server:
        connection = connect(server)
        connection.request("POST", "/v1/messages", body=iter([b"ab", b"cde"]))
        assert connection.getresponse().read() == b'{"path":"/v1/messages","body":"abcde"}'
        connection.close()
    assert recorder.requests[0].body == b"abcde"


class GatedChunks(tuple[bytes, ...]):
    """Hands the server its next chunk only after the client has read the previous one,
    so a server that buffered the chunks before writing would never deliver any."""

    gate: threading.Semaphore

    def __iter__(self) -> Iterator[bytes]:
        for index, chunk in enumerate(super().__iter__()):
            if index and not self.gate.acquire(timeout=10):
                raise AssertionError("the client never received the previous chunk")
            yield chunk


def test_a_streamed_response_arrives_chunk_by_chunk() -> None:
    chunks = GatedChunks(EVENTS)
    chunks.gate = threading.Semaphore(0)
    headers = (("content-type", "text/event-stream"),)
    streamed = HttpResponse(200, b"".join(EVENTS), headers, chunks)
    with LoopbackServer(lambda request: streamed) as server:
        connection = connect(server)
        connection.request("POST", "/stream", body=b"{}")
        response = connection.getresponse()
        assert response.getheader("content-type") == "text/event-stream"
        assert response.getheader("content-length") == str(len(b"".join(EVENTS)))
        received = []
        for event in EVENTS:
            received.append(response.read(len(event)))
            chunks.gate.release()
        connection.close()
    assert received == list(EVENTS)


def test_two_requests_share_one_keep_alive_connection() -> None:
    recorder = Recorder()
    with LoopbackServer(recorder) as server:
        connection = connect(server)
        connection.request("POST", "/one", body=b"1")
        assert connection.getresponse().read() == b'{"path":"/one","body":"1"}'
        local = connection.sock.getsockname()
        connection.request("POST", "/two", body=b"2")
        assert connection.getresponse().read() == b'{"path":"/two","body":"2"}'
        assert connection.sock.getsockname() == local  # no reconnect happened
        connection.close()
    assert [r.path for r in recorder.requests] == ["/one", "/two"]


def test_a_handler_exception_is_a_500_and_the_server_keeps_serving() -> None:
    with LoopbackServer(Recorder()) as server:
        connection = connect(server)
        connection.request("POST", "/boom", body=b"{}")
        response = connection.getresponse()
        assert response.status == 500
        assert b"ValueError: scripted failure" in response.read()
        connection.request("POST", "/after", body=b"")
        assert connection.getresponse().status == 201
        connection.close()


def test_close_frees_the_port_and_is_idempotent() -> None:
    server = LoopbackServer(Recorder()).start()
    port = server.port
    idle = connect(server)
    idle.request("POST", "/idle", body=b"")
    idle.getresponse().read()  # a keep-alive connection left open by its client
    server.close()
    server.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    assert idle.sock.recv(1) == b""  # the server closed its side of the idle connection
    idle.close()


def test_base_url_needs_a_started_server() -> None:
    with pytest.raises(RuntimeError, match="not started"):
        _ = LoopbackServer(Recorder()).base_url


def test_nothing_is_logged(capfd: pytest.CaptureFixture[str]) -> None:
    with LoopbackServer(Recorder()) as server:
        connection = connect(server)
        connection.request("POST", "/boom", body=b"")
        connection.getresponse().read()
        connection.close()
    assert capfd.readouterr() == ("", "")
