"""Every guard of the reference adapter is load-bearing: with it disabled, some case of
the bundled library fails (strict, as for the reference); and docs/reference-adapter.md
lists exactly those cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance._reference.guards import GUARDS
from harness.guard_table import killers, markdown

#: One worker holds the module, so its module fixture is built once (``--dist loadgroup``).
pytestmark = pytest.mark.xdist_group("guards-load-bearing")

DOC = Path(__file__).resolve().parents[2] / "docs" / "reference-adapter.md"


@pytest.fixture(scope="module")
def killed() -> dict[str, list[str]]:
    return killers()


@pytest.mark.parametrize("guard", sorted(GUARDS))
def test_disabling_the_guard_fails_some_case(guard: str, killed: dict[str, list[str]]) -> None:
    assert killed[guard], f"no case fails without the guard {guard!r}: it is not load-bearing"


def test_the_document_lists_what_each_guard_protects(killed: dict[str, list[str]]) -> None:
    regenerate = "python -m harness.guard_table > docs/reference-adapter.md"
    assert DOC.read_text(encoding="utf-8") == markdown(killed), f"stale; run: {regenerate}"
