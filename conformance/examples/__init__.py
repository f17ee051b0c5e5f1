"""Example command agents shipped with the package, for users to copy or run.

``python -m conformance.examples NAME`` prints the path of example ``NAME``, so a shell
can run it wherever the package is installed.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).parent


def example_path(name: str) -> Path:
    """The installed path of example ``name`` (a file of this folder)."""
    path = FOLDER / name
    if path.suffix == ".py" or not path.is_file():
        known = ", ".join(sorted(p.name for p in FOLDER.iterdir() if p.suffix in {".mjs"}))
        raise FileNotFoundError(f"no example {name!r}; the examples are: {known}")
    return path
