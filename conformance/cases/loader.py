"""Load case files: every good file becomes a ``Case``; every bad one becomes one clear
``CaseError`` naming its file, line and field, and never stops the others from loading.

Parsing YAML is the slow part of loading, so parsed documents are cached on disk by the
SHA-256 of the file's bytes (``parse_cache``); validation always runs.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from conformance.cases.schema import Case
from conformance.cases.yamlfile import Positions, YamlError, parse

CACHE_VERSION = 1


@dataclass(frozen=True)
class CaseError:
    """Why one case file could not be loaded."""

    file: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


@dataclass(frozen=True)
class LoadedCase:
    case: Case
    file: str


@dataclass(frozen=True)
class CaseSet:
    """The cases that loaded, sorted by id, and the errors of those that did not."""

    cases: tuple[LoadedCase, ...]
    errors: tuple[CaseError, ...]

    def by_id(self) -> dict[str, LoadedCase]:
        return {loaded.case.id: loaded for loaded in self.cases}


@dataclass(frozen=True)
class Vocabulary:
    """What the loader validates names against: features, and wires with their dialects."""

    features: frozenset[str]
    wires: Mapping[str, tuple[str, ...]]

    def context(self) -> dict[str, Any]:
        return {"features": self.features, "wires": self.wires}


def _field_path(loc: Sequence[str | int], data: Any) -> tuple[tuple[str | int, ...], str]:
    """Map a pydantic error location onto the document: drop union tags that are not keys
    of the data, and render the path as ``given.turns[0].user``."""
    kept: list[str | int] = []
    node = data
    for i, part in enumerate(loc):
        if isinstance(node, dict):
            if part in node:
                kept.append(part)
                node = node[part]
            elif i == len(loc) - 1:
                kept.append(part)  # a missing field: name it
            continue
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            kept.append(part)
            node = node[part]
            continue
        if not isinstance(part, str) or part.startswith(("function-", "tagged-")):
            continue
    text = ""
    for part in kept:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return tuple(kept), text


def _errors_from_validation(
    file: str, error: ValidationError, data: Any, positions: Positions
) -> list[CaseError]:
    found: list[CaseError] = []
    details = error.errors(include_url=False)
    # A collection whose items failed also reports itself "too short": noise, not a cause.
    failing = [tuple(d["loc"]) for d in details if d["type"] != "too_short"]
    for detail in details:
        loc = tuple(detail["loc"])
        if detail["type"] == "too_short" and any(f[: len(loc)] == loc for f in failing):
            continue
        path, text = _field_path(detail["loc"], data)
        message = detail["msg"].removeprefix("Value error, ")
        found.append(CaseError(file, positions.line_of(path), text or None, message))
    return found


class ParseCache:
    """Parsed case documents on disk, keyed by the SHA-256 of the source bytes.

    One JSON file per case directory, rewritten atomically when it changed, so several
    processes (pytest-xdist workers) can share it.
    """

    def __init__(self, root: Path | None) -> None:
        self.root = root

    @staticmethod
    def default_root() -> Path | None:
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
            pass  # a cache that cannot be written only costs speed


def _case_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*.yaml") if p.is_file())


def load_text(
    text: str, file: str, vocabulary: Vocabulary | None
) -> tuple[Case | None, list[CaseError]]:
    """Load one case from YAML text (no cache)."""
    try:
        data, positions = parse(text)
    except YamlError as error:
        return None, [CaseError(file, error.line, error.field, error.message)]
    return _validate(data, file, vocabulary, positions)


def _validate(
    data: Any, file: str, vocabulary: Vocabulary | None, positions: Positions | None
) -> tuple[Case | None, list[CaseError]]:
    if not isinstance(data, dict):
        return None, [CaseError(file, 1, None, "a case file is a YAML mapping")]
    context = vocabulary.context() if vocabulary else None
    try:
        return Case.model_validate(data, context=context), []
    except ValidationError as error:
        return None, _errors_from_validation(file, error, data, positions or Positions())


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Loading builds many objects that all live as long as the library does; cyclic
    garbage collection during the load finds nothing to free and costs a third of it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_dirs(
    directories: Iterable[Path],
    vocabulary: Vocabulary | None,
    cache: ParseCache | None = None,
) -> CaseSet:
    """Load every ``*.yaml`` under the directories; later directories may not reuse ids."""
    with _collector_paused():
        return _load_dirs(directories, vocabulary, cache)


def _load_dirs(
    directories: Iterable[Path], vocabulary: Vocabulary | None, cache: ParseCache | None
) -> CaseSet:
    cache = cache if cache is not None else ParseCache(ParseCache.default_root())
    loaded: dict[str, LoadedCase] = {}
    errors: list[CaseError] = []
    for directory in directories:
        stored = cache.read(directory)
        fresh: dict[str, Any] = {}
        for path in _case_files(directory):
            file = str(path)
            try:
                raw = path.read_bytes()
            except OSError as error:
                errors.append(CaseError(file, None, None, f"cannot read: {error.strerror}"))
                continue
            digest = hashlib.sha256(raw).hexdigest()
            name = str(path.relative_to(directory))
            entry = stored.get(name)
            positions: Positions | None = None
            if isinstance(entry, dict) and entry.get("sha256") == digest:
                data = entry["data"]
            else:
                try:
                    data, positions = parse(raw.decode("utf-8"))
                except UnicodeDecodeError:
                    errors.append(CaseError(file, None, None, "a case file is UTF-8 text"))
                    continue
                except YamlError as error:
                    errors.append(CaseError(file, error.line, error.field, error.message))
                    continue
            fresh[name] = {"sha256": digest, "data": data}
            case, problems = _validate(data, file, vocabulary, positions)
            if problems and positions is None:  # cached data: parse again for line numbers
                _, positions = parse(raw.decode("utf-8"))
                case, problems = _validate(data, file, vocabulary, positions)
            if case is None:
                errors.extend(problems)
                continue
            if path.stem != case.id:
                errors.append(
                    CaseError(file, positions.line_of(("id",)) if positions else 1, "id",
                              f"the file is named {path.stem!r} but the case id is {case.id!r}")
                )
                continue
            if case.id in loaded:
                errors.append(
                    CaseError(file, 1, "id", f"id {case.id!r} is also used by {loaded[case.id].file}")
                )
                continue
            loaded[case.id] = LoadedCase(case, file)
        if fresh != stored:
            cache.write(directory, fresh)
    ordered = tuple(loaded[key] for key in sorted(loaded))
    return CaseSet(ordered, tuple(errors))
