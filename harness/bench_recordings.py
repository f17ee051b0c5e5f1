"""Benchmarks of recorded fixtures (figures, never assertions).

    python -m harness.bench_recordings [--requests N] [--seconds S]

* recording overhead: ms per streamed request sent directly to a local fake upstream,
  and through the recording proxy in front of it (which also sanitizes and writes the
  exchange), on one keep-alive client; the difference is the proxy's cost;
* replay throughput: the shipped recordings replayed on the reference adapter
  (recordings per second, in-process).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from conformance._provider.loopback import LoopbackServer
from conformance._recording.load import bundled_recordings_dir, load_recording, recording_files
from conformance._recording.proxy import start_proxy
from conformance._recording.replay import replay_paths
from conformance._runner import RunOptions
from conformance._targets.resolve import resolve_target
from conformance.http import HttpRequest, HttpResponse
from harness.bench import rate

SAMPLE = (
    bundled_recordings_dir() / "anthropic-messages" / "interleaved-episodes-across-tool-loop.json"
)


def _upstream_answer() -> tuple[bytes, HttpResponse]:
    """A real-sized exchange: the first request and streamed answer of a shipped recording."""
    exchange = load_recording(SAMPLE).exchanges[0]
    return exchange.request.http().body, exchange.response.http()


def _per_request_ms(base: str, body: bytes, requests: int) -> list[float]:
    times: list[float] = []
    with httpx.Client(timeout=30) as client:
        for _ in range(requests + 5):
            start = time.perf_counter()
            answer = client.post(f"{base}/v1/messages", content=body)
            answer.read()
            times.append((time.perf_counter() - start) * 1000)
    return times[5:]  # the first few open connections and warm caches


def proxy_overhead(requests: int) -> tuple[float, float]:
    """Median ms per request: direct, and through the proxy."""
    body, response = _upstream_answer()

    def handler(request: HttpRequest) -> HttpResponse:
        return response

    with LoopbackServer(handler) as upstream, tempfile.TemporaryDirectory() as out:
        direct = statistics.median(_per_request_ms(upstream.base_url, body, requests))
        server, _ = start_proxy(upstream.base_url, Path(out))
        try:
            proxied = statistics.median(_per_request_ms(server.base_url, body, requests))
        finally:
            server.shutdown()
            server.server_close()
    return direct, proxied


def replay_rate(seconds: float) -> float:
    files = [(p, p.name) for p in recording_files(bundled_recordings_dir())]
    target = resolve_target("reference", None)
    return rate(lambda: len(replay_paths(files, target, RunOptions()).recordings), seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    direct, proxied = proxy_overhead(args.requests)
    print(
        f"recording proxy: {direct:.2f} ms/request direct, {proxied:.2f} ms through the proxy "
        f"(+{proxied - direct:.2f} ms, median of {args.requests})"
    )
    print(f"replay: {replay_rate(args.seconds):.1f} recordings/s on the reference (in-process)")


if __name__ == "__main__":
    main()
