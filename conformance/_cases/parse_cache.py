"""Cases already proven valid, on disk, keyed by the SHA-256 of each file's bytes and by
what validated them.

Parsing YAML and validating the document are the whole cost of loading a case.  A case
that validated once is stored as the validated object, under a key naming everything
validation depends on (the source of the modules that define the schema, the suite,
pydantic and Python versions, and the vocabulary of features and wires).  A file whose
bytes or key differ is a miss: it is parsed and validated as without a cache, so a miss
gives the same case or the same located errors, and a stale cache can cost speed but
never change a case.  Files that do not validate are never stored.

A warm load need not even read an unchanged file: each entry also keeps the file's
``stat`` signature (device, inode, size, modification and change times), and a file
whose signature is the stored one is taken without reading or hashing it.  A signature
is stored only once the file's times are ``RACY_SECONDS`` old: an edit within the same
tick of the file system's clock keeps the size and times, so a recently changed file is
always read and hashed (as git treats a "racily clean" index entry).  The change time
cannot be set back by a user, so an edit after that moves it.

The store is a pickle (the fastest way back to the objects), so it is read only when the
current user owns it and no one else may write it: otherwise it is ignored and replaced.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import platform
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pydantic

from conformance._cases.schema import Case
from conformance.version import __version__

#: Bumped whenever the stored shape changes: old caches are then ignored.
CACHE_VERSION = 3

#: How old (seconds) a file's modification and change times must be before its ``stat``
#: signature vouches for its bytes: coarser than any file system's clock tick (FAT: 2 s).
RACY_SECONDS = 3

#: What identifies a file's bytes without reading them: device, inode, size, and the
#: modification and change times in nanoseconds.
Signature = tuple[int, int, int, int, int]


def signature(status: os.stat_result) -> Signature | None:
    """The ``stat`` signature of a regular file, or ``None`` when its times are too
    recent for it to vouch for the bytes (another edit could still keep them)."""
    if not stat.S_ISREG(status.st_mode):
        return None
    recent = time.time_ns() - RACY_SECONDS * 1_000_000_000
    if max(status.st_mtime_ns, status.st_ctime_ns) >= recent:
        return None
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


@dataclass(frozen=True)
class Cached:
    """A case the cache held for the exact bytes and key asked about."""

    case: Case


#: One stored file: its signature (if it was old enough), its bytes' digest, its case.
Entry = tuple[Signature | None, str, Case]


def _model_modules(schema: Any) -> Iterator[str]:
    """The modules of every model class a pydantic core schema refers to."""
    if isinstance(schema, dict):
        cls = schema.get("cls")
        if isinstance(cls, type):
            yield cls.__module__
        for value in schema.values():
            yield from _model_modules(value)
    elif isinstance(schema, list | tuple):
        for value in schema:
            yield from _model_modules(value)


@cache
def schema_fingerprint() -> str:
    """A digest of what a validated case depends on besides its bytes: the source of
    every module defining a model of the case schema (so an edited validator in a source
    checkout is a miss), this module and the validation step, and the versions of the
    suite, pydantic and Python (the stored objects' layout)."""
    modules = {*_model_modules(Case.__pydantic_core_schema__), __name__}
    modules.add("conformance._cases.validate")
    digest = hashlib.sha256()
    for name in (__version__, pydantic.VERSION, platform.python_version(), str(CACHE_VERSION)):
        digest.update(name.encode() + b"\0")
    for name in sorted(modules):
        digest.update(name.encode() + b"\0")
        source = getattr(sys.modules.get(name), "__file__", None)
        try:
            digest.update(Path(source).read_bytes() if source else b"")
        except OSError:
            digest.update(b"unreadable")
    return digest.hexdigest()


class ParseCache:
    """One file per case directory, rewritten atomically when it changed, so several
    processes (pytest-xdist workers) can share it.  ``root=None`` caches nothing."""

    def __init__(self, root: Path | None) -> None:
        self.root = root

    @staticmethod
    def default_root() -> Path | None:
        """``$XDG_CACHE_HOME/wire-conformance`` (else ``~/.cache``); ``None`` when
        ``WIRE_CONFORMANCE_NO_CACHE`` is set."""
        if os.environ.get("WIRE_CONFORMANCE_NO_CACHE"):
            return None
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
        return Path(base) / "wire-conformance" / f"parsed-v{CACHE_VERSION}"

    def _file_for(self, directory: Path) -> Path | None:
        if self.root is None:
            return None
        digest = hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:24]
        return self.root / f"{digest}.pickle"

    def read(self, directory: Path, key: str) -> dict[str, Entry]:
        """The stored cases of ``directory`` (file name -> signature, digest and case)
        validated under ``key``; none when absent, unreadable, of another key, or not
        safely ours."""
        target = self._file_for(directory)
        if target is None:
            return {}
        try:
            with open(target, "rb") as handle:
                status = os.fstat(handle.fileno())
                if status.st_uid != os.getuid() or status.st_mode & 0o022:
                    return {}  # another user could have written it: never unpickled
                stored = pickle.load(handle)
        except Exception:  # any unreadable store (truncated, of old classes) is a miss
            return {}
        if not isinstance(stored, dict) or stored.get("key") != key:
            return {}
        entries = stored.get("entries")
        return entries if isinstance(entries, dict) else {}

    def write(self, directory: Path, key: str, entries: dict[str, Entry]) -> None:
        """Replace the stored cases of ``directory``; failing to write only costs speed."""
        target = self._file_for(directory)
        if target is None:
            return
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")  # mode 0600
            with os.fdopen(fd, "wb") as handle:
                stored = {"key": key, "entries": entries}
                _ModelPickler(handle, pickle.HIGHEST_PROTOCOL).dump(stored)
            os.replace(tmp, target)
        except (OSError, pickle.PicklingError):
            pass

    def directory(self, directory: Path, vocabulary_key: str) -> DirectoryCache:
        """The cache of one directory, for one load of it under one vocabulary."""
        return DirectoryCache(self, directory, f"{schema_fingerprint()}:{vocabulary_key}")


class DirectoryCache:
    """One directory's cases during one load: what was stored, and what this load proved
    (which replaces the stored entries, so deleted and broken files leave the cache)."""

    def __init__(self, cache: ParseCache, directory: Path, key: str) -> None:
        self._cache = cache
        self._directory = directory
        self.key = key
        self._stored = cache.read(directory, key)
        self._seen: dict[str, Entry] = {}

    def _entry(self, name: str) -> Entry | None:
        entry = self._stored.get(name)
        if isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[2], Case):
            return entry
        return None

    def unchanged(self, name: str, status: os.stat_result) -> Cached | None:
        """The stored case of file ``name`` if ``status`` proves its bytes are the ones
        validated (an old enough signature, equal to the stored one): nothing is read.
        The case is remembered as proven again."""
        entry = self._entry(name)
        if entry is None or entry[0] is None or signature(status) != entry[0]:
            return None
        self._seen[name] = entry
        return Cached(entry[2])

    def hit(self, name: str, digest: str) -> Cached | None:
        """The stored case of file ``name`` if it was validated from these very bytes."""
        entry = self._entry(name)
        return Cached(entry[2]) if entry is not None and entry[1] == digest else None

    def remember(self, name: str, status: os.stat_result, digest: str, case: Case) -> None:
        """Keep the validated case of file ``name`` (loaded, or taken from the cache),
        read from bytes of this ``status`` and digest."""
        self._seen[name] = (signature(status), digest, case)

    def save(self) -> None:
        """Write what this load proved, when it differs from what was stored (a file
        changed, left, or became old enough for its signature to be kept)."""
        stored = {name: entry[:2] for name, entry in self._stored.items()}
        if {name: entry[:2] for name, entry in self._seen.items()} != stored:
            self._cache.write(self._directory, self.key, self._seen)


_new_object = object.__new__
_set_slot = object.__setattr__


def _model(
    cls: type[pydantic.BaseModel],
    values: dict[str, Any],
    fields_set: set[str],
    extra: dict[str, Any] | None,
    private: dict[str, Any] | None,
) -> pydantic.BaseModel:
    """A stored model back, as pydantic's ``__setstate__`` rebuilds it (the same four
    slots), in one call instead of two: most of a warm load is rebuilding models."""
    model = _new_object(cls)
    _set_slot(model, "__dict__", values)
    _set_slot(model, "__pydantic_fields_set__", fields_set)
    _set_slot(model, "__pydantic_extra__", extra)
    _set_slot(model, "__pydantic_private__", private)
    return model


class _ModelPickler(pickle.Pickler):
    """Stores pydantic models as a call of ``_model`` with pydantic's own pickled state."""

    def reducer_override(self, obj: Any) -> Any:
        if not isinstance(obj, pydantic.BaseModel):
            return NotImplemented
        state = obj.__getstate__()
        return _model, (
            type(obj),
            state["__dict__"],
            state["__pydantic_fields_set__"],
            state["__pydantic_extra__"],
            state["__pydantic_private__"],
        )
