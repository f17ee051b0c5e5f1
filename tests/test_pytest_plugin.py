"""The pytest plugin and ConformanceSuite, exercised the way users run them (pytester)."""

from __future__ import annotations

import importlib
import inspect
import json
import shutil
from pathlib import Path

import pytest

from conformance._cases.library import bundled_snapshots_dir
from conformance._cli import main
from conformance._snapshots import CELL_PARAMETER
from conformance.pytest import plugin
from conformance.pytest._suite import ConformanceSuite

#: Runs are in-process (no interpreter, import and assertion rewriting of a new one
#: per run) except where the process boundary is what a test is about.
# The in-process runs under ``-n 2`` import xdist's controller; imported here once, it
# stays in ``sys.modules`` across them (pytester restores the modules of before each
# run), instead of being rewritten and compiled again inside each run's deep stack,
# where CPython 3.11's AST constructor can fail spuriously ("AST constructor recursion
# depth mismatch", python/cpython#106905; pytest-dev/pytest#10763).
importlib.import_module("xdist.dsession")

pytestmark = pytest.mark.usefixtures("conformance_imported")


@pytest.fixture(autouse=True)
def _not_inside_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pytest runs these tests start are sessions of their own: when this test file
    itself runs under xdist, the worker's variables would make them look like workers
    (syrupy, for one, then keeps its report for a controller that does not exist)."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


SUITE = """
from conformance._reference.adapter import ReferenceAdapter
from conformance.pytest._suite import ConformanceSuite


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


#: Turns syrupy's warnings (e.g. "Can not relate snapshot location") into failures.
NO_WARNINGS = ("-W", "error::UserWarning")
#: What the first run of the default suite writes, which three tests read.
FIRST_RUN_OUTPUT = ("snaps", "ex")


class FirstRun:
    """The default suite's first run (``--snapshot-update``, saving exchanges, syrupy's
    warnings as errors), started once per module by the first test that needs it: three
    tests read what it prints and writes, each in its own pytester folder (a copy)."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.result: pytest.RunResult | None = None

    def into(self, pytester: pytest.Pytester) -> pytest.RunResult:
        """The run's result, with its snapshots and exchanges in ``pytester``'s folder."""
        suite(pytester)
        if self.result is None:
            self.result = pytester.runpytest_inprocess(
                "--snapshot-update", "--conformance-save-exchanges", "ex", *NO_WARNINGS
            )
            for name in FIRST_RUN_OUTPUT:
                if (pytester.path / name).exists():
                    shutil.copytree(pytester.path / name, self.store / name)
        else:
            for name in FIRST_RUN_OUTPUT:
                if (self.store / name).exists():
                    shutil.copytree(self.store / name, pytester.path / name)
        return self.result


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> FirstRun:
    return FirstRun(tmp_path_factory.mktemp("first-run"))


#: The tests that read the first run, on one worker under ``--dist loadgroup``.
READS_THE_FIRST_RUN = pytest.mark.xdist_group("pytest-plugin-first-run")


@pytest.mark.slow
@READS_THE_FIRST_RUN
def test_cells_pass_and_snapshots_are_written_then_checked(
    pytester: pytest.Pytester, first_run: FirstRun
) -> None:
    first_run.into(pytester).assert_outcomes(passed=17)
    written = sorted((pytester.path / "snaps" / "reference" / "anthropic-messages").glob("*.json"))
    assert len(written) == 17
    body = json.loads(written[0].read_text())
    assert isinstance(body, list)
    assert body[0]["model"] == "claude-sonnet-4-5"
    pytester.runpytest_inprocess().assert_outcomes(passed=17)
    # A changed snapshot is a regression the net catches, after the normative checks passed.
    written[0].write_text(written[0].read_text().replace("claude-sonnet-4-5", "other-model"))
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=16, failed=1)
    result.stdout.fnmatch_lines(["*snapshot*"])


@pytest.mark.slow
def test_parametrized_ids_name_case_and_wire(pytester: pytest.Pytester) -> None:
    suite(pytester, snapshots=None)
    result = pytester.runpytest_inprocess("--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["*test_conformance[[]xml-invoke-dialect-recovered@anthropic-messages[]]*"]
    )


@pytest.mark.slow
def test_missing_capability_is_skipped_with_the_reason(pytester: pytest.Pytester) -> None:
    suite(pytester, target="Plain", patterns=("xml-*", "empty-terminal-output-*"), snapshots=None)
    result = pytester.runpytest_inprocess("-rs")
    result.assert_outcomes(passed=3, skipped=19)  # three xml cases need no recovery
    result.stdout.fnmatch_lines(["*n/a: needs capability xml-recovery*"])
    result.stdout.fnmatch_lines(["*n/a: needs capability output-selection*"])


@pytest.mark.slow
def test_pins_are_strict_xfails(pytester: pytest.Pytester) -> None:
    pins = {
        "truncation-max-tokens-empty-content": "a failing pin",
        "tool-pairing-parallel-calls-results-first": "a pin that no longer fails",
    }
    pytester.makepyfile(
        broken="""
from conformance._reference.adapter import ReferenceAdapter

class Broken(ReferenceAdapter):
    name = "broken"
    pins = PINS

    def __init__(self) -> None:
        super().__init__(disabled=frozenset({"skip-empty-assistant"}))
""".replace("PINS", repr(pins))
    )
    suite(pytester, target="'broken:Broken'", snapshots=None, patterns=tuple(pins))
    result = pytester.runpytest_inprocess("-rxX", "-p", "no:cacheprovider")
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(["*unexpected pass: remove the pin (a pin that no longer fails)*"])


@pytest.mark.slow
def test_option_selects_the_target_of_suites_that_name_none(pytester: pytest.Pytester) -> None:
    suite(pytester, target="None", snapshots=None, patterns=("xml-unknown-*",))
    pytester.makepyfile(
        other="""
from conformance._reference.adapter import ReferenceAdapter

class Named(ReferenceAdapter):
    name = "named-from-option"
"""
    )
    result = pytester.runpytest_inprocess("--conformance-target", "other:Named", "-v")
    result.assert_outcomes(passed=1)


@pytest.mark.slow
def test_a_broken_case_file_fails_alone(pytester: pytest.Pytester, tmp_path: Path) -> None:
    extra = tmp_path / "mine" / "truncation"
    extra.mkdir(parents=True)
    (extra / "bad.yaml").write_text("id: bad\ntitle: [unclosed\n")
    suite(pytester, snapshots=None, patterns=("xml-unknown-*",))
    result = pytester.runpytest_inprocess("--conformance-cases", str(tmp_path / "mine"))
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*case file error: *bad.yaml:3: *flow sequence that starts at line 2*"]
    )


@pytest.mark.slow
def test_runs_under_xdist(pytester: pytest.Pytester) -> None:
    suite(pytester, snapshots=None, patterns=("*",))
    result = pytester.runpytest_inprocess("-n", "2")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0
    assert outcomes["passed"] >= 40


@pytest.mark.slow
def test_the_plugin_module_stays_import_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys, conformance.pytest.plugin; "
        "heavy = [m for m in ('pydantic', 'httpx', 'yaml', 'rich', 'conformance._runner') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_cell_parameter_is_the_one_the_suite_takes_and_the_plugin_parametrizes() -> None:
    assert plugin.FIXTURE == CELL_PARAMETER
    assert CELL_PARAMETER in inspect.signature(ConformanceSuite.test_conformance).parameters


SNAPS = Path("snaps", "reference")
STALE = ("anthropic-messages/deleted-case.json", "dropped-wire/a-case.json")


def written(root: Path) -> dict[Path, bytes]:
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*.json"))}


def add_snapshots(pytester: pytest.Pytester) -> Path:
    """The two stale files, and the snapshot of a real cell the suite does not run (its
    class selects Anthropic's xml cases only): never stale, never deleted."""
    root = pytester.path / SNAPS
    for stale in STALE:
        (root / stale).parent.mkdir(parents=True, exist_ok=True)
        (root / stale).write_text("[]\n")
    other = next((bundled_snapshots_dir() / "reference" / "gemini").glob("*.json"))
    (root / "gemini").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(other, root / "gemini" / other.name)
    return root / "gemini" / other.name


@pytest.mark.slow
@READS_THE_FIRST_RUN
def test_the_plugin_and_the_command_line_write_the_same_bytes(
    pytester: pytest.Pytester, tmp_path: Path, first_run: FirstRun
) -> None:
    result = first_run.into(pytester)
    result.assert_outcomes(passed=17)
    assert "Can not relate" not in result.stdout.str()
    cli = tmp_path / "cli"
    args = ["--case", "xml-*", "--wire", "anthropic-messages", "--update-snapshots"]
    assert main(["run", "-q", "--snapshots", str(cli), *args]) == 0
    from_pytest = written(pytester.path / "snaps")
    assert len(from_pytest) == 17
    assert written(cli) == from_pytest


@pytest.mark.slow
def test_stale_snapshots_are_reported_then_deleted_only_by_a_whole_update(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester)
    # A module of plain tests beside the suite: syrupy asks the extension about it too.
    pytester.makepyfile(test_plain="def test_plain() -> None:\n    pass\n")
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=18)
    other = add_snapshots(pytester)
    before = written(pytester.path / "snaps")

    reported = pytester.runpytest_inprocess(*NO_WARNINGS)
    reported.assert_outcomes(passed=18)
    assert reported.ret == 0  # syrupy does not count the suite's files as its own unused
    reported.stdout.fnmatch_lines(
        [
            "*2 unused snapshots: re-run with --snapshot-update to delete them.",
            f"Unused {SNAPS / STALE[0]}",
            f"Unused {SNAPS / STALE[1]}",
        ]
    )
    assert written(pytester.path / "snaps") == before

    cell = "xml-unknown-tool-left-untouched@anthropic-messages"
    one = f"test_mine.py::TestMine::test_conformance[{cell}]"
    for filtered in (
        ["-k", "xml-unknown"],
        ["--conformance-case", "xml-unknown-*"],
        ["--conformance-wire", "anthropic-messages"],
        [one],
    ):
        result = pytester.runpytest_inprocess("--snapshot-update", *NO_WARNINGS, *filtered)
        assert result.ret == 0, filtered
        assert "unused" not in result.stdout.str(), filtered
        assert written(pytester.path / "snaps") == before, filtered

    deleted = pytester.runpytest_inprocess("--snapshot-update", *NO_WARNINGS)
    deleted.assert_outcomes(passed=18)
    deleted.stdout.fnmatch_lines(
        [
            "*2 unused snapshots deleted.",
            f"Deleted {SNAPS / STALE[0]}",
            f"Deleted {SNAPS / STALE[1]}",
        ]
    )
    after = written(pytester.path / "snaps")
    assert set(before) - set(after) == {SNAPS.relative_to("snaps") / stale for stale in STALE}
    assert other.exists()
    assert not (pytester.path / SNAPS / "dropped-wire").exists()


@pytest.mark.slow
def test_updating_under_xdist_writes_new_snapshots_and_deletes_stale_ones_once(
    pytester: pytest.Pytester,
) -> None:
    """One update run under xdist meets every kind of snapshot at once: missing ones
    (written), a changed one (updated, counted once), stale ones (deleted once, by one
    worker) and another class's (kept); a check run under xdist then finds them all
    current.  (Each ``-n 2`` run starts two pytest processes: one update run, not one
    per kind.)"""
    suite(pytester)
    other = add_snapshots(pytester)
    changed = Path(SNAPS, "anthropic-messages", "xml-unknown-tool-left-untouched.json")
    (pytester.path / changed).write_text("[]\n")
    result = pytester.runpytest_inprocess("-n", "2", "--snapshot-update", *NO_WARNINGS)
    result.assert_outcomes(passed=17)
    out = result.stdout.str()
    assert out.count("1 snapshot updated.") == 1
    assert out.count("2 unused snapshots deleted.") == 1
    assert out.count(f"Deleted {SNAPS / STALE[0]}") == 1
    after = written(pytester.path / "snaps")
    assert len(after) == 17 + 1
    assert after[changed.relative_to("snaps")] != b"[]\n"
    assert other.exists()
    assert not any((pytester.path / SNAPS / stale).exists() for stale in STALE)
    again = pytester.runpytest_inprocess("-n", "2", *NO_WARNINGS)
    again.assert_outcomes(passed=17)
    assert "unused" not in again.stdout.str()
    assert written(pytester.path / "snaps") == after


@pytest.mark.slow
@READS_THE_FIRST_RUN
def test_save_exchanges_writes_one_file_per_cell(
    pytester: pytest.Pytester, first_run: FirstRun
) -> None:
    """Issue 15: ``--conformance-save-exchanges DIR`` keeps every request and response."""
    first_run.into(pytester).assert_outcomes(passed=17)
    saved = sorted((pytester.path / "ex" / "reference" / "anthropic-messages").glob("*.json"))
    assert len(saved) == 17
    first = json.loads(saved[0].read_text())
    assert first["verdict"] == "pass"
    assert first["exchanges"][0]["request"]["path"] == "/v1/messages"
