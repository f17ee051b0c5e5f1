"""``conformance.generate`` is the public way into generation: ``cases`` and ``judge``
take a user's adapter as it is (docs/generate.md's example), and importing the package
loads no hypothesis until a name is asked for."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import HealthCheck, given, settings

from conformance._reference.adapter import ReferenceAdapter
from conformance.generate import cases, judge
from harness.broken import MergeEpisodesAdapter

ANTHROPIC = "anthropic-messages"


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(cases(ANTHROPIC))
def test_the_reference_passes_generated_cases_through_the_public_judge(case: object) -> None:
    result = judge(ReferenceAdapter(), case, ANTHROPIC)  # type: ignore[arg-type]
    assert result.verdict not in ("fail", "error"), result.violations


def test_the_public_judge_condemns_a_broken_adapter() -> None:
    from conformance._cases.library import load_library

    library = load_library()
    case = next(
        c.case for c in library.cases if c.case.id == "interleaved-two-episodes-one-response"
    )
    assert judge(ReferenceAdapter, case, ANTHROPIC).verdict == "pass"
    assert judge(MergeEpisodesAdapter(), case, ANTHROPIC).verdict == "fail"


def test_importing_the_package_loads_no_hypothesis() -> None:
    code = "import sys, conformance.generate; print('hypothesis' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.stdout.strip() == "False", shown.stderr
