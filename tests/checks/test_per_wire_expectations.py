"""Issue 13: expectations that differ per wire inside one case (``wires:`` on an
expectation).  Before, an expectation held on every column, so a shape one wire demands
and another cannot show split one case into near-copies."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from conformance._cases.schema import Case
from conformance._cases.show import _expectations
from conformance._checks.expectations import expectation_violations
from tests.checks.kit import ideal_views, transcript

SCRIPT = {"stop": "end", "blocks": [{"kind": "text", "text": "done"}]}
NEVER = {"in": {"request": 1}, "contains": [{"kind": "text", "text": "never sent"}]}


def case(*expect: dict[str, Any]) -> Case:
    return Case.model_validate(
        {
            "id": "per-wire",
            "title": "One case, expectations per column",
            "provenance": [{"seed": 25}],
            "features": ["opaque-ledger"],
            "wires": {"fake": "the fake wire of the tests", "other": "another column here"},
            "given": {"turns": [{"user": "prompt 1", "responses": [SCRIPT]}]},
            "expect": list(expect),
        }
    )


def judged(c: Case, column: str) -> list[str]:
    run = transcript(c, ideal_views(c))
    run.wire = column
    return [v.message for v in expectation_violations(run)]


def test_an_expectation_holds_only_on_the_columns_it_names() -> None:
    c = case({**NEVER, "wires": ["other"]})
    assert judged(c, "fake") == []
    assert len(judged(c, "other")) == 1
    unscoped = case(NEVER)
    assert len(judged(unscoped, "fake")) == 1  # an unscoped one holds everywhere


def test_any_of_drops_the_alternatives_written_for_other_columns() -> None:
    holds = {"in": {"request": 1}, "requests": 1}
    holds.pop("in")
    c = case({"any_of": [{**NEVER, "wires": ["fake"]}, {**holds, "wires": ["other"]}]})
    assert len(judged(c, "fake")) == 1  # only the first alternative applies, and fails
    assert judged(c, "other") == []
    only_other = case({"any_of": [{**NEVER, "wires": ["other"]}, {**NEVER, "wires": ["other"]}]})
    assert judged(only_other, "fake") == []


def test_a_column_the_case_does_not_run_on_is_a_located_load_error() -> None:
    with pytest.raises(ValidationError, match=r"expect\[0\]\.wires names 'gemini'"):
        case({**NEVER, "wires": ["gemini"]})
    with pytest.raises(ValidationError, match=r"expect\[0\]\.any_of\[1\]\.wires"):
        case({"any_of": [NEVER, {**NEVER, "wires": ["nowhere"]}]})


def test_show_names_the_columns_of_a_scoped_expectation() -> None:
    c = case({**NEVER, "wires": ["other"], "why": "only there"})
    shown = _expectations(c.expect, "")
    assert shown == ["1. contains [must] (on other): only there"]
