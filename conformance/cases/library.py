"""Where the case library lives, and its closed feature vocabulary.

The wheel ships ``cases/`` and ``snapshots/`` inside the package as ``_library/``; a source
checkout keeps them at the repository root.  Both are found the same way from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources
from pathlib import Path

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


def read_features(directory: Path) -> frozenset[str]:
    """The feature names listed in ``directory/FEATURES.txt`` (``name  description``)."""
    path = directory / FEATURES_FILE
    if not path.is_file():
        return frozenset()
    names = set()
    for line in path.read_text(encoding="utf-8").splitlines():
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
    """Load the bundled cases and those of ``extra`` directories."""
    return load_dirs(case_dirs(extra), vocabulary(extra), cache)
