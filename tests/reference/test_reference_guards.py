"""The guard registry: every guard is declared once, used at exactly one decision
point, and a mistyped id fails instead of silently disabling nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import conformance._reference
from conformance._reference.guards import GUARDS, Guards, UnknownGuard

SOURCE = Path(conformance._reference.__file__).parent
DECISION = re.compile(r"""\.on\(\s*"([a-z0-9-]+)"\s*\)""")


def _decision_points() -> list[str]:
    return [
        guard_id
        for path in sorted(SOURCE.glob("*.py"))
        for guard_id in DECISION.findall(path.read_text())
    ]


def test_every_guard_has_an_id_statement_and_source() -> None:
    for guard_id, guard in GUARDS.items():
        assert guard.id == guard_id
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", guard_id)
        assert guard.statement.endswith(".")
        assert re.search(r"§\d+|rule \d+", guard.source), guard_id


def test_every_guard_is_one_decision_point() -> None:
    used = _decision_points()
    assert sorted(used) == sorted(GUARDS), "each guard is checked exactly once"


def test_decision_point_scan_sees_a_missing_guard() -> None:
    """Negative control for the scan above: a made-up id is not in the source."""
    assert "no-such-guard" not in _decision_points()


def test_guards_are_on_unless_disabled() -> None:
    guards = Guards({"skip-empty-assistant"})
    assert not guards.on("skip-empty-assistant")
    assert guards.on("omit-blank-text")


def test_unknown_disabled_guard_is_rejected() -> None:
    with pytest.raises(UnknownGuard, match="flush-on-visble-block"):
        Guards({"flush-on-visble-block"})


def test_unknown_decision_point_is_rejected() -> None:
    with pytest.raises(UnknownGuard):
        Guards().on("not-a-guard")
