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

One store per case directory holds each file's case as a record of its own, then an
index (file name -> signature, digest, where its record lies) and the index's offset:
a load reads the index and then each case it needs by offset, one at a time, so neither
a load nor a run need hold the library's cases at once (memory follows the cases in
use, not the library).  A load that proved anything new streams the new records to a
file beside the store as it goes, copies the unchanged ones after them, and puts it in
place by one rename, so several processes (pytest-xdist workers) can share the store.

The records are pickles (the fastest way back to the objects), so a store is read only
when the current user owns it and no one else may write it: otherwise it is ignored and
replaced.  A record that does not unpickle to a case is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import platform
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import pydantic
from pydantic_core import PydanticUndefined

from conformance._cases.schema import Case
from conformance.version import __version__

#: Bumped whenever the stored shape changes: old caches are then ignored.
CACHE_VERSION = 4

#: How old (seconds) a file's modification and change times must be before its ``stat``
#: signature vouches for its bytes: coarser than any file system's clock tick (FAT: 2 s).
RACY_SECONDS = 3

#: What identifies a file's bytes without reading them: device, inode, size, and the
#: modification and change times in nanoseconds.
Signature = tuple[int, int, int, int, int]

#: One stored file in a store's index: its signature (if it was old enough), its bytes'
#: digest, and the offset and length of its case's record.
Entry = tuple[Signature | None, str, int, int]

#: The bytes after the index: the index's offset, little-endian.
_TRAILER = 8


def signature(status: os.stat_result) -> Signature | None:
    """The ``stat`` signature of a regular file, or ``None`` when its times are too
    recent for it to vouch for the bytes (another edit could still keep them)."""
    if not stat.S_ISREG(status.st_mode):
        return None
    recent = time.time_ns() - RACY_SECONDS * 1_000_000_000
    if max(status.st_mtime_ns, status.st_ctime_ns) >= recent:
        return None
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def _model_classes(schema: Any) -> Iterator[type[pydantic.BaseModel]]:
    """Every model class a pydantic core schema refers to."""
    if isinstance(schema, dict):
        cls = schema.get("cls")
        if isinstance(cls, type) and issubclass(cls, pydantic.BaseModel):
            yield cls
        for value in schema.values():
            yield from _model_classes(value)
    elif isinstance(schema, list | tuple):
        for value in schema:
            yield from _model_classes(value)


@cache
def schema_fingerprint() -> str:
    """A digest of what a validated case depends on besides its bytes: the source of
    every module defining a model of the case schema (so an edited validator in a source
    checkout is a miss), this module and the validation step, and the versions of the
    suite, pydantic and Python (the stored objects' layout)."""
    modules = {cls.__module__ for cls in _model_classes(Case.__pydantic_core_schema__)}
    modules.add(__name__)
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


@cache
def _shared() -> dict[int, Any]:
    """What every record refers to by number (``_shared_object``) instead of by name:
    ``_model`` and the case schema's model classes.  A record of its own would otherwise
    name each class it uses, and looking a name up (an import and a ``getattr``) took a
    quarter of a warm load; the numbering is fixed by the schema, which the key covers."""
    classes = {*_model_classes(Case.__pydantic_core_schema__)}
    ordered = sorted(classes, key=lambda cls: (cls.__module__, cls.__qualname__))
    return dict(enumerate([_model, *ordered]))


@cache
def _shared_numbers() -> dict[int, int]:
    return {id(shared): number for number, shared in _shared().items()}


@cache
def _case_models() -> frozenset[type]:
    """The case schema's model classes (``_shared``), whose state is read directly."""
    return frozenset(shared for shared in _shared().values() if isinstance(shared, type))


def _shared_object(number: int) -> Any:
    """A record's reference to one of the ``_shared`` objects, back."""
    return _shared()[number]


def case_record(case: Case) -> bytes:
    """A validated case as a record of the store (the inverse of ``case_from``)."""
    buffer = io.BytesIO()
    _ModelPickler(buffer, pickle.HIGHEST_PROTOCOL).dump(case)
    return buffer.getvalue()


def case_from(record: bytes) -> Case | None:
    """The case a record holds; ``None`` when it is not one (a corrupt or foreign
    record is a miss, never a crash).  The one place a stored case becomes a model."""
    try:
        case = pickle.loads(record)
    except Exception:
        return None
    return case if isinstance(case, Case) else None


class _Records:
    """An open file of records, read by offset; the descriptor stays open while any
    reference to one of its records lives, so a store replaced on disk since (by another
    process, or by this load's own save) still reads as it was opened."""

    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor

    def read(self, offset: int, length: int) -> bytes:
        return os.pread(self.descriptor, length, offset)

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.descriptor)


class _Held:
    """Records kept in memory, for a holder of cases when there is no store to read
    them back from (``ParseCache(None)``): still a tenth of the models' size."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, offset: int, length: int) -> bytes:
        return self.data[offset : offset + length]


class CaseRecord(NamedTuple):
    """Where one proven case lies: read and rebuilt by ``case``, each time anew, so a
    holder of many keeps a few dozen bytes each, not their models.  (A named tuple:
    one is made per case a load takes from the store, and a tuple is made fastest.)"""

    records: _Records | _Held
    offset: int
    length: int

    @classmethod
    def held(cls, case: Case) -> CaseRecord:
        """A record of ``case`` kept in memory (when the parse cache has none)."""
        record = case_record(case)
        return cls(_Held(record), 0, len(record))

    def case(self) -> Case | None:
        """The case, or ``None`` when its record no longer reads as one."""
        try:
            return case_from(self.records.read(self.offset, self.length))
        except OSError:
            return None


class Cached(NamedTuple):
    """A case the cache held for the exact bytes and key asked about, and its record."""

    case: Case
    record: CaseRecord


class ParseCache:
    """One store per case directory, replaced atomically when a load proved anything
    new.  ``root=None`` caches nothing."""

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
        return self.root / f"{digest}.cases"

    def open(self, directory: Path, key: str) -> tuple[_Records | None, dict[str, Entry]]:
        """The store of ``directory`` validated under ``key``: its records and its index
        (file name -> entry); none when absent, unreadable, of another key, or not
        safely ours."""
        target = self._file_for(directory)
        if target is None:
            return None, {}
        try:
            descriptor = os.open(target, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            return None, {}
        records = _Records(descriptor)
        try:
            status = os.fstat(descriptor)
            if not stat.S_ISREG(status.st_mode):
                return None, {}
            if status.st_uid != os.getuid() or status.st_mode & 0o022:
                return None, {}  # another user could have written it: never unpickled
            at = int.from_bytes(records.read(status.st_size - _TRAILER, _TRAILER), "little")
            stored = pickle.loads(records.read(at, status.st_size - _TRAILER - at))
        except Exception:  # any unreadable store (truncated, of old classes) is a miss
            return None, {}
        if not isinstance(stored, dict) or stored.get("key") != key:
            return None, {}
        entries = stored.get("entries")
        return (records, entries) if isinstance(entries, dict) else (None, {})

    def read(self, directory: Path, key: str) -> dict[str, Entry]:
        """The index of the store of ``directory`` under ``key`` (see ``open``)."""
        return self.open(directory, key)[1]

    def directory(self, directory: Path, vocabulary_key: str) -> DirectoryCache:
        """The cache of one directory, for one load of it under one vocabulary."""
        return DirectoryCache(self, directory, f"{schema_fingerprint()}:{vocabulary_key}")


#: How old (seconds) a store left half written is when the next writer removes it: a
#: process killed mid-load cannot remove its own, and no load lasts a day.
ABANDONED_SECONDS = 24 * 3600


class _Writer:
    """The store a load is writing beside the old one: records appended as they are
    proven, put in place by ``finish``; never seen by others before."""

    def __init__(self, target: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(target.parent)
        descriptor, self.path = tempfile.mkstemp(dir=target.parent, suffix=".tmp")  # 0600
        self.records = _Records(descriptor)
        self.target = target
        self.size = 0

    def append(self, record: bytes) -> tuple[int, int]:
        offset = self.size
        if os.pwrite(self.records.descriptor, record, offset) != len(record):
            raise OSError("a short write")  # a full disk: the store is given up
        self.size += len(record)
        return offset, len(record)

    def finish(self, key: str, entries: dict[str, Entry]) -> None:
        at = self.size
        self.append(pickle.dumps({"key": key, "entries": entries}, pickle.HIGHEST_PROTOCOL))
        self.append(at.to_bytes(_TRAILER, "little"))
        os.replace(self.path, self.target)

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.path)


def _remove_abandoned(root: Path) -> None:
    """Remove the stores half written by loads that were killed (``ABANDONED_SECONDS``
    old: another process's load in progress is younger)."""
    old = time.time_ns() - ABANDONED_SECONDS * 1_000_000_000
    for leftover in root.glob("*.tmp"):
        with contextlib.suppress(OSError):
            if leftover.stat().st_mtime_ns < old:
                leftover.unlink()


class DirectoryCache:
    """One directory's cases during one load: what was stored, and what this load proved
    (which replaces the stored entries, so deleted and broken files leave the cache).

    It keeps the index, never the cases: each is read from its record when asked for,
    and a case this load proved is written to the new store at once."""

    def __init__(self, cache: ParseCache, directory: Path, key: str) -> None:
        self._target = cache._file_for(directory)
        self.key = key
        self._records, self._stored = cache.open(directory, key)
        #: What this load proved: file name -> signature, digest, and where its record
        #: lies, in the old store (``False``) or in the one being written (``True``).
        self._seen: dict[str, tuple[Signature | None, str, bool, int, int]] = {}
        self._writer: _Writer | None = None
        self._unwritable = self._target is None

    def _entry(self, name: str) -> Entry | None:
        entry = self._stored.get(name)
        if isinstance(entry, tuple) and len(entry) == 4:
            return entry
        return None

    def _cached(self, entry: Entry) -> Cached | None:
        assert self._records is not None  # an entry comes from an open store
        records, offset, length = self._records, entry[2], entry[3]
        try:
            case = case_from(records.read(offset, length))
        except OSError:
            return None
        return None if case is None else Cached(case, CaseRecord(records, offset, length))

    def unchanged(self, name: str, status: os.stat_result) -> Cached | None:
        """The stored case of file ``name`` if ``status`` proves its bytes are the ones
        validated (an old enough signature, equal to the stored one): nothing is read.
        The case is remembered as proven again."""
        entry = self._entry(name)
        if entry is None or entry[0] is None or signature(status) != entry[0]:
            return None
        cached = self._cached(entry)
        if cached is not None:
            self._seen[name] = (entry[0], entry[1], False, entry[2], entry[3])
        return cached

    def hit(self, name: str, digest: str) -> Cached | None:
        """The stored case of file ``name`` if it was validated from these very bytes."""
        entry = self._entry(name)
        return self._cached(entry) if entry is not None and entry[1] == digest else None

    def remember(
        self,
        name: str,
        status: os.stat_result,
        digest: str,
        case: Case,
        stored: CaseRecord | None = None,
    ) -> CaseRecord | None:
        """Keep the validated case of file ``name``, read from bytes of this ``status``
        and digest: taken from the store (``stored``, its record there, as ``hit`` gave
        it), it keeps that record; any other is written to the new store now (also when
        the stored record of these bytes did not read back: it is replaced).  Returns
        where its record lies (``None`` when nothing can be stored)."""
        if stored is not None:
            self._seen[name] = (signature(status), digest, False, stored.offset, stored.length)
            return stored
        writer = self._writing()
        if writer is None:
            return None
        try:
            offset, length = writer.append(case_record(case))
        except (OSError, pickle.PicklingError):
            self._abandon()
            return None
        self._seen[name] = (signature(status), digest, True, offset, length)
        return CaseRecord(writer.records, offset, length)

    def _writing(self) -> _Writer | None:
        if self._writer is None and not self._unwritable:
            assert self._target is not None
            try:
                self._writer = _Writer(self._target)
            except OSError:
                self._unwritable = True
        return self._writer

    def _abandon(self) -> None:
        """Give up writing (failing to write only costs speed)."""
        if self._writer is not None:
            self._writer.discard()
            self._writer = None
        self._unwritable = True

    def save(self) -> None:
        """Write what this load proved, when it differs from what was stored (a file
        changed, left, or became old enough for its signature to be kept): the records
        taken from the old store are copied after the new ones, then the index."""
        stored = {name: entry[:2] for name, entry in self._stored.items()}
        if self._writer is None and {n: e[:2] for n, e in self._seen.items()} == stored:
            return
        writer = self._writing()
        if writer is None:
            return
        entries: dict[str, Entry] = {}
        try:
            for name, (status, digest, new, offset, length) in self._seen.items():
                if not new:
                    assert self._records is not None
                    offset, length = writer.append(self._records.read(offset, length))
                entries[name] = (status, digest, offset, length)
            writer.finish(self.key, entries)
        except OSError:
            self._abandon()
            return
        self._writer = None

    def close(self) -> None:
        """End this load without saving: a store half written is removed."""
        if self._writer is not None:
            self._writer.discard()
            self._writer = None


_new_object = object.__new__
_set_slot = object.__setattr__

#: One set object per distinct set of field names that models of stored cases were
#: given: a case is two dozen models, each with its ``__pydantic_fields_set__``, and
#: the library has a few hundred distinct ones, so sharing them saves a quarter of a
#: case's memory.  Safe because no model of a case changes it: they are all frozen
#: (pydantic adds to the set only on assignment, which a frozen model refuses; a copy
#: copies it), which a test checks.
_FIELDS_SETS: dict[tuple[str, ...], set[str]] = {}


def _model(
    cls: type[pydantic.BaseModel],
    values: dict[str, Any],
    names: tuple[str, ...],
    extra: dict[str, Any] | None,
    private: dict[str, Any] | None,
) -> pydantic.BaseModel:
    """A stored model back, as pydantic's ``__setstate__`` rebuilds it (the same four
    slots), in one call instead of two: most of a warm load is rebuilding models."""
    fields_set = _FIELDS_SETS.get(names)
    if fields_set is None:
        fields_set = _FIELDS_SETS[names] = set(names)
    model = _new_object(cls)
    _set_slot(model, "__dict__", values)
    _set_slot(model, "__pydantic_fields_set__", fields_set)
    _set_slot(model, "__pydantic_extra__", extra)
    _set_slot(model, "__pydantic_private__", private)
    return model


class _ModelPickler(pickle.Pickler):
    """Stores pydantic models as a call of ``_model`` with pydantic's own pickled state
    (the fields set as sorted names), and ``_shared`` objects by number.  (Not as
    persistent ids: ``persistent_id`` is called for every object pickled, strings and
    numbers too, and took a sixth of a cold load; this method sees only the others.)"""

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        if cls in _case_models():  # read as pydantic's ``__getstate__`` gives it, without
            # building its dict: this runs for every model of every case a cold load stores
            private = obj.__pydantic_private__
            if private:
                private = {k: v for k, v in private.items() if v is not PydanticUndefined}
            names = tuple(sorted(obj.__pydantic_fields_set__))
            return _model, (cls, obj.__dict__, names, obj.__pydantic_extra__, private)
        number = _shared_numbers().get(id(obj))
        if number is not None:
            return _shared_object, (number,)
        if not isinstance(obj, pydantic.BaseModel):
            return NotImplemented
        state = obj.__getstate__()
        return _model, (
            cls,
            state["__dict__"],
            tuple(sorted(state["__pydantic_fields_set__"])),
            state["__pydantic_extra__"],
            state["__pydantic_private__"],
        )
