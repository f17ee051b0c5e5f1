"""Cases already proven valid, on disk, keyed by the SHA-256 of each file's bytes and by
what validated them.

Parsing YAML and validating the document are the whole cost of loading a case.  A case
that validated once is stored as the validated object, under a key naming everything
validation depends on (the source of the modules that define the schema, the suite,
pydantic and Python versions, and the vocabulary of features and wires).  A file whose
bytes or key differ is a miss: it is parsed and validated as without a cache, so a miss
gives the same case or the same located errors, and a stale cache can cost speed but
never change a case.  Files that do not validate are never stored.

The store is a pickle (the fastest way back to the objects), so it is read only when the
current user owns it and no one else may write it: otherwise it is ignored and replaced.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import platform
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pydantic

from conformance.cases.schema import Case
from conformance.version import __version__

#: Bumped whenever the stored shape changes: old caches are then ignored.
CACHE_VERSION = 2


@dataclass(frozen=True)
class Cached:
    """A case the cache held for the exact bytes and key asked about."""

    case: Case


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
    modules.add("conformance.cases.validate")
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

    def read(self, directory: Path, key: str) -> dict[str, tuple[str, Case]]:
        """The stored cases of ``directory`` (file name -> digest and case) validated
        under ``key``; none when absent, unreadable, of another key, or not safely ours."""
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

    def write(self, directory: Path, key: str, entries: dict[str, tuple[str, Case]]) -> None:
        """Replace the stored cases of ``directory``; failing to write only costs speed."""
        target = self._file_for(directory)
        if target is None:
            return
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")  # mode 0600
            with os.fdopen(fd, "wb") as handle:
                pickle.dump({"key": key, "entries": entries}, handle, pickle.HIGHEST_PROTOCOL)
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
        self._seen: dict[str, tuple[str, Case]] = {}

    def hit(self, name: str, digest: str) -> Cached | None:
        """The stored case of file ``name`` if it was validated from these very bytes."""
        entry = self._stored.get(name)
        if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == digest:
            case = entry[1]
            if isinstance(case, Case):
                return Cached(case)
        return None

    def remember(self, name: str, digest: str, case: Case) -> None:
        """Keep the validated case of file ``name`` (loaded, or taken from the cache)."""
        self._seen[name] = (digest, case)

    def save(self) -> None:
        """Write what this load proved, when it differs from what was stored."""
        stored = {name: entry[0] for name, entry in self._stored.items()}
        if {name: entry[0] for name, entry in self._seen.items()} != stored:
            self._cache.write(self._directory, self.key, self._seen)
