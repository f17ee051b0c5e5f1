"""A counterexample becomes a case file that loads back as the same case, lint-clean,
citing the failing check's rules, naming the seed and the check."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from conformance._cases.lint import lint_case
from conformance._cases.schema import Case, RuleRef
from conformance.catalogue._render import unresolved
from conformance.generate._case_file import (
    CaseFileError,
    case_yaml,
    citations,
    counterexample_case,
    save_case,
)
from conformance.generate.conversations import cases


@settings(
    max_examples=4,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(cases("anthropic-messages"))
def test_a_counterexample_file_loads_back_lint_clean(case: Case) -> None:
    found = counterexample_case(case, "anthropic-messages", "invariant/ledger-order", 7, "t")
    text = case_yaml(found, "Generated counterexample: seed=7; failing check: x")
    assert text.startswith("# Generated counterexample: seed=7")
    assert "--seed=7" in (found.notes or "")
    # the search's seed is never read as a citation of design behaviour 7 (seed §7)
    assert unresolved(found.notes or "") == []
    assert "seed 7" not in (found.notes or "")
    assert "invariant/ledger-order" in (found.notes or "")
    assert lint_case(found, f"{found.features[0]}/{found.id}.yaml") == []


def test_citations_come_from_the_failing_check() -> None:
    cited = citations("anthropic-messages/thinking-signature-required")
    assert RuleRef(rule="A3") in cited
    assert citations("no-such-check")  # the ledger's rules, never nothing


def test_a_case_that_does_not_load_back_is_refused(tmp_path: Path) -> None:
    """The printed file is checked: a case the lint refuses is never printed."""
    from conformance._cases.schema import Given, Turn
    from conformance.generate.conversations import TOOLS, build_case
    from conformance.vocabulary import Reasoning, ScriptedResponse

    unsigned = ScriptedResponse(stop="end", blocks=(Reasoning(text="hm"),))
    given = Given(tools=TOOLS, turns=(Turn(user="go on", responses=(unsigned,)),))
    bad = build_case("openai-responses", given, [RuleRef(rule=5)])
    with pytest.raises(CaseFileError, match="lint"):
        case_yaml(bad, "x")
    assert not list(tmp_path.iterdir())
    _ = save_case
