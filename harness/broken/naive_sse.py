"""Deliberately broken stream readers: the reference client with a naive SSE reader put
in front of it, as real clients shipped them.

* ``UnicodeLinesClient`` splits the stream with httpx's ``iter_lines()``, which breaks
  lines at every Unicode line boundary (U+2028, U+2029, U+0085, ...), not only at CR,
  LF and CRLF as the SSE spec says (florimondmanca/httpx-sse#34, Soju06/codex-lb#1010).
  An event whose data no longer parses is skipped, as those readers did: the turn goes
  on without it.
* ``LossyReadsClient`` decodes every network read on its own, replacing a character cut
  between two reads with U+FFFD (api7/aisix#111, spiceai/spiceai#12597).

Each must fail the framing case of its shape and pass the others.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx

from conformance._reference.adapter import ReferenceAdapter
from conformance._targets.api import Conversation
from conformance._targets.command import contract_environment
from conformance.agent.runner import hold, http_sender
from harness.clients.reference_client import ReferenceOverHttpx

Reader = Callable[[httpx.Response], bytes]


@dataclass(frozen=True)
class _Answer:
    """What ``http_sender`` reads of an answer, with the body as the naive reader saw it."""

    status_code: int
    headers: httpx.Headers
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class _StreamingPoster:
    """Posts as ``http_sender`` asks, but reads the answer through ``reader``."""

    client: httpx.Client
    reader: Reader

    def post(self, url: str, *, content: bytes, headers: Mapping[str, str]) -> _Answer:
        with self.client.stream("POST", url, content=content, headers=headers) as answer:
            return _Answer(answer.status_code, answer.headers, self.reader(answer))


def _event_stream(answer: httpx.Response) -> bool:
    return "event-stream" in answer.headers.get("content-type", "")


def unicode_lines(answer: httpx.Response) -> bytes:
    """Events rebuilt from ``iter_lines()``; one whose data is not JSON is dropped."""
    if not _event_stream(answer):
        return answer.read()
    events: list[list[str]] = [[]]
    for line in answer.iter_lines():
        if line:
            events[-1].append(line)
        elif events[-1]:
            events.append([])
    kept = [event for event in events if event and _parses(event)]
    return "".join("\n".join(event) + "\n\n" for event in kept).encode()


def _parses(event: list[str]) -> bool:
    data = "\n".join(line[5:].lstrip() for line in event if line.startswith("data:"))
    if not data or data == "[DONE]":
        return True
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def lossy_reads(answer: httpx.Response) -> bytes:
    """Each read decoded on its own, a cut character replaced with U+FFFD."""
    return "".join(
        piece.decode("utf-8", errors="replace") for piece in answer.iter_bytes()
    ).encode()


class _NaiveReaderClient(ReferenceOverHttpx):
    @staticmethod
    def read(answer: httpx.Response) -> bytes:
        """The body as this client's stream reader hands it on."""
        return answer.read()

    @staticmethod
    def http() -> AbstractContextManager[Any]:
        return _client()

    def run(self, conversation: Conversation) -> None:
        brief = conversation.brief
        environ = contract_environment(conversation.base_url, brief.wire, "")
        with self.http() as client:
            poster = _StreamingPoster(client, self.read)
            hold(ReferenceAdapter().open(brief), brief, http_sender(poster, brief, environ))


@contextmanager
def _client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30.0, trust_env=False) as client:
        yield client


class UnicodeLinesClient(_NaiveReaderClient):
    name: ClassVar[str] = "broken-unicode-lines"

    @staticmethod
    def read(answer: httpx.Response) -> bytes:
        return unicode_lines(answer)


class LossyReadsClient(_NaiveReaderClient):
    name: ClassVar[str] = "broken-lossy-reads"

    @staticmethod
    def read(answer: httpx.Response) -> bytes:
        return lossy_reads(answer)
