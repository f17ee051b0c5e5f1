"""Hostile traffic for ``record``, through the recording proxy from a loopback upstream
only (never a provider):

    python -m harness.hostile_recording answer MIB OUT   # one MIB-MiB streamed answer
    python -m harness.hostile_recording secrets OUT      # secrets in every position

``answer`` streams one answer of MIB MiB (16 KB text deltas) through the proxy and prints
the time, this process's peak RSS and the file written (none above the answer cap).
``secrets`` sends requests and answers carrying generated keys in the places the
sanitizer used to miss (issue 24), then searches every written file for each secret in
every form (raw, URL-escaped, base64, inside a gzip body) and loads each file: it prints
how many it found, which must be 0.  ``harness.hostile`` runs both and reports their
figures.
"""

from __future__ import annotations

import base64
import gzip
import json
import resource
import sys
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import httpx

from conformance._recording.blob import from_blob
from conformance._recording.load import load_recording, recording_files
from conformance._recording.proxy import start_proxy
from conformance._recording.sanitize import decoded_body
from conformance.errors import RecordingError
from conformance.wires._sse import format_event

#: Generated, never real: shaped like each provider's keys and tokens.
SECRETS = {
    "anthropic": "sk-ant-api03-" + "Hx7Qp2Lm9Vt4" * 6,
    "openai": "sk-proj-" + "Zr8Kc3Wn6Yb1" * 3,
    "google": "AIzaSy" + "Dk4Mf7Pq2Rs" * 3,
    "oauth": "ya29.a0AfH6SM" + "Bx5Nv8Cz3" * 5,
    "groq": "gsk_" + "Tg6Hj9Kl2" * 4,
}
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


def _events(deltas: int, text: str) -> list[bytes]:
    delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}}
    head = [
        format_event("message_start", START),
        format_event(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        ),
    ]
    body = format_event("content_block_delta", {**delta, "delta": {**delta["delta"], "text": text}})  # type: ignore[dict-item]
    tail = [
        format_event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        format_event(
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        ),
        format_event("message_stop", {"type": "message_stop"}),
    ]
    return head + [body] * deltas + tail


def sse_upstream(
    answer: Callable[[], Iterable[bytes]], headers: list[tuple[str, str]]
) -> tuple[ThreadingHTTPServer, str]:
    """A loopback upstream answering every POST with the SSE events ``answer`` yields
    (chunked, written as they come: a generator keeps a huge answer out of memory)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            for name, value in [("content-type", "text/event-stream"), *headers]:
                self.send_header(name, value)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for event in answer():
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


BODY = {"model": "claude-sonnet-4-5", "max_tokens": 64, "stream": True}


def record_answer(mib: int, out: Path) -> None:
    """One ``mib``-MiB streamed answer through the proxy: time, peak RSS, file."""
    text = "y" * 16_000
    deltas = mib * 1024 * 1024 // len(_events(1, text)[2])
    upstream, url = sse_upstream(lambda: _events(deltas, text), [])
    started = time.monotonic()
    proxy, _ = start_proxy(url, out)
    body = json.dumps({**BODY, "messages": [{"role": "user", "content": "hi"}]})
    received = 0
    with (
        httpx.Client(timeout=600) as client,
        client.stream("POST", f"{proxy.base_url}/v1/messages", content=body) as answer,
    ):
        for chunk in answer.iter_raw():
            received += len(chunk)
    proxy.shutdown()
    proxy.server_close()
    upstream.shutdown()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    files = [f"{p.name} ({p.stat().st_size} bytes)" for p in proxy.recorder.files]
    print(
        f"streamed {received} bytes in {time.monotonic() - started:.1f} s, peak RSS "
        f"{peak} MiB; written: {', '.join(files) or 'nothing'}; refused: "
        f"{len(proxy.recorder.refused)}"
    )


def _leaky_requests() -> list[tuple[str, dict[str, str], bytes]]:
    """(query, headers, body) of each request, a secret placed where it used to leak."""
    key, oauth, google = SECRETS["anthropic"], SECRETS["oauth"], SECRETS["google"]
    plain = json.dumps({**BODY, "messages": [{"role": "user", "content": "hi"}]}).encode()

    def with_message(extra: dict[str, str]) -> bytes:
        message = {"role": "user", "content": "hi", **extra}
        return json.dumps({**BODY, "messages": [message]}).encode()

    encoded = base64.b64encode(f"me:{SECRETS['openai']}".encode()).decode()
    return [
        ("", {"x-custom-auth": key, "x-debug-token": oauth}, plain),
        ("", {"x-trace": f"Bearer {SECRETS['groq']}"}, with_message({"data": f"Bearer {key}"})),
        ("", {}, with_message({"id": key})),
        (f"auth=Bearer%20{key}&alt=sse", {}, with_message({"note": "x"})),
        (f"auth=Bearer+{google}", {}, with_message({"note": "y"})),
        ("", {"content-encoding": "gzip"}, gzip.compress(with_message({"note": key}))),
        ("", {"x-forwarded": encoded}, with_message({"note": encoded})),
    ]


def _forms(secret: str) -> list[bytes]:
    return [secret.encode(), quote(secret).encode(), base64.b64encode(secret.encode())]


def record_secrets(out: Path) -> None:
    """Secrets in every position through the proxy; prints how many reached disk."""
    answer_text = f"your key {SECRETS['google']} and token {SECRETS['oauth']}"
    headers = [("x-debug-token", SECRETS["anthropic"]), ("x-echo", f"key={SECRETS['groq']}")]
    upstream, url = sse_upstream(lambda: _events(2, answer_text), headers)
    proxy, _ = start_proxy(url, out)
    with httpx.Client(timeout=60) as client:
        for number, (query, extra, body) in enumerate(_leaky_requests()):
            target = f"{proxy.base_url}/v1/messages" + (f"?{query}" if query else "")
            # a first message of its own: one conversation (one file) per request
            client.post(target, content=body, headers={"x-request": str(number), **extra})
    proxy.shutdown()
    proxy.server_close()
    upstream.shutdown()
    found: list[str] = []
    for path in recording_files(out):
        text = path.read_bytes()
        found += [
            f"{path.name}: {name}" for name, s in SECRETS.items() for f in _forms(s) if f in text
        ]
        try:
            recording = load_recording(path)
        except RecordingError as error:
            found.append(f"refused by the loader: {error}")
            continue
        for exchange in recording.exchanges:
            plain = decoded_body(from_blob(exchange.request.body), exchange.request.headers)
            found += [f"{path.name}: {n} (gzip)" for n, s in SECRETS.items() if s.encode() in plain]
    files = len(recording_files(out))
    print(f"{files} recording(s) written; secrets on disk: {len(found)}")
    for line in found:
        print(f"    {line}")


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "answer":
        record_answer(int(argv[1]), Path(argv[2]))
        return 0
    if len(argv) == 2 and argv[0] == "secrets":
        record_secrets(Path(argv[1]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
