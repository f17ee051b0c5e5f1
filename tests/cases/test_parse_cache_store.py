"""The parse cache's store of one record per case file, and the loads that stream cases
one at a time (``each_case``, ``cases --lint``) instead of holding the library."""

from __future__ import annotations

import gc
import os
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance._cases import parse_cache
from conformance._cases.library import bundled_cases_dir
from conformance._cases.lint import LintProblem, lint, lint_each
from conformance._cases.load_problem import LoadProblem
from conformance._cases.loader import LoadedCase, each_case, load_dirs
from conformance._cases.parse_cache import ParseCache, case_from, case_record
from conformance._cases.schema import Case
from tests.cases.test_loader import GOOD, VOCABULARY, CountingParse, write


def _library(tmp_path: Path, *ids: str) -> Path:
    source = tmp_path / "lib"
    for case_id in ids:
        write(source, case_id, GOOD.format(id=case_id))
    return source


def _counting(monkeypatch: pytest.MonkeyPatch) -> CountingParse:
    counting = CountingParse()
    monkeypatch.setattr("conformance._cases.loader.parse", counting)
    return counting


def _store(cache: ParseCache) -> Path:
    (stored,) = (p for p in Path(str(cache.root)).iterdir() if p.suffix == ".cases")
    return stored


def test_each_file_is_a_hit_or_a_miss_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edited file is parsed again; its neighbours are read from their records, and
    the new store holds the edited file's new record and the others' old ones."""
    cache = ParseCache(tmp_path / "cache")
    source = _library(tmp_path, "one", "two", "three")
    cold = load_dirs([source], VOCABULARY, cache)
    edited = source / "tool-pairing" / "two.yaml"
    edited.write_text(GOOD.format(id="two").replace("A tool call", "A tool call, edited"))
    counting = _counting(monkeypatch)
    warm = load_dirs([source], VOCABULARY, cache)
    assert counting.calls == 1  # only the edited file was parsed
    assert warm.by_id()["one"] == cold.by_id()["one"]
    assert warm.by_id()["two"].case.title == "A tool call, edited answered by its result"
    again = load_dirs([source], VOCABULARY, cache)
    assert counting.calls == 1  # and its new record is stored
    assert again == warm


def test_a_stale_or_deleted_file_leaves_the_store(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    source = _library(tmp_path, "one", "two")
    load_dirs([source], VOCABULARY, cache)
    key = cache.directory(source, VOCABULARY.key()).key
    before = cache.read(source, key)
    (source / "tool-pairing" / "one.yaml").unlink()
    edited = source / "tool-pairing" / "two.yaml"
    edited.write_text(GOOD.format(id="two").replace("Read it", "Read it now"))
    load_dirs([source], VOCABULARY, cache)
    after = cache.read(source, key)
    assert list(after) == ["tool-pairing/two.yaml"]
    assert after["tool-pairing/two.yaml"][1] != before["tool-pairing/two.yaml"][1]
    kept = after["tool-pairing/two.yaml"][3]
    assert _store(cache).stat().st_size < 2 * kept  # one record and the index, none dead


def test_a_store_of_another_user_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ParseCache(tmp_path / "cache")
    source = _library(tmp_path, "one")
    load_dirs([source], VOCABULARY, cache)
    real = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real + 1)
    counting = _counting(monkeypatch)
    assert [c.case.id for c in load_dirs([source], VOCABULARY, cache).cases] == ["one"]
    assert counting.calls == 1  # not ours: parsed as without a cache


def test_a_corrupt_record_is_a_miss_and_its_neighbours_still_hit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ParseCache(tmp_path / "cache")
    source = _library(tmp_path, "one", "two")
    cold = load_dirs([source], VOCABULARY, cache)
    key = cache.directory(source, VOCABULARY.key()).key
    _, _, offset, length = cache.read(source, key)["tool-pairing/one.yaml"]
    stored = _store(cache)
    with stored.open("r+b") as handle:
        handle.seek(offset)
        handle.write(b"\xff" * length)
    counting = _counting(monkeypatch)
    warm = load_dirs([source], VOCABULARY, cache)
    assert warm == cold
    assert counting.calls == 1  # the corrupt record's file, parsed again
    for loaded in warm.cases:  # and a record that reads back is what it carries
        assert loaded.record is not None
        assert loaded.record.case() == loaded.case
    assert load_dirs([source], VOCABULARY, cache) == cold
    assert counting.calls == 1  # the corrupt record was replaced in the store


def test_a_record_that_is_not_a_case_is_none() -> None:
    assert case_from(b"") is None
    assert case_from(b"\x80\x05K\x01.") is None  # a pickled 1
    assert case_from(b"\x80\x05\x95") is None  # truncated


def test_a_load_given_up_halfway_leaves_no_half_written_store(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    source = _library(tmp_path, "one", "two")
    loading = each_case([source], VOCABULARY, cache)
    assert isinstance(next(loading), LoadedCase)  # its record is being written
    assert list((tmp_path / "cache").iterdir())
    loading.close()
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_loaded_case_carries_its_record(tmp_path: Path) -> None:
    """What a holder of many cases keeps instead of the case reads back the same case,
    on the load that wrote it and on one that read it."""
    cache = ParseCache(tmp_path / "cache")
    source = _library(tmp_path, "one")
    for _ in range(2):
        (loaded,) = load_dirs([source], VOCABULARY, cache).cases
        assert loaded.record is not None
        assert loaded.record.case() == loaded.case
    (uncached,) = load_dirs([source], VOCABULARY, ParseCache(None)).cases
    assert uncached.record is None


def test_shared_fields_sets_are_safe_because_every_model_of_a_case_is_frozen() -> None:
    """Stored cases share one set object per distinct set of field names: safe only
    while no model of a case can change its fields set, that is while all are frozen."""
    from conformance._cases.library import case_dirs, vocabulary

    classes = set(parse_cache._model_classes(Case.__pydantic_core_schema__))
    assert len(classes) > 10
    assert [cls.__name__ for cls in classes if not cls.model_config.get("frozen")] == []
    (first, *_) = load_dirs(case_dirs()[:1], vocabulary(), ParseCache(None)).cases
    stored = case_from(case_record(first.case))
    again = case_from(case_record(first.case))
    assert stored == again == first.case
    assert stored is not None
    assert again is not None
    assert stored.model_fields_set is again.model_fields_set  # shared, not copied
    copied = stored.model_copy(update={"title": "another"})
    assert "title" in copied.model_fields_set
    assert copied.model_fields_set is not stored.model_fields_set


def test_lint_each_gives_what_lint_gives_with_errors_in_load_order() -> None:
    problem = LoadProblem(file="x.yaml", line=None, field=None, message="bad")
    from conformance._cases.library import load_library

    library = load_library()
    linted = lint_each([*library.cases, problem])
    assert list(linted.problems) == lint(library)
    assert (linted.cases, linted.errors) == (len(library.cases), (problem,))


def test_linting_holds_no_case_it_has_linted(tmp_path: Path) -> None:
    """``cases --lint`` keeps each case's problems, never the case: when the next case
    is asked for, no earlier one is alive but the last (still named by the consumer's
    loop).  Kept in a list, they all are: the check can fail."""
    source = tmp_path / "lib"
    for n in range(4):  # the second lives in another family: one problem, kept as text
        family = "truncation" if n == 1 else "tool-pairing"
        path = source / family / f"case-{n}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(GOOD.format(id=f"case-{n}"), encoding="utf-8")

    def alive_before_each(hold: list[LoadedCase] | None) -> list[int]:
        """How many cases already handed out are alive each time one more is asked for."""
        seen: list[weakref.ref[Case]] = []
        alive: list[int] = []

        def watched() -> Iterator[LoadedCase | LoadProblem]:
            for item in each_case([source], VOCABULARY, ParseCache(tmp_path / "cache")):
                gc.collect()
                alive.append(sum(ref() is not None for ref in seen))
                if isinstance(item, LoadedCase):
                    seen.append(weakref.ref(item.case))
                    if hold is not None:
                        hold.append(item)
                yield item
                del item

        linted = lint_each(watched())
        assert linted.cases == 4
        assert [str(p).split(": ", 1)[1] for p in linted.problems] == [
            "case-1: lives in truncation/ but does not list the feature 'truncation'"
        ]
        assert isinstance(linted.problems[0], LintProblem)
        return alive

    assert max(alive_before_each(None)) <= 1
    assert alive_before_each([]) == [0, 1, 2, 3]  # a consumer that keeps them is seen


def test_a_store_half_written_by_a_killed_load_is_removed_once_old(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    old = tmp_path / "cache" / "killed.tmp"
    recent = tmp_path / "cache" / "in-progress.tmp"
    for leftover in (old, recent):
        leftover.write_bytes(b"half a store")
    aged = time.time() - parse_cache.ABANDONED_SECONDS - 60
    os.utime(old, (aged, aged))
    load_dirs([_library(tmp_path, "one")], VOCABULARY, cache)  # writes a store
    assert not old.exists()
    assert recent.exists()  # perhaps another process's load


def test_a_models_state_read_directly_gives_the_bytes_its_getstate_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pickler reads a case model's slots itself (a cold load stores every model of
    every case); the record must be the one pydantic's own ``__getstate__`` makes, and
    read back to the same case."""
    cases = [
        loaded.case for loaded in load_dirs([bundled_cases_dir()], None, ParseCache(None)).cases
    ]
    fast = [case_record(case) for case in cases]
    monkeypatch.setattr(parse_cache, "_case_models", lambda: frozenset())
    assert [case_record(case) for case in cases] == fast
    assert [case_from(record) for record in fast] == cases
