"""Where the case library lives, and its closed feature vocabulary.

The wheel ships ``cases/`` and ``snapshots/`` inside the package as ``_library/``; a source
checkout keeps them at the repository root.  Both are found the same way from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources
from pathlib import Path

from conformance.cases.load_error import LoadError
from conformance.cases.loader import CaseSet, load_dirs
from conformance.cases.parse_cache import ParseCache
from conformance.cases.validate import Vocabulary

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


def features_error(directory: Path) -> LoadError | None:
    """Why ``directory/FEATURES.txt`` cannot be read (its names are then missing from the
    vocabulary, and the cases using them are refused one by one), or ``None``."""
    path = directory / FEATURES_FILE
    try:
        if path.is_file():
            path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        return LoadError(file=str(path), line=None, field=None, message=f"cannot read: {why}")
    return None


def read_features(directory: Path) -> frozenset[str]:
    """The feature names listed in ``directory/FEATURES.txt`` (``name  description``); an
    unreadable file lists none (``features_error`` says why)."""
    path = directory / FEATURES_FILE
    try:
        if not path.is_file():
            return frozenset()
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return frozenset()
    names = set()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            names.add(line.split()[0])
    return frozenset(names)


def vocabulary(extra_dirs: Iterable[Path] = ()) -> Vocabulary:
    """Features of the bundled library plus any ``FEATURES.txt`` of added directories,
    and every registered wire with its dialects."""
    from conformance.wires.registry import dialects_by_wire

    features = set(read_features(bundled_cases_dir()))
    for directory in extra_dirs:
        features |= read_features(directory)
    return Vocabulary(frozenset(features), dialects_by_wire())


def case_dirs(extra: Sequence[Path] = ()) -> list[Path]:
    """The bundled library first, then the directories a user added (``--cases``)."""
    return [bundled_cases_dir(), *extra]


def load_library(extra: Sequence[Path] = (), cache: ParseCache | None = None) -> CaseSet:
    """Load the bundled cases and those of ``extra`` directories; an unreadable
    ``FEATURES.txt`` is one more load error, never a crash."""
    found = load_dirs(case_dirs(extra), vocabulary(extra), cache)
    unreadable = [e for d in case_dirs(extra) if (e := features_error(d)) is not None]
    if not unreadable:
        return found
    return CaseSet(found.cases, (*unreadable, *found.errors))
