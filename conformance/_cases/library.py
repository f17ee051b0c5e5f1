"""Where the case library lives, and its closed feature vocabulary.

The wheel ships ``cases/`` and ``snapshots/`` inside the package as ``_library/``; a source
checkout keeps them at the repository root.  Both are found the same way from here.
Installed distributions add case packs (the entry-point group ``wire_conformance.cases``:
a package whose directory holds case files and their ``FEATURES.txt``), loaded after the
bundled library and before the directories a user adds.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from conformance._cases.load_problem import LoadProblem
from conformance._cases.loader import CaseOutline, CaseSet, LoadedCase, collect, each_case
from conformance._cases.parse_cache import ParseCache
from conformance._cases.validate import Vocabulary
from conformance._plugins import CASES, Plugin, load_each

FEATURES_FILE = "FEATURES.txt"


@cache
def _library_root() -> Path:
    packaged = Path(str(resources.files("conformance"))) / "_library"
    if (packaged / "cases").is_dir():
        return packaged
    return Path(__file__).resolve().parents[2]  # source checkout: the repository root


def bundled_cases_dir() -> Path:
    """The directory of the case library that ships with the suite."""
    return _library_root() / "cases"


def bundled_snapshots_dir() -> Path:
    """The directory of the reference targets' snapshots that ship with the suite."""
    return _library_root() / "snapshots"


def _pack_dir(plugin: Plugin) -> Path:
    where = getattr(plugin.import_module(), "__file__", None)
    if where is None:
        raise ValueError(f"{plugin.module} is no package with a directory of case files")
    return Path(where).parent


@cache
def pack_dirs() -> tuple[Path, ...]:
    """The directories of the case packs installed distributions declare (one that fails
    to load is left out with a warning naming it)."""
    return tuple(directory for _, directory in load_each(CASES, _pack_dir)[0])


def _features(directory: Path) -> tuple[frozenset[str], LoadProblem | None]:
    """The feature names listed in ``directory/FEATURES.txt`` (``name  description``),
    read once; an unreadable file lists none and says why (its names are then missing
    from the vocabulary, and the cases using them are refused one by one)."""
    path = directory / FEATURES_FILE
    try:
        if not path.is_file():
            return frozenset(), None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        return frozenset(), LoadProblem(
            file=str(path), line=None, field=None, message=f"cannot read: {why}"
        )
    names = {
        line.split()[0]
        for line in (raw.strip() for raw in text.splitlines())
        if line and not line.startswith("#")
    }
    return frozenset(names), None


def read_features(directory: Path) -> frozenset[str]:
    """The feature names listed in ``directory/FEATURES.txt`` (none when unreadable)."""
    return _features(directory)[0]


def _vocabulary(extra_dirs: Iterable[Path]) -> tuple[Vocabulary, list[LoadProblem]]:
    from conformance.wires._registry import dialects_by_wire

    read = [_features(directory) for directory in (*case_dirs(), *extra_dirs)]
    features = frozenset().union(*(names for names, _ in read))
    return Vocabulary(features, dialects_by_wire()), [e for _, e in read if e is not None]


def vocabulary(extra_dirs: Iterable[Path] = ()) -> Vocabulary:
    """Features of the bundled library plus any ``FEATURES.txt`` of case packs and added
    directories, and every registered wire with its dialects."""
    return _vocabulary(extra_dirs)[0]


def case_dirs(extra: Sequence[Path] = ()) -> list[Path]:
    """The bundled library first, then the installed case packs, then the directories a
    user added (``--cases``)."""
    return [bundled_cases_dir(), *pack_dirs(), *extra]


def load_library(extra: Sequence[Path] = (), cache: ParseCache | None = None) -> CaseSet:
    """Load the bundled cases and those of ``extra`` directories; an unreadable
    ``FEATURES.txt`` is one more load error, never a crash."""
    return collect(each_library_case(extra, cache))


def each_library_case(
    extra: Sequence[Path] = (), cache: ParseCache | None = None
) -> Generator[LoadedCase | LoadProblem, None, None]:
    """What ``load_library`` loads, one case or error at a time (``loader.each_case``),
    an unreadable ``FEATURES.txt`` first as there: for a consumer that keeps what it
    needs of each case and not the library."""
    words, unreadable = _vocabulary(extra)
    yield from unreadable
    yield from each_case(case_dirs(extra), words, cache)


@dataclass(frozen=True)
class OutlinedLibrary:
    """The library as a run plans it: each case's outline (``CaseOutline``, sorted by
    id) instead of the case, the file of each case as reports show it, and the load
    errors, as ``load_library`` gives them."""

    cases: tuple[CaseOutline, ...]
    files: dict[str, str]
    errors: tuple[LoadProblem, ...]


def outline_library(extra: Sequence[Path] = (), cache: ParseCache | None = None) -> OutlinedLibrary:
    """Load the library one case at a time, keeping each case's outline, not the case."""
    outlines: dict[str, CaseOutline] = {}
    files: dict[str, str] = {}
    errors: list[LoadProblem] = []
    for item in each_library_case(extra, cache):
        if isinstance(item, LoadProblem):
            errors.append(item)
            continue
        outlines[item.case.id] = CaseOutline.of(item)
        files[item.case.id] = item.shown
    return OutlinedLibrary(tuple(outlines[key] for key in sorted(outlines)), files, tuple(errors))
