"""``wire-conformance recording import``: other people's cassettes as the suite's
recordings.

Each cassette's interactions (``conformance._recording.cassette``) are placed on a wire
and dialect by host and path (``conformance._recording.routing``, the wires' own
``serves``: one source with the recording proxy); an exchange with another host, or with
an endpoint that is not a conversation (token counting, files, model lists, images), is
skipped and counted by why.  The rest are grouped into conversations the way the proxy
groups them, cleaned by the same sanitizer, and written one file per conversation, each
checked by loading it back (``parse_recording``) before it is written.

What an import changes, each said in the recording's ``metadata.edits``: a response body
is cut into one chunk per SSE event (a cassette keeps the body whole, not where each read
ended); a gzip or deflate body is decoded; request headers other than the few that say
what the request is (``KEPT_REQUEST_HEADERS``) are dropped, and so are response headers
other than ``KEPT_RESPONSE_HEADERS``; a provider's real path is filed under the one the
suite serves; ``recorded_at`` is the first response's date, or ``PLACEHOLDER_DATE``.

Deterministic: the same cassettes give the same file names and bytes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from conformance._paths import ArtefactStore, file_name
from conformance._recording.cassette import Interaction, is_cassette_name, read_cassette, stem
from conformance._recording.clean import clean_exchange
from conformance._recording.file_format import (
    Metadata,
    RecordedExchange,
    build_recording,
    record_exchange,
)
from conformance._recording.load import parse_recording
from conformance._recording.routing import (
    Placement,
    conversation_key,
    history_length,
    model_of,
    place,
    restarted,
)
from conformance._recording.sanitize import SANITIZER_VERSION
from conformance.errors import CassetteError, RecordingError, UnsafePath
from conformance.http import HttpRequest, HttpResponse
from conformance.version import __version__
from conformance.wires._sse import event_pieces, looks_streamed

#: Request headers an imported exchange keeps: what the body is, and the API version and
#: beta features it asks for (the wires' rules read them).  The rest (user agents, SDK
#: telemetry, credentials) says nothing about the conversation.
KEPT_REQUEST_HEADERS = frozenset(
    {"content-type", "anthropic-version", "anthropic-beta", "openai-beta"}
)
#: Response headers kept: the body's type, and what tells a client whether to retry.
KEPT_RESPONSE_HEADERS = frozenset(
    {"content-type", "retry-after", "retry-after-ms", "x-should-retry"}
)
#: ``recorded_at`` of a conversation whose cassette says no date (vcrpy keeps the
#: response's ``Date`` header only when the cassette keeps headers).
PLACEHOLDER_DATE = "1970-01-01T00:00:00+00:00"

_EDIT_TEXTS = {
    "sse": "response bodies split into one chunk per SSE event: the cassette keeps no read "
    "boundaries",
    "gzip": "gzip-encoded response bodies decoded",
    "deflate": "deflate-encoded response bodies decoded",
    "parsed_body": "bodies the cassette kept as parsed JSON written out again as compact JSON "
    "(not the bytes sent)",
    "headers": "request headers other than content-type, anthropic-version, anthropic-beta "
    "and openai-beta dropped, and response headers other than content-type and the retry "
    "headers",
    "sse_type": "content-type: text/event-stream added to stream bodies the cassette kept "
    "without a content-type",
}


@dataclass
class Summary:
    """What an import did: files written, exchanges skipped (by why), files failed."""

    cassettes: int = 0
    written: list[tuple[Path, int]] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    not_cassettes: list[Path] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"wrote {path} ({count} exchange(s))" for path, count in self.written]
        out.append(
            f"imported {len(self.written)} conversation(s) from {self.cassettes} cassette(s)"
        )
        if self.skipped:
            out.append(f"skipped {sum(self.skipped.values())} exchange(s):")
            out += [f"  {n:4d}  {why}" for why, n in sorted(self.skipped.items())]
        if self.not_cassettes:
            out.append(f"passed over {len(self.not_cassettes)} file(s) that hold no cassette")
        if self.failed:
            out.append(f"{len(self.failed)} file(s) failed:")
            out += [f"  {line}" for line in self.failed]
        return out


@dataclass
class _Conversation:
    placement: Placement
    host: str
    exchanges: list[RecordedExchange] = field(default_factory=list)
    model: str | None = None
    when: str | None = None
    edits: set[str] = field(default_factory=set)
    rewritten: set[str] = field(default_factory=set)
    #: The history length of its last request (``routing.restarted``).
    length: int | None = None


def cassette_files(source: Path) -> list[tuple[Path, Path]]:
    """``(file, name)`` for each cassette ``source`` names: itself, or every file under it
    with a cassette's suffix, sorted; ``name`` is the file's path below ``source``."""
    if source.is_file():
        return [(source, Path(source.name))]
    found = [p for p in source.rglob("*") if p.is_file() and is_cassette_name(p)]
    return [(p, p.relative_to(source)) for p in sorted(found)]


def import_cassettes(
    sources: Sequence[Path],
    out: Path,
    origin: str | None = None,
    license: str | None = None,
    dialect: str | None = None,
) -> Summary:
    """Import every cassette ``sources`` name into ``out``; see the module docstring."""
    summary = Summary()
    taken: set[Path] = set()
    for source in sources:
        for path, name in cassette_files(source):
            _import_one(path, name, source.is_file(), out, origin, license, dialect, summary, taken)
    return summary


def _import_one(
    path: Path,
    name: Path,
    named: bool,
    out: Path,
    origin: str | None,
    license: str | None,
    dialect: str | None,
    summary: Summary,
    taken: set[Path],
) -> None:
    try:
        cassette = read_cassette(path)
    except CassetteError as error:
        summary.failed.append(str(error))
        return
    if cassette is None:
        if named:
            summary.failed.append(f"{path}: top level: holds no `interactions` and no HAR `log`")
        else:
            summary.not_cassettes.append(path)
        return
    summary.cassettes += 1
    skipped: Counter[str] = Counter()
    conversations = _conversations(cassette.interactions, dialect, skipped)
    shown = f"{origin} {path.as_posix()}" if origin else path.as_posix()
    files: list[tuple[Path, str, int]] = []
    for number, conversation in enumerate(conversations, start=1):
        try:
            target = _file_name(out, conversation.placement.wire, name, number, len(conversations))
        except UnsafePath as error:  # a link under ``out`` pointing out of it
            summary.failed.append(f"{path}: {error}")
            return
        while target in taken:
            target = target.with_name(target.stem + "-again.json")
        text = _text(conversation, shown, license)
        try:
            parse_recording(text, target)
        except RecordingError as error:
            summary.failed.append(f"{path}: conversation {number}: {error.at}: {error.message}")
            return
        files.append((target, text, len(conversation.exchanges)))
    for target, text, count in files:
        taken.add(target)
        ArtefactStore(out).write(target, text)
        summary.written.append((target, count))
    summary.skipped.update(skipped)


def _conversations(
    interactions: Sequence[Interaction], dialect: str | None, skipped: Counter[str]
) -> list[_Conversation]:
    by_key: dict[tuple[str, ...], _Conversation] = {}
    every: list[_Conversation] = []
    for interaction in interactions:
        url = urlsplit(interaction.url)
        host, port = (url.hostname or "").lower(), url.port
        request = HttpRequest(
            interaction.method,
            url.path or "/",
            interaction.request_body,
            url.query,
            _kept(interaction.request_headers, KEPT_REQUEST_HEADERS),
        )
        placement = place(request, host, port, dialect)
        if isinstance(placement, str):
            skipped[f"not a conversation: {placement}"] += 1
            continue
        if not request.body.strip():
            # a cassette filtered out (or never kept) what was sent: nothing to judge
            skipped[f"the cassette kept no request body: {request.method} {host}{url.path}"] += 1
            continue
        request = HttpRequest(
            request.method, placement.path, request.body, request.query, request.headers
        )
        source = host if port is None else f"{host}:{port}"
        key = (placement.wire, placement.dialect or "", source, conversation_key(request))
        conversation = by_key.get(key)
        length = history_length(request)
        if conversation is None or restarted(conversation.length, length):
            conversation = _Conversation(placement, source, model=model_of(request))
            conversation.when = interaction.when
            by_key[key] = conversation
            every.append(conversation)
        conversation.length = length
        if placement.path != url.path:
            conversation.rewritten.add(f"path {url.path} filed as {placement.path}")
        conversation.exchanges.append(
            _exchange(len(conversation.exchanges) + 1, request, interaction, conversation.edits)
        )
    return every


def _kept(headers: Sequence[tuple[str, str]], kept: frozenset[str]) -> dict[str, str]:
    """The kept headers, named in lower case as the recording proxy writes them (a
    repeated one joined with ``, ``, as HTTP folds it)."""
    out: dict[str, str] = {}
    for name, value in headers:
        name = name.lower()
        if name in kept:
            out[name] = f"{out[name]}, {value}" if name in out else value
    return out


def _exchange(
    number: int, request: HttpRequest, interaction: Interaction, edits: set[str]
) -> RecordedExchange:
    headers = tuple(_kept(interaction.response_headers, KEPT_RESPONSE_HEADERS).items())
    body = interaction.response_body
    streamed = _is_event_stream(headers, body)
    if streamed and not any(k.lower() == "content-type" for k, _ in headers):
        # A cassette that filtered every header out: a client reads the body by its type.
        headers = (*headers, ("content-type", "text/event-stream"))
        edits.add("sse_type")
    chunks = event_pieces(body) if streamed else ((body,) if body else ())
    if len(chunks) > 1:
        edits.add("sse")
    edits.update(interaction.changed)
    edits.add("headers")
    response = HttpResponse(interaction.status, body, headers, chunks)
    return clean_exchange(record_exchange(number, request, response))


def _is_event_stream(headers: Sequence[tuple[str, str]], body: bytes) -> bool:
    """Whether the body is an SSE stream: its type says so, or it reads as one (SSE
    lines, not JSON), whatever type the cassette gives it."""
    if any(k.lower() == "content-type" and "event-stream" in v for k, v in headers):
        return True
    if body.lstrip().startswith((b"[", b"{")):
        return False
    return looks_streamed(body)


def _text(conversation: _Conversation, origin: str, license: str | None) -> str:
    edits = [_EDIT_TEXTS[e] for e in _EDIT_TEXTS if e in conversation.edits]
    edits += sorted(conversation.rewritten)
    if conversation.when is None:
        edits.append(
            f"recorded_at is a placeholder ({PLACEHOLDER_DATE}): the cassette says no date"
        )
    else:
        edits.append(
            "recorded_at is the first exchange's date as the cassette has it (the response's "
            "Date header, or a HAR entry's startedDateTime)"
        )
    placement = conversation.placement
    metadata = Metadata(
        format_version=1,
        wire=placement.wire,
        dialect=placement.dialect,
        model=conversation.model,
        recorded_at=conversation.when or PLACEHOLDER_DATE,
        suite_version=__version__,
        sanitizer_version=SANITIZER_VERSION,
        synthetic=False,
        source=conversation.host,
        origin=origin,
        license=license,
        edits="; ".join(edits),
    )
    return build_recording(metadata, conversation.exchanges).to_json()


def _file_name(out: Path, wire: str, name: Path, number: int, count: int) -> Path:
    """``out/<wire>/<the cassette's path below its source, suffixes off>[-<n>].json``,
    placed by the one store (``_paths.ArtefactStore``: no part can leave ``out``)."""
    parts = [file_name(part, "_") for part in name.parent.parts]
    base = file_name(stem(name), "cassette")
    if count > 1:
        base += f"-{number}"
    return ArtefactStore(out).file(wire, *parts, base + ".json")
