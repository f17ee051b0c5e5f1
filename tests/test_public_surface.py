"""The public API is the list in docs/api.md, and nothing a user reads goes past it: every
``conformance`` import in the user documents and in the outside distribution the
extension test installs (what a plugin author needs) names a listed module."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api.md"
#: Listed packages whose modules are all public (the strategy modules, the examples).
OPEN_PACKAGES = ("conformance.generate", "conformance.examples")

_ROW = re.compile(r"^\| (`conformance[^|]*) \|", re.M)
_IMPORT = re.compile(r"^\s*(?:from (conformance[\w.]*) import|import (conformance[\w.]*))", re.M)


def public_modules() -> set[str]:
    """The modules the first column of docs/api.md's table names."""
    found: set[str] = set()
    for cell in _ROW.findall(API.read_text(encoding="utf-8")):
        found |= set(re.findall(r"`(conformance[\w.]*)`", cell))
    return found


def is_public(module: str, listed: set[str]) -> bool:
    return module in listed or module.startswith(tuple(f"{p}." for p in OPEN_PACKAGES))


def imports(text: str) -> set[str]:
    return {a or b for a, b in _IMPORT.findall(text)}


def _readers_sources() -> list[Path]:
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    internal = {"architecture.md", "reference-adapter.md"}  # for contributors
    plugin = sorted((ROOT / "tests" / "outside_package").rglob("*.py"))
    return [p for p in documents if p.name not in internal] + plugin


def test_the_list_names_the_facade_the_errors_and_the_extension_points() -> None:
    listed = public_modules()
    assert {"conformance", "conformance.errors", "conformance.generate"} <= listed
    assert "conformance.catalogue.book" in listed


@pytest.mark.parametrize("path", _readers_sources(), ids=lambda p: p.name)
def test_what_users_read_imports_only_the_public_api(path: Path) -> None:
    listed = public_modules()
    private = sorted(
        m for m in imports(path.read_text(encoding="utf-8")) if not is_public(m, listed)
    )
    assert not private, f"{path.name} imports internals: {private} (see docs/api.md)"


def test_the_scan_flags_an_internal_import() -> None:
    text = "from conformance._runner import RunOptions\nimport conformance.generate.blocks\n"
    listed = public_modules()
    assert [m for m in sorted(imports(text)) if not is_public(m, listed)] == ["conformance._runner"]
