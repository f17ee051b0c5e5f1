"""The recording file format, version 1: one JSON file per conversation.

A recording holds the ordered exchanges of one conversation exactly as they crossed the
wire (each request's method, path, query, headers and body; each response's status,
headers and body as the chunks it arrived in), the metadata that says what it is (wire,
dialect, model, when, which suite and sanitizer wrote it, synthetic or real), and a
digest over the exchanges, so an edit after recording is found instead of trusted.
``wire-conformance recording --schema`` prints the JSON Schema; docs/recordings.md
describes every field.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from conformance._recording.blob import Blob, from_blob, to_blob
from conformance.http import HttpRequest, HttpResponse
from conformance.vocabulary import StrictModel

FORMAT_VERSION = 1

MIB = 1024 * 1024
#: The largest answer ``record`` keeps, in MiB.  A streamed answer is held whole while it
#: is cleaned and written (about eight times its size at the peak), so a runaway stream
#: is streamed on to the client but not recorded.  A real answer is a few MiB at most.
MAX_ANSWER_MIB = 64
#: The largest recording file read, in MiB, sized before it is read: a file is parsed
#: whole (a replay peaks at about eleven times its size: the answers are also decoded,
#: served and read back by the target).  A long real conversation, every
#: request carrying the history so far, stays far below it.
MAX_RECORDING_MIB = 256
ANSWER_CAP_VARIABLE = "WIRE_CONFORMANCE_MAX_ANSWER_MIB"
RECORDING_CAP_VARIABLE = "WIRE_CONFORMANCE_MAX_RECORDING_MIB"


def cap_mib(variable: str, default: int) -> int:
    """A size cap in MiB: ``default``, or the environment ``variable`` that raises it."""
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{variable}={raw!r}: give a whole number of MiB (at least 1)")
    return int(raw)


def answer_cap_mib() -> int:
    return cap_mib(ANSWER_CAP_VARIABLE, MAX_ANSWER_MIB)


def recording_cap_mib() -> int:
    return cap_mib(RECORDING_CAP_VARIABLE, MAX_RECORDING_MIB)


#: How a recorded response ended: in full, cut by the upstream mid-body (the client saw
#: the same cut), or never answered (the upstream could not be reached; the proxy
#: answered 502).
Ending = Literal["complete", "dropped", "unreachable"]


class Metadata(StrictModel):
    """What the recording is."""

    format_version: Literal[1] = Field(description="The recording format's version.")
    wire: str = Field(description="The wire spoken: anthropic-messages, openai-chat, ...")
    dialect: str | None = Field(default=None, description="The wire's dialect, if any.")
    model: str | None = Field(default=None, description="The model the first request named.")
    recorded_at: str = Field(description="When the recording was made (ISO 8601, UTC).")
    suite_version: str = Field(description="The wire-conformance version that wrote it.")
    sanitizer_version: int = Field(ge=1, description="The sanitizer that cleaned it.")
    synthetic: bool = Field(
        description="True when generated from the documented event shapes, not recorded "
        "from a provider."
    )
    redacted_text: bool = Field(
        default=False, description="Visible text replaced by same-length placeholders."
    )
    source: str = Field(
        min_length=1, description="How it was made: the upstream host, or the generator."
    )
    origin: str | None = Field(
        default=None,
        description="Where the recorded bytes were taken from, when not recorded here: the "
        "public file (repository, commit, path) of an imported cassette or HAR.",
    )
    license: str | None = Field(
        default=None, description="The license of the bytes, when they come from elsewhere."
    )
    edits: str | None = Field(
        default=None,
        description="What was changed after recording, if anything (say, media payloads "
        "replaced by placeholders); the bytes are otherwise as recorded.",
    )

    @property
    def column(self) -> str:
        return self.wire if self.dialect is None else f"{self.wire}:{self.dialect}"


class RecordedRequest(StrictModel):
    method: str = Field(min_length=1)
    path: str = Field(pattern=r"^/")
    query: str = ""
    headers: dict[str, str] = Field(default_factory=dict)
    body: Blob = ""

    def http(self) -> HttpRequest:
        return HttpRequest(self.method, self.path, from_blob(self.body), self.query, self.headers)


class RecordedResponse(StrictModel):
    status: Annotated[int, Field(ge=100, le=599)]
    headers: tuple[tuple[str, str], ...] = ()
    chunks: tuple[Blob, ...] = Field(
        default=(), description="The body as it arrived, split where each read ended."
    )
    ended: Ending = "complete"
    reason: str | None = Field(default=None, description="Why it ended early, if it did.")

    @model_validator(mode="after")
    def _reasoned(self) -> RecordedResponse:
        if self.ended != "complete" and not self.reason:
            raise ValueError(f"a response that ended {self.ended!r} says why in `reason`")
        return self

    @property
    def body(self) -> bytes:
        return b"".join(from_blob(c) for c in self.chunks)

    def http(self) -> HttpResponse:
        chunks = tuple(from_blob(c) for c in self.chunks)
        return HttpResponse(self.status, b"".join(chunks), self.headers, chunks)


class RecordedExchange(StrictModel):
    number: Annotated[int, Field(ge=1)]
    request: RecordedRequest
    response: RecordedResponse


class Recording(StrictModel):
    """One conversation."""

    metadata: Metadata
    exchanges: tuple[RecordedExchange, ...] = Field(min_length=1)
    digest: str = Field(
        pattern=r"^sha256:[0-9a-f]{64}$",
        description="sha256 of the exchanges' canonical JSON: an edit after recording "
        "does not load.",
    )

    @model_validator(mode="after")
    def _ordered(self) -> Recording:
        for index, exchange in enumerate(self.exchanges):
            if exchange.number != index + 1:
                raise ValueError(
                    f"exchanges.{index}: number {exchange.number} where {index + 1} was due: "
                    "exchanges are numbered 1, 2, ... in the order they happened (a "
                    "reordered, duplicated or cut recording)"
                )
        return self

    def to_json(self) -> str:
        """Deterministic text: the file a recorder writes."""
        exchanges = [e.model_dump(mode="json") for e in self.exchanges]
        return file_text(self.metadata, exchanges, self.digest)


def _compact(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


#: Metadata fields a recording made here leaves out: written only when they say something.
_OPTIONAL_METADATA = ("origin", "license", "edits")


def _metadata_data(metadata: Metadata) -> dict[str, Any]:
    unset = {name for name in _OPTIONAL_METADATA if getattr(metadata, name) is None}
    return metadata.model_dump(mode="json", exclude=unset)


def file_text(metadata: Metadata, exchanges: Sequence[dict[str, Any]], digest: str) -> str:
    """A recording's text: the metadata, then one exchange per line, then the digest (one
    line each keeps a file readable and diffable, and fast to write however long)."""
    lines = ",\n  ".join(_compact(e) for e in exchanges)
    return (
        f'{{\n "metadata": {_compact(_metadata_data(metadata))},\n'
        f' "exchanges": [\n  {lines}\n ],\n "digest": {_compact(digest)}\n}}\n'
    )


def digest_of_data(exchanges: Sequence[dict[str, Any]]) -> str:
    """The digest over exchanges already dumped to JSON data."""
    canonical = json.dumps(exchanges, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def digest_of(exchanges: Sequence[RecordedExchange]) -> str:
    """The digest a recording carries over its exchanges."""
    return digest_of_data([e.model_dump(mode="json") for e in exchanges])


def build_recording(metadata: Metadata, exchanges: Sequence[RecordedExchange]) -> Recording:
    """A recording with its digest computed."""
    return Recording(metadata=metadata, exchanges=tuple(exchanges), digest=digest_of(exchanges))


def record_exchange(
    number: int,
    request: HttpRequest,
    response: HttpResponse,
    ended: Ending = "complete",
    reason: str | None = None,
) -> RecordedExchange:
    """One exchange of raw HTTP records, as the file keeps it."""
    chunks = response.chunks or ((response.body,) if response.body else ())
    return RecordedExchange(
        number=number,
        request=RecordedRequest(
            method=request.method,
            path=request.path,
            query=request.query,
            headers=dict(request.headers),
            body=to_blob(request.body),
        ),
        response=RecordedResponse(
            status=response.status,
            headers=tuple(response.headers),
            chunks=tuple(to_blob(c) for c in chunks),
            ended=ended,
            reason=reason,
        ),
    )
