"""Example command agents shipped with the package, for users to copy or run.

``python -m conformance.examples NAME`` prints the path of example ``NAME``, so a shell
can run it wherever the package is installed.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).parent
#: This package's own modules: not examples.
_PACKAGE = {"__init__.py", "__main__.py"}


def _is_example(path: Path) -> bool:
    return path.is_file() and path.suffix in {".mjs", ".py"} and path.name not in _PACKAGE


def example_path(name: str) -> Path:
    """The installed path of example ``name`` (a file of this folder)."""
    path = FOLDER / name
    if not _is_example(path):
        known = ", ".join(sorted(p.name for p in FOLDER.iterdir() if _is_example(p)))
        raise FileNotFoundError(f"no example {name!r}; the examples are: {known}")
    return path
