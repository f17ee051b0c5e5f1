"""Read a recording file: every problem is one located error, and a recording that
still holds a secret, or was edited after it was written, is refused.  Nothing here
writes: a recording is never rewritten in place."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import ValidationError

from conformance._recording.clean import secrets_in
from conformance._recording.file_format import (
    MIB,
    RECORDING_CAP_VARIABLE,
    Recording,
    digest_of,
    recording_cap_mib,
)
from conformance.errors import RecordingError
from conformance.wires._nesting import too_deep
from conformance.wires._registry import columns

#: What a recording file is called.
SUFFIX = ".json"


def _location(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "top level"


def parse_recording(text: str, path: Path) -> Recording:
    """A recording from its text; ``path`` only names it in errors."""
    deep = too_deep(text)
    if deep is not None:  # the parser would end in a RecursionError
        raise RecordingError(path, "top level", deep)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        at = f"line {error.lineno} column {error.colno}"
        raise RecordingError(path, at, f"not JSON ({error.msg}): a cut or damaged file") from None
    try:
        recording = Recording.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
        raise RecordingError(path, _location(first["loc"]), first["msg"] + more) from None
    if recording.metadata.column not in columns():
        raise RecordingError(
            path,
            "metadata.wire",
            f"unknown wire {recording.metadata.column}; known: {', '.join(columns())}",
        )
    if digest_of(recording.exchanges) != recording.digest:
        raise RecordingError(
            path,
            "digest",
            "the exchanges do not match the digest: the file was edited after it was "
            "recorded (re-record it, or make a case of it with `recording to-case`)",
        )
    leaked = secrets_in(recording.exchanges)
    if leaked:
        raise RecordingError(
            path,
            leaked[0],
            "holds a credential: refused (record again through the sanitizer; "
            f"{len(leaked)} place(s))",
        )
    return recording


def load_recording(path: Path) -> Recording:
    """A recording file, sized before it is read: one above the cap is refused unread."""
    if path.is_symlink() and not path.exists():
        try:
            to = os.readlink(path)
        except OSError:
            to = "?"
        raise RecordingError(path, "file", f"a link to {to!r}, which does not exist or loops")
    try:
        cap = recording_cap_mib()
    except ValueError as error:
        raise RecordingError(path, "file", str(error)) from None
    try:
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            raw = b"" if size > cap * MIB else stream.read(cap * MIB + 1)
    except OSError as error:
        raise RecordingError(path, "file", error.strerror or str(error)) from None
    size = max(size, len(raw))
    if size > cap * MIB:
        raise RecordingError(
            path,
            "file",
            f"{size} bytes, above the {cap} MiB cap on a recording file "
            f"(set {RECORDING_CAP_VARIABLE}=<MiB> to raise it)",
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RecordingError(path, f"byte {error.start}", "not UTF-8 text") from None
    return parse_recording(text, path)


def bundled_recordings_dir() -> Path:
    """The synthetic recordings that ship with the suite (``recordings/``)."""
    from conformance._cases.library import bundled_cases_dir

    return bundled_cases_dir().parent / "recordings"


def recording_files(directory: Path) -> list[Path]:
    """The recording files of a directory (recursively), sorted; a file path is itself.
    A link that leads nowhere is listed too, so that loading it names it as an error
    instead of the recording silently going missing from the replay or the audit."""
    if directory.is_file():
        return [directory]
    return sorted(p for p in directory.rglob(f"*{SUFFIX}") if p.is_file() or p.is_symlink())
