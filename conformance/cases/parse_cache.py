"""Parsed case documents on disk, keyed by the SHA-256 of each file's bytes.

Parsing YAML is the slow part of loading; validation always runs on what comes out of
the cache, so a stale cache can cost speed but never change a verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Bumped whenever the stored document shape changes: old caches are then ignored.
CACHE_VERSION = 1


@dataclass(frozen=True)
class Cached:
    """A document the cache held for the exact bytes asked about."""

    data: Any


class ParseCache:
    """One JSON file per case directory, rewritten atomically when it changed, so several
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
        return self.root / f"{digest}.json"

    def read(self, directory: Path) -> dict[str, Any]:
        """The stored entries of ``directory`` (none when absent or unreadable)."""
        target = self._file_for(directory)
        if target is None:
            return {}
        try:
            with open(target, "rb") as handle:
                stored = json.load(handle)
        except (OSError, ValueError):
            return {}
        return stored if isinstance(stored, dict) else {}

    def write(self, directory: Path, entries: dict[str, Any]) -> None:
        """Replace the stored entries of ``directory``; failing to write only costs speed."""
        target = self._file_for(directory)
        if target is None:
            return
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(entries, handle, separators=(",", ":"))  # key order is data
            os.replace(tmp, target)
        except OSError:
            pass

    def directory(self, directory: Path) -> DirectoryCache:
        """The cache of one directory, for one load of it."""
        return DirectoryCache(self, directory)


class DirectoryCache:
    """One directory's documents during one load: what was stored, and what this load saw
    (which replaces the stored entries, so deleted files leave the cache)."""

    def __init__(self, cache: ParseCache, directory: Path) -> None:
        self._cache = cache
        self._directory = directory
        self._stored = cache.read(directory)
        self._seen: dict[str, Any] = {}

    def hit(self, name: str, digest: str) -> Cached | None:
        """The stored document of file ``name`` if it was parsed from these very bytes."""
        entry = self._stored.get(name)
        if isinstance(entry, dict) and entry.get("sha256") == digest:
            return Cached(entry["data"])
        return None

    def remember(self, name: str, digest: str, data: Any) -> None:
        """Keep the document of file ``name`` (parsed, or taken from the cache)."""
        self._seen[name] = {"sha256": digest, "data": data}

    def save(self) -> None:
        """Write what this load saw, when it differs from what was stored."""
        if self._seen != self._stored:
            self._cache.write(self._directory, self._seen)
