"""Vendor real recordings into the test suite: the bytes kept, media payloads trimmed.

``python -m harness.vendor_traffic SRC DEST --origin TEXT --license TEXT`` copies every
recording under SRC to DEST (same folders and names).  The recorded conversation bytes
stay as they were (opaque reasoning payloads, ids, text, stream framing), except media:
a base64 image, audio, video or document payload (and a downloaded binary body) is
replaced by a short placeholder naming the original's length and hash.  The same
original always gets the same placeholder, so a payload a client sends back still
matches the one it was served.  A JSON document or SSE event that holds no media keeps
its exact bytes; one that does is written back compactly.  Each file says what was done
in ``metadata.edits`` and where its bytes came from in ``metadata.origin`` and
``metadata.license``; its digest is computed again.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from conformance._recording.blob import from_blob, to_blob
from conformance._recording.file_format import (
    Metadata,
    RecordedExchange,
    Recording,
    build_recording,
)
from conformance._recording.load import load_recording, recording_files

#: Keys whose string values hold media payloads (base64 or data: URLs) on some wire.
MEDIA_KEYS = frozenset(
    {"data", "image_url", "url", "file_data", "result", "b64_json", "partial_image_b64", "audio"}
)
#: A payload shorter than this is left alone: a placeholder would save nothing.
MINIMUM = 2048
#: Bodies that are not JSON or SSE text (a downloaded image) and are longer than this.
BINARY_MINIMUM = 4096

EDIT_NOTE = (
    "media payloads (base64 images, audio, video, documents and downloaded files) over "
    f"{MINIMUM} bytes replaced by placeholders naming their length and sha256; "
    "everything else as recorded"
)


def _placeholder(value: str) -> str:
    digest = hashlib.sha256(value.encode("utf-8")).hexdigest()[:16]
    note = f"[media trimmed: {len(value)} chars, sha256 {digest}]"
    if value.startswith("data:"):
        kind = value.split(",", 1)[0]
        return f"{kind},{base64.b64encode(note.encode()).decode()}"
    return base64.b64encode(note.encode()).decode()


def _looks_media(value: str) -> bool:
    if value.startswith("data:") and ";base64," in value[:100]:
        return True
    return re.fullmatch(r"[A-Za-z0-9+/=_\-\s]+", value[:4096]) is not None


def _trim(data: Any) -> tuple[Any, bool]:
    """``data`` with its media payloads replaced; whether any was."""
    changed = False
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for key, value in data.items():
            if (
                key in MEDIA_KEYS
                and isinstance(value, str)
                and len(value) > MINIMUM
                and _looks_media(value)
            ):
                out[key] = _placeholder(value)
                changed = True
            else:
                out[key], moved = _trim(value)
                changed = changed or moved
        return out, changed
    if isinstance(data, list):
        items = [_trim(item) for item in data]
        return [item for item, _ in items], any(moved for _, moved in items)
    return data, False


def _compact(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _trim_json_text(text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return text
    trimmed, changed = _trim(data)
    return _compact(trimmed) if changed else text


def _trim_event(text: str) -> str:
    """One chunk of a body: an SSE event's ``data:`` lines, or a whole JSON body."""
    if not re.search(r"^data:", text, re.M):
        return _trim_json_text(text)
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.startswith("data:"):
            payload = line[5:].lstrip(" ")
            trimmed = _trim_json_text(payload)
            if trimmed is not payload and trimmed != payload:
                lines[index] = "data: " + trimmed
    return "\n".join(lines)


def _binary_placeholder(data: bytes) -> bytes:
    digest = hashlib.sha256(data).hexdigest()[:16]
    return f"[binary body trimmed: {len(data)} bytes, sha256 {digest}]".encode()


def _trim_chunks(chunks: tuple[Any, ...]) -> tuple[Any, ...]:
    """A response body's chunks: an SSE stream event by event (each chunk is one
    event, and each keeps its bytes unless it holds media), a JSON body as a whole (its
    reads may cut it anywhere), and any other body over ``BINARY_MINIMUM`` bytes (a
    downloaded file) as a placeholder."""
    body = b"".join(from_blob(c) for c in chunks)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and re.search(r"^data:", text, re.M):
        events = (_trim_event(from_blob(c).decode("utf-8", "surrogateescape")) for c in chunks)
        return tuple(to_blob(e.encode("utf-8", "surrogateescape")) for e in events)
    if text is not None:
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        else:
            trimmed, changed = _trim(data)
            return (_compact(trimmed),) if changed else chunks
    if len(body) <= BINARY_MINIMUM:
        return chunks
    return (to_blob(_binary_placeholder(body)),)


def vendored(recording: Recording, origin: str, license_text: str) -> Recording:
    exchanges: list[RecordedExchange] = []
    for exchange in recording.exchanges:
        request = exchange.request
        body = from_blob(request.body)
        try:
            request_text = _trim_json_text(body.decode("utf-8")) if body else ""
        except UnicodeDecodeError:
            request_text = None
        new_request = request.model_copy(
            update={"body": request.body if request_text is None else request_text}
        )
        chunks = _trim_chunks(exchange.response.chunks)
        new_response = exchange.response.model_copy(update={"chunks": chunks})
        exchanges.append(
            exchange.model_copy(update={"request": new_request, "response": new_response})
        )
    source = recording.metadata.source
    meta: Metadata = recording.metadata.model_copy(
        update={
            "origin": f"{origin}: {source}",
            "license": license_text,
            "edits": EDIT_NOTE,
        }
    )
    # Round-trip through validation so the written file loads.
    rebuilt = build_recording(meta, exchanges)
    return Recording.model_validate(json.loads(rebuilt.to_json()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.vendor_traffic")
    parser.add_argument("src", type=Path)
    parser.add_argument("dest", type=Path)
    parser.add_argument("--origin", required=True)
    parser.add_argument("--license", required=True)
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=1_000_000,
        help="leave out a file still larger than this once trimmed (named on stdout)",
    )
    args = parser.parse_args(argv)
    before = after = 0
    for path in recording_files(args.src):
        recording = vendored(load_recording(path), args.origin, args.license)
        text = recording.to_json()
        size = len(text.encode("utf-8"))
        shown = path.relative_to(args.src).as_posix()
        if size > args.max_bytes:
            sys.stdout.write(f"left out {shown}: {size} bytes once trimmed\n")
            continue
        out = args.dest / path.relative_to(args.src)
        out.parent.mkdir(parents=True, exist_ok=True)
        before += path.stat().st_size
        after += size
        out.write_text(text, encoding="utf-8")
    sys.stdout.write(f"vendored {before} bytes as {after} bytes into {args.dest}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
