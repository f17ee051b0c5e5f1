"""A real HTTP server on 127.0.0.1 in front of a request handler.

Black-box targets (commands in any language, clients that cannot be patched) must meet
the scripted provider over a real socket.  The server is the standard library's threaded
HTTP/1.1 server: keep-alive with ``Content-Length``, streamed bodies flushed chunk by
chunk the way an SSE server flushes events, and every method handed to the handler.
It never logs, and ``close`` leaves nothing listening and no connection open.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from conformance._provider.limits import MAX_BODY_BYTES
from conformance._provider.request_body import read_body
from conformance.errors import FramingError
from conformance.http import HttpRequest, HttpResponse, json_response

Handler = Callable[[HttpRequest], HttpResponse]

#: Response headers the server computes itself from the body it writes.
_FRAMING_HEADERS = frozenset({"content-length", "transfer-encoding", "connection"})


def answer(handler: Handler, request: HttpRequest) -> HttpResponse:
    """The handler's response, or a 500 naming the error: a broken handler must show up
    as a visible answer to the target, never as a dead transport."""
    try:
        return handler(request)
    except Exception as error:
        message = f"conformance handler failed: {type(error).__name__}: {error}"
        return json_response(500, {"error": {"message": message}})


class QuietHandler(BaseHTTPRequestHandler):
    """A handler for a loopback server: every method goes to ``serve_any``, no access
    log, and each write reaches the client at once."""

    protocol_version = "HTTP/1.1"

    def __getattr__(self, name: str) -> Callable[[], None]:
        # BaseHTTPRequestHandler dispatches to ``do_<METHOD>``: serve them all.
        if name.startswith("do_"):
            return self.serve_any
        raise AttributeError(name)

    def serve_any(self) -> None:
        raise NotImplementedError

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the suite's output is its report, not an access log."""

    def setup(self) -> None:
        super().setup()
        # One write per SSE event reaches the client at once, as a provider flushes it;
        # with Nagle's algorithm each event waits for the previous one's ACK.
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _LineWatch:
    """``rfile`` while the headers are read: notes whether a read met the end of the
    stream (a connection closed before the blank line that ends the headers)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.ended = False

    def readline(self, limit: int = -1) -> bytes:
        line: bytes = self._stream.readline(limit)
        if not line:
            self.ended = True
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _RequestHandler(QuietHandler):
    """Hands every request, whatever its method, to the server's handler."""

    server: _Server

    def parse_request(self) -> bool:
        """A request whose headers never finished (the client stopped sending, and the
        connection was closed when the cell timed out) is no request: it never reaches
        the handler, whose record would otherwise show an empty body and judge it
        "not valid JSON", hiding the timeout the cell reports."""
        stream = self.rfile
        watch = _LineWatch(stream)
        setattr(self, "rfile", watch)  # noqa: B010 (a stand-in, not a BufferedIOBase)
        # Counted from its request line (an ``Expect: 100-continue`` is answered in
        # here); ``serve_any`` ends the count of a request it answers.
        self.server.answering(+1)
        parsed = False
        try:
            parsed = super().parse_request()
        finally:
            self.rfile = stream
            if not parsed or watch.ended:
                self.server.answering(-1)
        if parsed and watch.ended:
            self.close_connection = True
            return False
        return parsed

    def _request(self) -> HttpRequest:
        """The request off the socket; a body whose framing is malformed is named in
        ``framing`` (the connection then closes: where the next request starts is lost)."""
        headers = dict(self.headers.items())
        path, _, query = self.path.partition("?")
        try:
            body = read_body(self.rfile, headers, MAX_BODY_BYTES)
        except FramingError as error:
            self.close_connection = True
            return HttpRequest(self.command, path, b"", query, headers, framing=str(error))
        return HttpRequest(self.command, path, body.data, query, headers, dropped=body.dropped)

    def serve_any(self) -> None:
        try:
            self._serve()
        finally:
            self.server.answering(-1)

    def _serve(self) -> None:
        response = answer(self.server.handler, self._request())
        self.send_response(response.status)
        for name, value in response.headers:
            if name.lower() not in _FRAMING_HEADERS:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command == "HEAD":
            return
        for chunk in response.chunks or (response.body,):
            self.wfile.write(chunk)
            self.wfile.flush()


class _Server(ThreadingHTTPServer):
    """Tracks open connections so that closing the server also closes them."""

    daemon_threads = True
    block_on_close = True  # server_close joins the connection threads
    #: Pending connections the kernel queues: parallel runs (``-j``) and clients that
    #: open a pool of connections at once must not be reset.
    request_queue_size = 256

    def __init__(self, handler: Handler) -> None:
        super().__init__(("127.0.0.1", 0), _RequestHandler)
        self.handler = handler
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        #: Requests read and not yet fully answered (``LoopbackServer.settled``).
        self.in_flight = 0
        self._idle = threading.Condition(self._lock)
        self._closing = False

    def answering(self, step: int) -> None:
        with self._idle:
            self.in_flight += step
            if not self.in_flight:
                self._idle.notify_all()

    def settled(self, wait: float) -> bool:
        """Whether no request is being answered, waiting up to ``wait`` s for the last
        to finish (the client may read an answer's last byte before its thread is done)."""
        with self._idle:
            return self._idle.wait_for(lambda: not self.in_flight, wait)

    def serve_until_closed(self) -> None:
        """Accept connections until ``wake_to_close``: a blocking ``accept``, so closing
        costs no polling interval (``serve_forever`` polls for its shutdown flag)."""
        while True:
            try:
                request, address = self.get_request()
            except OSError:
                return
            if self._closing:
                with contextlib.suppress(OSError):
                    request.close()
                return
            try:
                self.process_request(request, address)
            except Exception:
                self.shutdown_request(request)

    def wake_to_close(self) -> None:
        """Stop ``serve_until_closed``: flag it, then wake its ``accept`` with a
        connection of our own."""
        self._closing = True
        host, port = self.server_address[:2]
        with contextlib.suppress(OSError), socket.create_connection((str(host), int(port)), 1):
            pass

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Silent: a client that hangs up mid-answer is the target's business."""

    def drop_connections(self) -> None:
        """Wake every connection thread blocked on a keep-alive read, so it ends."""
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class LoopbackServer:
    """Serves ``handler`` on ``127.0.0.1`` at an ephemeral port while open.

    Use as a context manager; ``base_url`` is ``http://127.0.0.1:<port>``.
    """

    def __init__(self, handler: Handler) -> None:
        self._handler = handler
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> LoopbackServer:
        if self._server is None:
            self._server = _Server(self._handler)
            self._thread = threading.Thread(
                target=self._server.serve_until_closed,
                name=f"conformance-loopback-{self.port}",
                daemon=True,
            )
            self._thread.start()
        return self

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the loopback server is not started")
        return int(self._server.server_address[1])

    def settled(self, wait: float) -> bool:
        """Whether no request is being answered (read, its answer not yet all written),
        waiting up to ``wait`` s for one to finish: a command that says it is done while
        one is has left its conversation running."""
        return self._server is None or self._server.settled(wait)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        """Stop serving, close the listening socket and every connection, join the
        threads.  Idempotent."""
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        self._server = self._thread = None
        server.wake_to_close()
        thread.join()
        server.drop_connections()
        server.server_close()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
