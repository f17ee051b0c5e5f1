"""What a start-up imports: every ``wire-conformance`` call and every cell of a
per-process command target pays its imports, so the heavy libraries that only some
paths use (syrupy and pytest for ``--snapshots``, respx and httpx2 for in-process
clients, the probes' engine for ``probe``, the case schema's models for the suite's side)
are imported where they are used.  These tests keep a deferred import from coming back
through a module-level import somewhere below the entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: Libraries (and the package's own heavy modules) a start-up is checked for.
WATCHED = (
    "pytest",
    "syrupy",
    "respx",
    "httpx2",
    "conformance._probe.run",
    "conformance._provider.intercept",
    "conformance._cases.schema",
)

#: Run the code given on the command line, then print which ``WATCHED`` modules it
#: loaded as the last line (the command's own output comes before it).
_PROBE = """
import json, sys
watched = json.loads(sys.argv[1])
exec(sys.argv[2])
print()
print(json.dumps(sorted(name for name in watched if name in sys.modules)))
"""

CASE = "anthropic-api-error-mid-thinking-retried-unchanged"


def loaded(code: str) -> set[str]:
    """The ``WATCHED`` modules a fresh interpreter has loaded after running ``code``."""
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(WATCHED), code],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(result.stdout.splitlines()[-1]))


def cli(*argv: str) -> str:
    """One line of code that runs the command line in-process with ``argv``."""
    return f"from conformance._cli import main; main({list(argv)!r})"


@pytest.mark.slow
def test_help_imports_no_command_engine() -> None:
    assert loaded("import conformance._cli") == set()
    # ``--help`` ends in SystemExit; caught, so the probe still reports.
    assert loaded(f"try:\n    {cli('--help')}\nexcept SystemExit:\n    pass") == set()
    # Negative: naming a command builds its arguments, and ``probe``'s import its engine.
    assert "conformance._probe.run" in loaded(
        f"try:\n    {cli('probe', '--help')}\nexcept SystemExit:\n    pass"
    )


@pytest.mark.slow
def test_a_run_without_snapshots_imports_neither_pytest_nor_respx(tmp_path: Path) -> None:
    plain = loaded(cli("run", "--target", "reference", "-q", "--case", CASE))
    assert plain <= {"conformance._cases.schema"}
    # Negative: the probe sees a heavy import when the path does need it.
    snapshots = str(tmp_path / "snapshots")
    with_store = loaded(
        cli("run", "--target", "reference", "-q", "--case", CASE, "--snapshots", snapshots)
    )
    assert {"pytest", "syrupy"} <= with_store


@pytest.mark.slow
def test_the_command_target_helper_imports_no_suite_side() -> None:
    assert loaded("import conformance.agent.runner") == set()
    assert loaded("import conformance.examples.command_session") == set()
    # Negative: an in-process client's transport does import respx.
    assert "respx" in loaded("import conformance._provider.intercept")
