"""The recording proxy: a reverse proxy on loopback in front of a provider.

The user points their client at it; each request is forwarded upstream, the answer is
streamed back as it arrives (each read from upstream is written and flushed to the
client before the next read: no buffering of a stream), and the exchange, sanitized, is
written to the conversation's recording file.  An upstream that drops the connection
mid-answer is recorded as ``dropped`` (and the client sees the same cut); one that cannot
be reached is answered 502 and recorded as ``unreachable``.

The server is the standard library's threaded HTTP/1.1 server, as for the loopback
provider (``conformance._provider.loopback``), with its request reading
(``conformance._provider.request_body``); the upstream client is httpx.

Conversations: requests whose body opens with the same first message (and system
prompt) on the same path belong to one conversation, one file, until one carries a
shorter history than the last (a second client run with the same first message: a new
conversation, ``routing.restarted``)
(``<out>/<wire>/<time>-<n>.json``, rewritten atomically by a writer thread after each
exchange, and once more when the proxy closes).
"""

from __future__ import annotations

import datetime
import json
import queue
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from conformance._paths import ArtefactStore
from conformance._provider.limits import MAX_BODY_BYTES
from conformance._provider.loopback import QuietHandler
from conformance._provider.request_body import read_body
from conformance._recording.clean import clean_exchange
from conformance._recording.file_format import (
    ANSWER_CAP_VARIABLE,
    MAX_ANSWER_MIB,
    MIB,
    Ending,
    Metadata,
    answer_cap_mib,
    digest_of_data,
    file_text,
    record_exchange,
)
from conformance._recording.routing import (
    conversation_key,
    dialect_of_host,
    history_length,
    model_of,
    restarted,
    wire_of,
)
from conformance._recording.sanitize import SANITIZER_VERSION, scrub_path
from conformance.errors import FramingError, UnsafePath
from conformance.http import HttpRequest, HttpResponse
from conformance.version import __version__
from conformance.wires._registry import get_wire

#: Hop-by-hop headers a proxy never forwards (RFC 9110 §7.6.1), plus the ones httpx
#: computes itself; ``accept-encoding`` is replaced by ``identity``.
HOP_HEADERS = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "te",
        "trailer",
        "upgrade",
        "host",
        "content-length",
        "accept-encoding",
    }
)


@dataclass
class Conversation:
    path: Path
    wire: str
    model: str | None
    recorded_at: str
    #: The exchanges as JSON data (dumped once each: a file rewrite stays cheap).
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    #: The history length of its last request (``routing.restarted``).
    length: int | None = None


_Pending = tuple[HttpRequest, HttpResponse, Ending, str | None]
#: Seconds between rewrites of a conversation file while its requests keep coming.
WRITE_INTERVAL = 0.5


class Recorder:
    """Collects exchanges into conversation files under ``out``.

    ``add`` only queues the exchange: a writer thread sanitizes it and rewrites its
    conversation's file (atomically) off the request path, so recording adds nothing to
    the answer's latency.  ``close`` writes what is still queued."""

    def __init__(
        self, out: Path, source: str, redact_text: bool = False, dialect: str | None = None
    ) -> None:
        self.out = out
        self.store = ArtefactStore(out)
        self.source = source
        self.redact_text = redact_text
        #: The dialect of an upstream whose wire has dialects (a Chat router's or vendor's
        #: fields).
        self.dialect = dialect
        self._lock = threading.Lock()
        #: The conversation each key last opened; every conversation, in order.
        self._conversations: dict[str, Conversation] = {}
        self._all: list[Conversation] = []
        self._stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
        self._queue: queue.Queue[_Pending | None] = queue.Queue()
        self._writer = threading.Thread(target=self._drain, name="recording-writer", daemon=True)
        self._writer.start()
        #: One line per answer streamed to the client but not recorded (above the cap, or
        #: a file the store refused to place).
        self.refused: list[str] = []

    def refuse(self, request: HttpRequest, size: int, cap_mib: int) -> None:
        """Say, at once and at the end, that an answer above the cap was not recorded."""
        where = f"{request.method} {scrub_path(request.path)}"  # a path may hold a key
        line = (
            f"wire-conformance record: {where}: the answer passed {size} bytes, above the "
            f"{cap_mib} MiB cap on a recorded answer (set "
            f"{ANSWER_CAP_VARIABLE}=<MiB> to raise it): streamed to the client, not recorded"
        )
        self._say(line)

    def _say(self, line: str) -> None:
        """One line now on stderr, and again in ``refused`` for the closing summary."""
        with self._lock:
            self.refused.append(line)
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    @property
    def files(self) -> list[Path]:
        with self._lock:
            return [c.path for c in self._all]

    def add(
        self, request: HttpRequest, response: HttpResponse, ended: Ending, reason: str | None
    ) -> None:
        """Queue one exchange.  A request to no wire's endpoint is forwarded, not recorded."""
        self._queue.put((request, response, ended, reason))

    def close(self) -> None:
        """Write every queued exchange and stop the writer.  Idempotent."""
        if self._writer.is_alive():
            self._queue.put(None)
            self._writer.join()

    def _drain(self) -> None:
        """Record queued exchanges; rewrite a changed file at most every
        ``WRITE_INTERVAL`` seconds while requests keep coming, at once when they stop,
        and on close."""
        dirty: dict[str, Conversation] = {}
        written = time.monotonic()
        while True:
            try:
                item: _Pending | str | None = self._queue.get(timeout=WRITE_INTERVAL)
            except queue.Empty:
                item = "idle"
            if isinstance(item, tuple):
                conversation = self._record(*item)
                if conversation is not None:
                    dirty[str(conversation.path)] = conversation
            due = time.monotonic() - written >= WRITE_INTERVAL
            if dirty and (item is None or item == "idle" or due):
                for conversation in dirty.values():
                    self._write(conversation)
                dirty.clear()
                written = time.monotonic()
            if item is None:
                return

    def _record(
        self, request: HttpRequest, response: HttpResponse, ended: Ending, reason: str | None
    ) -> Conversation | None:
        wire = wire_of(request)
        if wire is None:
            return None
        key = conversation_key(request)
        length = history_length(request)
        try:
            conversation = self._conversation(request, wire, key, length)
        except UnsafePath as error:  # a wire named to leave ``out``, a link out of it
            self._say(f"wire-conformance record: {error}: not recorded")
            return None
        exchange = record_exchange(
            len(conversation.exchanges) + 1, request, response, ended, reason
        )
        cleaned = clean_exchange(exchange, self.redact_text)
        conversation.exchanges.append(cleaned.model_dump(mode="json"))
        return conversation

    def _conversation(
        self, request: HttpRequest, wire: str, key: str, length: int | None
    ) -> Conversation:
        """The conversation ``request`` continues, or a new one placed by the store."""
        with self._lock:
            conversation = self._conversations.get(key)
            if conversation is None or restarted(conversation.length, length):
                number = len(self._all) + 1
                path = self.store.file(wire, f"{self._stamp}-{number:03d}.json")
                now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
                conversation = Conversation(path, wire, model_of(request), now)
                self._conversations[key] = conversation
                self._all.append(conversation)
            conversation.length = length
            return conversation

    def _write(self, conversation: Conversation) -> None:
        metadata = Metadata(
            format_version=1,
            wire=conversation.wire,
            dialect=self.dialect if get_wire(conversation.wire).dialects else None,
            model=conversation.model,
            recorded_at=conversation.recorded_at,
            suite_version=__version__,
            sanitizer_version=SANITIZER_VERSION,
            synthetic=False,
            redacted_text=self.redact_text,
            source=self.source,
        )
        digest = digest_of_data(conversation.exchanges)
        text = file_text(metadata, conversation.exchanges, digest)
        try:
            self.store.write(conversation.path, text)
        except UnsafePath as error:  # a link placed under ``out`` since: not followed
            self._say(f"wire-conformance record: {error}: not recorded")


class _ProxyHandler(QuietHandler):
    server: ProxyServer

    def _request(self) -> HttpRequest | None:
        headers = dict(self.headers.items())
        path, _, query = self.path.partition("?")
        try:
            body = read_body(self.rfile, headers, MAX_BODY_BYTES)
        except FramingError as error:
            self.close_connection = True
            self.send_error(400, f"wire-conformance record: {error}")
            return None
        return HttpRequest(self.command, path, body.data, query, headers)

    def serve_any(self) -> None:
        request = self._request()
        if request is None:
            return
        chunks: list[bytes] = []
        status: int = 502
        headers: tuple[tuple[str, str], ...] = ()
        cap = self.server.max_answer_mib * MIB
        size = 0  # bytes streamed; above the cap ``chunks`` is let go

        recorded: list[Ending] = []

        def record(ended: Ending, reason: str | None = None) -> None:
            if recorded:  # once per exchange, however it ends
                return
            recorded.append(ended)
            if size > cap:
                self.server.recorder.refuse(request, size, self.server.max_answer_mib)
                return
            response = HttpResponse(status, b"".join(chunks), headers, tuple(chunks))
            self.server.recorder.add(request, response, ended, reason)

        try:
            with self.server.client.stream(
                request.method,
                self.server.upstream + request.path,
                params=httpx.QueryParams(request.query),
                headers=[
                    *((k, v) for k, v in request.headers.items() if k.lower() not in HOP_HEADERS),
                    # The recording keeps the bytes as the provider framed them, never a
                    # compressed body: replay and the checks read them.
                    ("accept-encoding", "identity"),
                ],
                content=request.body,
            ) as upstream:
                status = upstream.status_code
                headers = tuple(
                    (k, v) for k, v in upstream.headers.items() if k.lower() not in HOP_HEADERS
                )
                self._start(status, headers)
                try:
                    for chunk in _reads(upstream):
                        size += len(chunk)
                        if size <= cap:
                            chunks.append(chunk)
                        elif chunks:
                            chunks.clear()  # memory stays bounded: only the count goes on
                        self._send(chunk)
                except httpx.HTTPError as error:
                    self.close_connection = True  # the client sees the same cut
                    record("dropped", f"the upstream ended mid-answer: {error!r}")
                    return
                record("complete")
                self._send(b"")
        except httpx.HTTPError as error:
            if chunks or status != 502:
                raise
            reason = f"the upstream could not be reached: {error!r}"
            chunks = [json.dumps({"error": {"message": reason}}).encode()]
            headers = (("content-type", "application/json"),)
            record("unreachable", reason)
            self._start(502, headers)
            self._send(chunks[0])
            self._send(b"")
        except OSError:  # the client went away: what was received is still recorded
            self.close_connection = True
            record("dropped", "the client closed the connection mid-answer")

    def _start(self, status: int, headers: tuple[tuple[str, str], ...]) -> None:
        self.send_response_only(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _send(self, chunk: bytes) -> None:
        """One chunk of chunked encoding, flushed at once (``b""`` ends the body)."""
        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.flush()


def _reads(response: httpx.Response) -> Iterator[bytes]:
    """The body as the socket delivered it (no decoding, no re-chunking)."""
    for chunk in response.iter_raw():
        if chunk:
            yield chunk


class ProxyServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(
        self,
        listen: tuple[str, int],
        upstream: str,
        recorder: Recorder,
        max_answer_mib: int = MAX_ANSWER_MIB,
    ) -> None:
        super().__init__(listen, _ProxyHandler)
        self.upstream = upstream.rstrip("/")
        self.recorder = recorder
        self.max_answer_mib = max_answer_mib
        self.client = httpx.Client(timeout=httpx.Timeout(600.0, connect=10.0))

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Silent: a client that hangs up is recorded as such."""

    def server_close(self) -> None:
        super().server_close()
        self.client.close()
        self.recorder.close()

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


def start_proxy(
    upstream: str,
    out: Path,
    listen: tuple[str, int] = ("127.0.0.1", 0),
    redact_text: bool = False,
    dialect: str | None = None,
    max_answer_mib: int | None = None,
) -> tuple[ProxyServer, threading.Thread]:
    """A proxy serving in a background thread; ``shutdown()`` and ``server_close()`` end
    it.  ``dialect`` defaults to the one the upstream's host says (``routing.dialect_of_host``);
    ``max_answer_mib`` to ``model.answer_cap_mib()`` (a ``ValueError`` names a bad
    setting)."""
    url = httpx.URL(upstream)
    host = url.host
    dialect = dialect or dialect_of_host(host, url.port)
    cap = answer_cap_mib() if max_answer_mib is None else max_answer_mib
    recorder = Recorder(out, f"recorded through {host}", redact_text, dialect)
    server = ProxyServer(listen, upstream, recorder, cap)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    return server, thread
