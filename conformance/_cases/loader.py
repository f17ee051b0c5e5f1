"""Load case files: every good file becomes a ``Case``; every bad one becomes one clear
``LoadProblem`` naming its file, line and field, and never stops the others from loading.

Each file goes through the same steps, each one job: read its bytes, take its document
from the parse cache or decode and parse it (``parse_cache``, ``yamlfile``), validate it
(``validate``), then check it as a file of the library (``file_checks``).
"""

from __future__ import annotations

import gc
import hashlib
import os
import stat
from collections.abc import Generator, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance._cases import file_checks
from conformance._cases.discover import case_files
from conformance._cases.load_problem import LoadProblem
from conformance._cases.parse_cache import CaseRecord, DirectoryCache, ParseCache
from conformance._cases.schema import Case
from conformance._cases.validate import Vocabulary, validate
from conformance._cases.yamlfile import MAX_CASE_BYTES, Positions, parse
from conformance.errors import YamlError


@dataclass(frozen=True)
class LoadedCase:
    case: Case
    file: str
    #: ``file`` relative to its library root, under the root's name (``cases/x/y.yaml``):
    #: what reports show, with no machine path.
    shown: str = ""
    #: Where the parse cache holds this case (``None`` when it does not): what a holder
    #: of many cases may keep instead of the case (``CaseRecord.case`` reads it back).
    record: CaseRecord | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class CaseOutline:
    """What planning a run reads of a case (its id, its columns, the capabilities it
    needs) and where the whole case lies, read back when a cell of it runs: a plan of
    a large library holds these, not its cases, so a run's memory follows the cells in
    flight."""

    id: str
    wires: tuple[str, ...]
    needs: frozenset[str]
    record: CaseRecord = field(compare=False, repr=False)

    @classmethod
    def of(cls, loaded: LoadedCase) -> CaseOutline:
        case = loaded.case
        record = loaded.record or CaseRecord.held(case)
        return cls(case.id, tuple(case.wires), case.needs, record)

    def case(self) -> Case:
        """The case, read back from its record (anew at each call)."""
        case = self.record.case()
        if case is None:  # the store is read through a descriptor opened at load time
            raise RuntimeError(f"case {self.id}: its proven copy can no longer be read")
        return case


@dataclass(frozen=True)
class CaseSet:
    """The cases that loaded, sorted by id, and the errors of those that did not."""

    cases: tuple[LoadedCase, ...]
    errors: tuple[LoadProblem, ...]

    def by_id(self) -> dict[str, LoadedCase]:
        return {loaded.case.id: loaded for loaded in self.cases}


class _Rejected(Exception):
    """A step found the file unloadable; carries why."""

    def __init__(self, *errors: LoadProblem) -> None:
        super().__init__(errors)
        self.errors = errors


def load_text(
    text: str, file: str, vocabulary: Vocabulary | None
) -> tuple[Case | None, list[LoadProblem]]:
    """Load one case from YAML text (no cache, no file checks)."""
    try:
        data, positions = _parse(text, file)
    except _Rejected as rejected:
        return None, list(rejected.errors)
    return validate(data, file, vocabulary, positions)


def load_dirs(
    directories: Iterable[Path],
    vocabulary: Vocabulary | None,
    cache: ParseCache | None = None,
) -> CaseSet:
    """Load every ``*.yaml`` under the directories; later directories may not reuse ids.

    ``cache`` defaults to the user's parse cache (``ParseCache.default_root``).
    """
    return collect(each_case(directories, vocabulary, cache))


def collect(items: Iterable[LoadedCase | LoadProblem]) -> CaseSet:
    """The cases and errors a load streams (``each_case``) kept as a ``CaseSet``: the
    cases sorted by id, the errors in the order they were met."""
    loaded: dict[str, LoadedCase] = {}
    errors: list[LoadProblem] = []
    with _collector_paused():
        for item in items:
            if isinstance(item, LoadProblem):
                errors.append(item)
            else:
                loaded[item.case.id] = item
    return CaseSet(tuple(loaded[key] for key in sorted(loaded)), tuple(errors))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Loading builds only objects that live on (nodes aside, which reference counting
    frees): the cyclic collector, triggered every few hundred allocations, would walk
    the whole growing library again and again, for nothing, and took a third of a load.

    Re-enabled as is, its first pass would still walk every object the load made (they
    are all "young"): a fifth of a warm load.  So the load's objects are handed straight
    to the oldest generation (``gc.freeze`` then ``gc.unfreeze``, which move lists, not
    objects), where only the rare full collections look at them, as they would once
    promoted anyway.  Young garbage of the caller's goes with them, and is collected by
    the next full collection.  Skipped when the caller froze objects of its own, which
    ``unfreeze`` would release."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()


def each_case(
    directories: Iterable[Path],
    vocabulary: Vocabulary | None,
    cache: ParseCache | None = None,
) -> Generator[LoadedCase | LoadProblem, None, None]:
    """What ``load_dirs`` loads, one case or error at a time, in file order (a case
    whose id an earlier file took is that file's error, as in ``load_dirs``): a consumer
    that keeps what it needs of each case, and not the case, holds no library.  A
    loaded case carries where its record lies in the parse cache (``record``), when it
    has one, to be read again later instead of kept.  Closing it before its end (or
    dropping it) discards the store it was writing."""
    cache = cache if cache is not None else ParseCache(ParseCache.default_root())
    files: dict[str, str] = {}  # id -> the file that took it
    for directory in directories:
        documents = cache.directory(directory, vocabulary.key() if vocabulary else "any")
        try:
            found = case_files(directory)
            yield from found.errors
            root = f"{directory.name or directory.resolve().name}/"
            for path in found.files:
                name = _relative(path, directory)
                try:
                    case, record = _load_file(path, name, documents, vocabulary, files)
                except _Rejected as rejected:
                    yield from rejected.errors
                    continue
                files[case.id] = str(path)
                yield LoadedCase(case, str(path), root + name.replace(os.sep, "/"), record)
            documents.save()
        finally:
            documents.close()


def _relative(path: Path, directory: Path) -> str:
    """``path.relative_to(directory)`` as text, by slicing when it can (pathlib's took a
    tenth of a warm load)."""
    text, root = str(path), str(directory)
    if root != "." and text.startswith(root + os.sep):
        return text[len(root) + len(os.sep) :]
    return str(path.relative_to(directory))


def _load_file(
    path: Path,
    name: str,
    documents: DirectoryCache,
    vocabulary: Vocabulary | None,
    files: dict[str, str],
) -> tuple[Case, CaseRecord | None]:
    """One file through every step; raises ``_Rejected`` at the first step that fails.

    A file whose ``stat`` proves it unchanged since its case was proven is not even
    read; a case the cache proved valid for these bytes skips parsing and validation;
    any other file is parsed without positions first, and parsed again for them only
    when a step fails, so every error is located the same way with or without the cache."""
    file = str(path)
    try:
        cached = documents.unchanged(name, os.stat(path))
    except OSError:
        cached = None  # reading it says why
    record: CaseRecord | None
    if cached is not None:
        case, record = cached.case, cached.record
    else:
        raw, status = _read(path)
        digest = hashlib.sha256(raw).hexdigest()
        hit = documents.hit(name, digest)
        case = hit.case if hit is not None else _validated(raw, file, vocabulary)
        record = documents.remember(name, status, digest, case, hit.record if hit else None)
    problem = file_checks.misnamed(path, case, None)
    if problem is not None:  # located like a schema error: on the line of the id
        located = _parse(_decode(_read(path)[0], file), file)[1]
        problem = file_checks.misnamed(path, case, located)
    problem = problem or file_checks.duplicate(path, case, files.get(case.id))
    if problem is not None:
        raise _Rejected(problem)
    return case, record


def _validated(raw: bytes, file: str, vocabulary: Vocabulary | None) -> Case:
    """Decode, parse and validate one file's bytes; the document is parsed without
    positions first, and again for them only when validation fails."""
    text = _decode(raw, file)
    data, _ = _parse(text, file, located=False)
    case, _ = validate(data, file, vocabulary, None)
    if case is None:
        data, positions = _parse(text, file)
        raise _Rejected(*validate(data, file, vocabulary, positions)[1])
    return case


def _read(path: Path) -> tuple[bytes, os.stat_result]:
    """The file's bytes, and its ``stat`` taken before they were read; opened without
    blocking, so a FIFO put in place of a file since it was found is refused, never
    waited on."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(descriptor, "rb") as stream:
            status = os.fstat(stream.fileno())
            if not stat.S_ISREG(status.st_mode):
                raise _Rejected(
                    LoadProblem(file=str(path), line=None, field=None, message="not a regular file")
                )
            # Sized before it is read: a huge file is never read, parsed or cached.
            if status.st_size > MAX_CASE_BYTES:
                raise _Rejected(_too_large(path, status.st_size))
            # Asked for its size and one byte more: asking for the cap would allocate
            # it (16 MiB) for every file.  A file that grew is read on, up to the cap.
            raw = stream.read(status.st_size + 1)
            if len(raw) > status.st_size:
                raw += stream.read(MAX_CASE_BYTES + 1 - len(raw))
            if len(raw) > MAX_CASE_BYTES:  # grew since it was sized
                raise _Rejected(_too_large(path, len(raw)))
            return raw, status
    except OSError as error:
        raise _Rejected(
            LoadProblem(
                file=str(path), line=None, field=None, message=f"cannot read: {error.strerror}"
            )
        ) from None


def _too_large(path: Path, size: int) -> LoadProblem:
    return LoadProblem(
        file=str(path),
        line=None,
        field=None,
        message=f"{size} bytes, above the {MAX_CASE_BYTES}-byte cap on a case file "
        f"({MAX_CASE_BYTES // (1024 * 1024)} MiB): split it into several cases",
    )


def _decode(raw: bytes, file: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _Rejected(
            LoadProblem(file=file, line=None, field=None, message="a case file is UTF-8 text")
        ) from None


def _parse(text: str, file: str, located: bool = True) -> tuple[Any, Positions]:
    try:
        return parse(text, located)
    except YamlError as error:
        raise _Rejected(
            LoadProblem(file=file, line=error.line, field=error.field, message=error.message)
        ) from None
