"""The reference shares only the neutral model and the target API with the suite, so a
bug in the judge cannot hide behind the same bug in the reference (DESIGN.md)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import conformance._reference

SOURCE = Path(conformance._reference.__file__).parent
ALLOWED = ("conformance.vocabulary", "conformance._targets.api", "conformance._reference")
JUDGE = (
    "conformance.wires",
    "conformance._checks",
    "conformance._provider",
    "conformance._cases",
    "conformance._transcript",
)


def suite_imports(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] == "conformance"}


def forbidden(source: str) -> set[str]:
    return {name for name in suite_imports(source) if not name.startswith(ALLOWED)}


def test_reference_modules_import_only_the_model_and_the_target_api() -> None:
    for path in sorted(SOURCE.glob("*.py")):
        assert forbidden(path.read_text()) == set(), path.name


def test_the_import_scan_catches_a_judge_import() -> None:
    assert forbidden("from conformance.wires.context import Wire\nimport conformance._checks") == {
        "conformance.wires.context",
        "conformance._checks",
    }


@pytest.mark.slow
def test_importing_the_reference_loads_no_judge_module() -> None:
    probe = (
        "import sys, conformance._reference; "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('conformance.'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert "conformance._reference.adapter" in loaded
    assert not [m for m in loaded if m.startswith(JUDGE)]
