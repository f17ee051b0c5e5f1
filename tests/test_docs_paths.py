"""What the user-facing docs point to is in the wheel.

The README and the docs may show repository-only paths (``harness/``, ``tests/``,
``python -m harness...``) only where they speak to contributors: a section whose heading
says "Development", the docs the README lists "for contributors", and the maintainer's
note on a generated file.  Every ``conformance/...`` path and ``python -m conformance...``
module they name exists in the package.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path

import conformance

ROOT = Path(conformance.__file__).parent.parent
PACKAGE = Path(conformance.__file__).parent
#: Docs written for people working on the suite itself (the README says so).
CONTRIBUTOR_DOCS = {"architecture.md", "adding-a-wire.md"}
REPOSITORY_ONLY = re.compile(r"(?<![\w/.-])(harness[/.]\w[\w/.]*|tests/[\w/.-]*)")
PACKAGE_PATH = re.compile(r"`(conformance/[\w/.-]+)`")
MODULE = re.compile(r"python -m (conformance(?:\.\w+)*)")


def user_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The lines of ``path`` a user reads: not under a "Development" heading."""
    development_level = 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        heading = re.match(r"^(#+)\s+(.*)", line)
        if heading:
            level = len(heading.group(1))
            if development_level and level <= development_level:
                development_level = 0
            if "development" in heading.group(2).lower():
                development_level = level
            continue
        if not development_level and "This file is generated" not in line:
            yield number, line


def user_docs() -> list[Path]:
    docs = sorted((ROOT / "docs").glob("*.md"))
    return [ROOT / "README.md", *(d for d in docs if d.name not in CONTRIBUTOR_DOCS)]


def _ours(mention: str) -> bool:
    """A ``harness`` path is always this repository's; a ``tests/`` path is ours when
    this repository has it (a user's own ``tests/test_conformance.py`` is not)."""
    if mention.startswith("harness"):
        return True
    return (ROOT / mention.rstrip(".")).exists()


def repository_only_mentions(path: Path) -> list[str]:
    return [
        f"{path.name}:{number}: {line.strip()}"
        for number, line in user_lines(path)
        if any(_ours(m.group(1)) for m in REPOSITORY_ONLY.finditer(line))
    ]


def test_user_docs_point_only_at_what_the_wheel_ships() -> None:
    assert [m for doc in user_docs() for m in repository_only_mentions(doc)] == []


def test_the_scan_finds_a_repository_path_outside_development(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "# Use\nRun `python -m harness.bench`.\nSee `harness/agents/x.py`.\n"
        "## Development\nRun `tests/test_cli.py`.\n# Next\nAnd `tests/test_cli.py`.\n"
        "Your own `tests/test_conformance.py` is yours.\n",
        encoding="utf-8",
    )
    assert [m.split(": ")[0] for m in repository_only_mentions(doc)] == [
        "doc.md:2",
        "doc.md:3",
        "doc.md:7",
    ]


def test_named_package_paths_and_modules_exist() -> None:
    missing = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        for relative in PACKAGE_PATH.findall(text):
            if not (PACKAGE.parent / relative.rstrip("/")).exists():
                missing.append(f"{doc.name}: {relative}")
        for module in MODULE.findall(text):
            if importlib.util.find_spec(module) is None:
                missing.append(f"{doc.name}: python -m {module}")
    assert missing == []
