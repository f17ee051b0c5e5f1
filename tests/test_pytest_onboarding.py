"""The pytest path of a new user: misconfiguration is a collection error with one line
and a non-zero exit (before: an empty parameter set, exit 0); undeclared wires are not
collected (before: a wall of skips); the first run without snapshots judges the cells and
says how to record them (before: one "snapshot does not exist" failure per cell); a
drifted snapshot fails with its diff, not this library's source; the bundled reference
is named; ``--conformance-target-name`` names the snapshot directory."""

from __future__ import annotations

import pytest

SUITE = """
from conformance import ConformanceSuite
from conformance._reference.adapter import ReferenceAdapter


class Mine(ReferenceAdapter):
    name = "mine"
    wires = frozenset({"anthropic-messages"})


class TestMine(ConformanceSuite):
    target = TARGET
    case_patterns = ("xml-*",)
"""


#: Runs are in-process (no interpreter, import and assertion rewriting of a new one
#: per run) except where the process boundary is what a test is about.
pytestmark = pytest.mark.usefixtures("conformance_imported")


@pytest.fixture(autouse=True)
def _not_inside_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


def suite(pytester: pytest.Pytester, target: str = "Mine") -> None:
    pytester.makepyfile(test_mine=SUITE.replace("TARGET", target))


@pytest.mark.slow
def test_a_mistyped_wire_option_is_a_usage_error(pytester: pytest.Pytester) -> None:
    suite(pytester)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--conformance-wire", "gemni")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --conformance-wire: unknown wire gemni (did you mean 'gemini'?); known: *"]
    )


@pytest.mark.slow
def test_a_case_option_that_matches_nothing_fails_collection(pytester: pytest.Pytester) -> None:
    suite(pytester)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--conformance-case", "nope")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["wire-conformance: --conformance-case 'nope' matches no case*"])
    assert "Traceback" not in result.stdout.str()


@pytest.mark.slow
def test_a_missing_cases_directory_is_a_usage_error(pytester: pytest.Pytester) -> None:
    suite(pytester)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--conformance-cases", "gone")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --conformance-cases gone: no such directory"])


@pytest.mark.slow
def test_a_wire_the_target_does_not_speak_fails_collection(pytester: pytest.Pytester) -> None:
    suite(pytester)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--conformance-wire", "gemini")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["wire-conformance: TestMine: the target mine declares anthropic-messages; *gemini"]
    )


@pytest.mark.slow
def test_first_run_undeclared_wires_then_snapshots(pytester: pytest.Pytester) -> None:
    suite(pytester)
    first = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    first.assert_outcomes(passed=17)  # no skip for the 73 cells of undeclared wires
    first.stdout.fnmatch_lines(
        [
            "TestMine: 73 cells of wires mine does not declare (gemini, *) were not collected",
            "no snapshots for mine under snapshots/ yet: *record them with "
            "`pytest --snapshot-update`*",
        ]
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider", "--snapshot-update").assert_outcomes(
        passed=17
    )
    written = sorted((pytester.path / "snapshots" / "mine" / "anthropic-messages").glob("*.json"))
    assert len(written) == 17
    written[0].write_text(written[0].read_text().replace("claude-sonnet-4-5", "other-model"))
    drifted = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    drifted.assert_outcomes(passed=16, failed=1)
    drifted.stdout.fnmatch_lines(
        [
            "the request bodies drifted from the snapshot (accept with `pytest *",
            '-     "model": "other-model",',
            '+     "model": "claude-sonnet-4-5",',
        ]
    )
    out = drifted.stdout.str()
    assert "cells.py" not in out  # no traceback into the library
    assert "\x1b[" not in out
    written[1].unlink()  # a cell without its snapshot, once others exist
    missing = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-k", written[1].stem)
    missing.stdout.fnmatch_lines(
        [
            "no snapshot for this cell yet (*): record it with *",
            "1 cell now passes but has no snapshot (they fail until recorded; *",
        ]
    )


@pytest.mark.slow
def test_the_bundled_reference_is_named(pytester: pytest.Pytester) -> None:
    suite(pytester, target="None")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--conformance-wire", "gemini")
    result.assert_outcomes(passed=12)
    result.stdout.fnmatch_lines(["TestMine: the target is the bundled reference adapter, *"])


@pytest.mark.slow
def test_the_target_name_option_names_the_snapshot_directory(pytester: pytest.Pytester) -> None:
    suite(pytester, target="None")
    result = pytester.runpytest_inprocess(
        "-p",
        "no:cacheprovider",
        "--conformance-target",
        "test_mine:Mine",
        "--conformance-target-name",
        "my-adapter-v2",
        "--snapshot-update",
    )
    result.assert_outcomes(passed=17)
    assert (pytester.path / "snapshots" / "my-adapter-v2" / "anthropic-messages").is_dir()


@pytest.mark.slow
def test_a_target_module_not_on_sys_path_says_where_to_put_it(pytester: pytest.Pytester) -> None:
    suite(pytester, target="'not_on_the_path_xyz:Mine'")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "wire-conformance: TestMine.target: cannot import 'not_on_the_path_xyz': *; put "
            "the directory that holds 'not_on_the_path_xyz' on sys.path: *`pythonpath = *"
        ]
    )
    assert "During handling" not in result.stdout.str()
