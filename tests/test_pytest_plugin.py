"""The pytest plugin and ConformanceSuite, exercised the way users run them (pytester)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SUITE = """
from conformance.reference.adapter import ReferenceAdapter
from conformance.pytest.suite import ConformanceSuite


class Plain(ReferenceAdapter):
    name = "plain"
    capabilities = frozenset()
    pins = {PINS}


class TestMine(ConformanceSuite):
    target = TARGET
    case_patterns = PATTERNS
    snapshot_dir = SNAPSHOTS
    wires = ("anthropic-messages",)
"""


def suite(
    pytester: pytest.Pytester,
    target: str = "'reference'",
    patterns: tuple[str, ...] = ("xml-*",),
    snapshots: str | None = "'snaps'",
    pins: dict[str, str] | None = None,
) -> None:
    pytester.makepyfile(
        test_mine=SUITE.replace("TARGET", target)
        .replace("PATTERNS", repr(patterns))
        .replace("SNAPSHOTS", repr(None) if snapshots is None else snapshots)
        .replace("{PINS}", repr(pins or {}))
    )


def test_cells_pass_and_snapshots_are_written_then_checked(pytester: pytest.Pytester) -> None:
    suite(pytester)
    first = pytester.runpytest_subprocess("--snapshot-update")
    first.assert_outcomes(passed=8)
    written = sorted((pytester.path / "snaps" / "reference" / "anthropic-messages").glob("*.json"))
    assert len(written) == 8
    body = json.loads(written[0].read_text())
    assert isinstance(body, list)
    assert body[0]["model"] == "model-under-test"
    pytester.runpytest_subprocess().assert_outcomes(passed=8)
    # A changed snapshot is a regression the net catches, after the normative checks passed.
    written[0].write_text(written[0].read_text().replace("model-under-test", "other-model"))
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=7, failed=1)
    result.stdout.fnmatch_lines(["*snapshot*"])


def test_parametrized_ids_name_case_and_wire(pytester: pytest.Pytester) -> None:
    suite(pytester, snapshots=None)
    result = pytester.runpytest_subprocess("--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["*test_conformance[[]xml-invoke-dialect-recovered@anthropic-messages[]]*"]
    )


def test_missing_capability_is_skipped_with_the_reason(pytester: pytest.Pytester) -> None:
    suite(pytester, target="Plain", patterns=("xml-*", "empty-terminal-output-*"), snapshots=None)
    result = pytester.runpytest_subprocess("-rs")
    result.assert_outcomes(passed=3, skipped=10)  # three xml cases need no recovery
    result.stdout.fnmatch_lines(["*n/a: needs capability xml-recovery*"])
    result.stdout.fnmatch_lines(["*n/a: needs capability output-selection*"])


def test_pins_are_strict_xfails(pytester: pytest.Pytester) -> None:
    pins = {
        "truncation-max-tokens-empty-content": "a failing pin",
        "tool-pairing-parallel-calls-results-first": "a pin that no longer fails",
    }
    pytester.makepyfile(
        broken="""
from conformance.reference.adapter import ReferenceAdapter

class Broken(ReferenceAdapter):
    name = "broken"
    pins = PINS

    def __init__(self) -> None:
        super().__init__(disabled=frozenset({"skip-empty-assistant"}))
""".replace("PINS", repr(pins))
    )
    suite(pytester, target="'broken:Broken'", snapshots=None, patterns=tuple(pins))
    result = pytester.runpytest_subprocess("-rxX", "-p", "no:cacheprovider")
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(["*unexpected pass: remove the pin (a pin that no longer fails)*"])


def test_option_selects_the_target_of_suites_that_name_none(pytester: pytest.Pytester) -> None:
    suite(pytester, target="None", snapshots=None, patterns=("xml-unknown-*",))
    pytester.makepyfile(
        other="""
from conformance.reference.adapter import ReferenceAdapter

class Named(ReferenceAdapter):
    name = "named-from-option"
"""
    )
    result = pytester.runpytest_subprocess("--conformance-target", "other:Named", "-v")
    result.assert_outcomes(passed=1)


def test_a_broken_case_file_fails_alone(pytester: pytest.Pytester, tmp_path: Path) -> None:
    extra = tmp_path / "mine" / "truncation"
    extra.mkdir(parents=True)
    (extra / "bad.yaml").write_text("id: bad\ntitle: [unclosed\n")
    suite(pytester, snapshots=None, patterns=("xml-unknown-*",))
    result = pytester.runpytest_subprocess("--conformance-cases", str(tmp_path / "mine"))
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*case file error: *bad.yaml:3: *flow sequence that starts at line 2*"]
    )


def test_runs_under_xdist(pytester: pytest.Pytester) -> None:
    suite(pytester, snapshots=None, patterns=("*",))
    result = pytester.runpytest_subprocess("-n", "2")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0
    assert outcomes["passed"] >= 40


def test_the_plugin_module_stays_import_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys, conformance.pytest.plugin; "
        "heavy = [m for m in ('pydantic', 'httpx', 'yaml', 'rich', 'conformance.runner') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
