"""Reports a reader can use: the matrix is never cut in a log with no terminal width
(and a list form says the same where it does not fit); every report names the case's
title, its file and the failed expectation's ``why``; `*` means one thing; JSON reports
carry no machine paths; a drifted snapshot prints its diff and the summary counts it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from rich.console import Console

from conformance._cli import main
from conformance._report.junit import to_junit
from conformance._report.markdown import to_markdown
from conformance._report.report_schema import build_report, to_json
from conformance._report.terminal import LEGEND, print_report
from conformance.verdict import Result, Violation

WIRES = ("anthropic-messages", "gemini", "openai-chat", "openai-chat:deepseek", "openai-responses")
BROKEN = "harness.broken.hoist_thinking:HoistThinkingAdapter"
CASE = "interleaved-two-episodes-one-response"


def wide_report() -> list[Result]:
    return [
        Result(case="a-rather-long-case-identifier-here", wire=w, verdict="pass") for w in WIRES
    ]


def printed(form: str, width: int) -> list[str]:
    console = Console(record=True, width=width)
    print_report(build_report("mine", "adapter", wide_report()), console, form)  # type: ignore[arg-type]
    return console.export_text().splitlines()


def test_a_matrix_is_never_cut_whatever_the_width() -> None:
    out = printed("matrix", 40)
    header = next(line for line in out if "case" in line)
    for wire in WIRES:
        assert f" {wire} " in header  # before: gemini shrank to nothing, others cut
    assert "a-rather-long-case-identifier-here" in "\n".join(out)


def test_a_narrow_output_gets_the_list() -> None:
    out = printed("auto", 80)
    assert out[1] == "a-rather-long-case-identifier-here  " + " · ".join(
        f"{w}: pass" for w in WIRES
    )
    assert any("┃" in line for line in printed("auto", 300))


@pytest.fixture
def failing(tmp_path: Path) -> dict[str, Path]:
    paths = {k: tmp_path / f"r.{k}" for k in ("json", "xml", "md")}
    code = main(
        [
            "run",
            "-q",
            "--target",
            BROKEN,
            "--case",
            CASE,
            "--wire",
            "anthropic-messages",
            "--json",
            str(paths["json"]),
            "--junit",
            str(paths["xml"]),
            "--markdown",
            str(paths["md"]),
        ]
    )
    assert code == 1
    return paths


TITLE = "Two signed thinking blocks interleaved with two tool calls in one response"
FILE = f"cases/interleaved-episodes/{CASE}.yaml"
WHY = "each episode keeps its own signature and its place between the calls"


def test_every_report_names_title_file_and_why(failing: dict[str, Path]) -> None:
    result = json.loads(failing["json"].read_text())["results"][0]
    assert result["title"].startswith(TITLE)
    assert result["file"] == FILE
    assert result["violations"][0]["why"].startswith(WHY)
    for kind in ("xml", "md"):
        text = failing[kind].read_text()
        assert TITLE in text
        assert f"case file: {FILE}" in text
        assert f"why: {WHY}" in text


def test_json_reports_carry_no_machine_paths() -> None:
    home = os.path.expanduser("~")
    crash = (
        "the target raised RuntimeError: x\n"
        f'  File "{Path.cwd()}/my_adapter.py", line 3, in open\n'
        f'  File "{home}/elsewhere/lib.py", line 9, in f'
    )
    error = Result(case="c", wire="gemini", verdict="error", reason=crash, stderr_tail=crash)
    text = to_json(build_report("mine", "adapter", [error]))
    assert str(Path.cwd()) not in text
    assert home + "/" not in text
    assert 'File \\"my_adapter.py\\", line 3' in text
    assert 'File \\"~/elsewhere/lib.py\\"' in text


def test_the_legend_and_junit_agree_on_marks_and_elements() -> None:
    warned = Violation(check="x/y", message="m", severity="should")
    results = [
        Result(case="a", wire="gemini", verdict="fail", violations=(warned,), warnings=(warned,)),
        Result(case="b", wire="gemini", verdict="error", reason="the target hung"),
        Result(case="c", wire="gemini", verdict="pass", warnings=(warned,)),
    ]
    report = build_report("mine", "adapter", results)
    markdown = to_markdown(report)
    assert "| `a` | fail* |" in markdown
    assert "| `c` | pass* |" in markdown
    assert LEGEND in markdown
    junit = to_junit(report)
    assert junit.count("<failure") == 1
    assert junit.count("<error") == 1


def test_a_drifted_snapshot_prints_its_diff_and_is_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "--format", "list", "--case", "xml-structured-call-preferred"]
    args += ["--wire", "anthropic-messages", "--snapshots", str(tmp_path)]
    assert main([*args, "--update-snapshots"]) == 0
    capsys.readouterr()
    (snap,) = tmp_path.rglob("*.json")
    snap.write_text(snap.read_text().replace("claude-sonnet-4-5", "other-model"))
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert "xml-structured-call-preferred [anthropic-messages]: snapshot changed" in out
    assert '  -    "model": "other-model",' in out
    assert '  +    "model": "claude-sonnet-4-5",' in out
    assert "1 pass · snapshots: 1 changed, 0 new · target: the bundled reference" in out[-1]


@pytest.mark.parametrize("form", ["list", "matrix"])
def test_every_column_name_prints_as_written(form: str, capsys: pytest.CaptureFixture[str]) -> None:
    """rich read `:gemini:` in `openai-chat:gemini: pass` as an emoji code and printed
    `openai-chat♊ pass` on every such line of the quick-start run."""
    from conformance.wires._registry import columns

    assert main(["run", "--format", form, "--strict"]) == 0
    out = capsys.readouterr().out
    assert "♊" not in out
    for column in columns():
        assert (f"  {column}: " in out) if form == "list" else (column in out), column


# ------------------------------------------------- issue 25: output a person reads

CLIENT = "harness.clients.httpx_client:HttpxAnthropicClient"  # declares anthropic-messages


def text_of(report_results: list[Result], verbose: bool = False, target: str = "mine") -> str:
    console = Console(record=True, width=200)
    print_report(build_report(target, "adapter", report_results), console, "list", verbose)
    return console.export_text()


def test_cells_of_undeclared_wires_are_counted_not_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 3: a one-wire target's run lists its own wire's cells; the others are one
    count in the summary line (as pytest says it did not collect them), kept apart from
    the cells that need a capability; the JSON report keeps every cell with its cause."""
    report = tmp_path / "r.json"
    md = tmp_path / "r.md"
    args = ["run", "--format", "list", "--target", CLIENT, "--case", "xml-*"]
    assert main([*args, "--json", str(report), "--markdown", str(md)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert not any("openai-responses: n/a" in line or "gemini: n/a" in line for line in out)
    assert len(out) == 1 + 17 + 2  # the title, the anthropic cells, capabilities, summary
    assert out[-2].startswith("n/a: 14 cells need a capability the target does not declare: ")
    assert out[-1].startswith(
        "3 pass, 14 n/a · 73 cells of wires httpx-anthropic-min does not declare (gemini, "
    )
    assert out[-1].endswith(") not run")
    results = json.loads(report.read_text())["results"]
    assert len(results) == 90
    causes = [r["not_applicable"] for r in results if r["verdict"] == "n/a"]
    assert (causes.count("undeclared-wire"), causes.count("missing-capability")) == (73, 14)
    markdown = md.read_text()
    assert "| case | anthropic-messages |" in markdown
    assert "73 cells of wires httpx-anthropic-min does not declare" in markdown


def test_missing_capabilities_are_a_line_of_their_own() -> None:
    needy = Result(
        case="a",
        wire="gemini",
        verdict="n/a",
        reason="needs capability history, …",
        not_applicable="missing-capability",
        missing=("history",),
    )
    other = Result(
        case="b", wire="openai-chat", verdict="n/a", reason="…", not_applicable="undeclared-wire"
    )
    passed = Result(case="b", wire="gemini", verdict="pass")
    out = text_of([needy, other, passed]).splitlines()
    assert "a  gemini: n/a" in out  # listed: the target declares the wire
    assert "n/a: 1 cell needs a capability the target does not declare: history (1)" in out[-2]
    assert out[-1] == "1 pass, 1 n/a · 1 cell of wires mine does not declare (openai-chat) not run"
    markdown = to_markdown(build_report("mine", "adapter", [needy, other, passed]))
    assert "| case | gemini |" in markdown
    assert "n/a: 1 cell needs a capability the target does not declare: history (1)" in markdown


def test_an_error_shared_by_many_cells_is_printed_once() -> None:
    """Item 4: a target that crashes in open() printed the same traceback per cell."""
    crash = 'the target raised RuntimeError: x\n  File "mine.py", line 3, in open'
    cells = [Result(case=f"c{i}", wire="gemini", verdict="error", reason=crash) for i in range(62)]
    text = text_of(cells)
    assert text.count("the target raised RuntimeError: x") == 1
    assert "the same error in 62 cells: c0 [gemini], c1 [gemini]" in text
    assert "and 54 more" in text
    markdown = to_markdown(build_report("mine", "adapter", cells))
    assert markdown.count("the target raised RuntimeError: x") == 1
    # different errors stay apart
    other = Result(case="z", wire="gemini", verdict="error", reason="the target hung")
    assert "z [gemini]: error" in text_of([*cells, other])


def test_an_errored_cell_lists_no_expectation_it_could_not_reach(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 4: `the target sent 0 request(s)` under a crash is the crash's cascade."""
    report = tmp_path / "r.json"
    target = "tests.targets.faulty:Raising"
    args = ["run", "--target", target, "--case", "interleaved-*", "--wire", "anthropic-messages"]
    assert main([*args, "--json", str(report)]) == 1
    out = capsys.readouterr().out
    assert "sent 0 request(s)" not in out
    assert out.count("RuntimeError: the adapter broke") == 2  # the reason and its traceback
    results = json.loads(report.read_text())["results"]
    assert all(r["violations"] == [] and r["warnings"] == [] for r in results)


def test_warnings_are_one_line_unless_verbose() -> None:
    """Item 5: a green run printed every warning of every cell."""
    warned = Violation(check="x/design-shape", message="m", severity="should", evidence="design")
    cells = [
        Result(case=f"c{i}", wire="gemini", verdict="pass", warnings=(warned,)) for i in range(3)
    ]
    quiet = text_of(cells)
    assert "- x/design-shape" not in quiet
    assert (
        "warnings: 3 in 3 cells (violations that did not fail them): x/design-shape (3); "
        "-v prints each" in quiet
    )
    loud = text_of(cells, verbose=True)
    assert loud.count("- x/design-shape [should, design]: m") == 3
    assert "warnings: 3" not in loud


def test_a_pytest_warning_points_at_the_case_file_with_no_source_line() -> None:
    """Item 5: pytest printed each ConformanceWarning with a line of the suite's source."""
    import warnings

    from conformance.pytest._cells import ConformanceWarning, warn

    warned = Violation(check="x/y", message="m", severity="should")
    result = Result(
        case="c", wire="gemini", verdict="pass", file="cases/c.yaml", warnings=(warned,)
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn(result)
    (one,) = caught
    assert one.category is ConformanceWarning
    assert (one.filename, one.lineno, str(one.message)) == ("cases/c.yaml", 0, "c@gemini: x/y: m")
    shown = warnings.formatwarning(one.message, one.category, one.filename, one.lineno)
    assert shown == "cases/c.yaml:0: ConformanceWarning: c@gemini: x/y: m\n"


def test_a_junit_failure_message_is_its_first_violation(failing: dict[str, Path]) -> None:
    """Item 6: every failure said `message="violations"`.  Read as a CI consumer reads
    it: junitparser when installed, and the standard library's parser always."""
    import xml.etree.ElementTree as ET

    xml = failing["xml"]
    first = json.loads(failing["json"].read_text())["results"][0]["violations"][0]
    expected = f"{first['check']}: {first['message']}".splitlines()[0]
    (failure,) = ET.parse(xml).getroot().iter("failure")
    assert failure.get("message") == expected
    assert failure.get("message") != "violations"
    assert f"case file: {FILE}" in (failure.text or "")
    junitparser = pytest.importorskip(
        "junitparser", reason="junitparser (a JUnit consumer's parser) is not installed"
    )
    parsed = junitparser.JUnitXml.fromfile(str(xml))
    suites = [parsed] if isinstance(parsed, junitparser.TestSuite) else list(parsed)
    (case,) = [case for suite in suites for case in suite]
    (result,) = case.result
    assert isinstance(result, junitparser.Failure)
    assert result.message == expected
    assert TITLE in (result.text or "")


def test_a_junit_error_message_is_the_first_line_of_its_reason() -> None:
    from conformance._report.junit import headline

    crash = 'the target raised RuntimeError: x\n  File "mine.py", line 3, in open'
    error = Result(case="c", wire="gemini", verdict="error", reason=crash, title="T")
    assert headline(error) == "the target raised RuntimeError: x"
    assert 'message="the target raised RuntimeError: x"' in to_junit(
        build_report("mine", "adapter", [error])
    )
    bare = Result(case="c", wire="gemini", verdict="fail", title="The title")
    assert headline(bare) == "The title"


# ------------------------------------------------- item 2: progress on long runs


def test_a_log_gets_one_line_per_cell_that_ran(capsys: pytest.CaptureFixture[str]) -> None:
    """`--progress lines` (auto for a command target in a log): each cell as it
    finishes; cells n/a before running count but print nothing."""
    import re

    args = ["run", "--format", "list", "--target", CLIENT, "--case", "xml-prose-*"]
    assert main([*args, "--progress", "lines"]) == 0
    out = capsys.readouterr().out.splitlines()
    progress = [line for line in out if line.startswith("[")]
    assert len(progress) == 1  # 17 of 18 cells are n/a before running: no line
    pattern = r"\[\d+/18\] xml-prose-[a-z-]+ \[anthropic-messages\]: pass \(\d+\.\d s\)"
    assert all(re.fullmatch(pattern, line) for line in progress), progress
    assert any(line.startswith("slowest cells: xml-prose-") for line in out)
    assert main([*args, "--progress", "off"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert not any(line.startswith(("[", "slowest cells:")) for line in out)


def test_auto_progress_is_a_bar_on_a_terminal_and_lines_for_commands_in_a_log() -> None:
    from conformance._report.progress import chosen

    terminal = Console(force_terminal=True)
    log = Console(force_terminal=False, file=__import__("io").StringIO())
    assert chosen("auto", terminal, quiet=False, slow_target=False) == "bar"
    assert chosen("auto", log, quiet=False, slow_target=True) == "lines"
    assert chosen("auto", log, quiet=False, slow_target=False) == "off"
    assert chosen("bar", terminal, quiet=True, slow_target=True) == "off"
    assert chosen("lines", terminal, quiet=False, slow_target=False) == "lines"


def test_the_bar_shows_cells_done_and_failures_so_far() -> None:
    import io

    from conformance._report.progress import cell_progress

    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=120)
    with cell_progress(console, 3, "bar") as seen:
        seen(Result(case="a", wire="gemini", verdict="pass", seconds=1.0))
        seen(Result(case="b", wire="gemini", verdict="fail", seconds=2.0))
        seen(Result(case="c", wire="gemini", verdict="error", seconds=0.5))
    shown = stream.getvalue()
    assert "3/3" in shown
    assert "2 failed" in shown
    assert "c [gemini]" in shown


def test_timings_are_ignored_by_every_comparison() -> None:
    """Item 2: the wall time varies run to run; --rounds, report diff and the
    byte-identity of reports do not read it."""
    from conformance._recording.diff import changed
    from conformance._report.progress import slowest
    from conformance._report.report_schema import untimed
    from conformance._rounds import _result_differences, compared_fields

    fast = Result(case="a", wire="gemini", verdict="pass", seconds=0.1)
    slow = fast.model_copy(update={"seconds": 9.5})
    assert _result_differences(2, {fast.key: compared_fields(fast)}, slow) == []
    one, two = (to_json(build_report("m", "adapter", [r])) for r in (fast, slow))
    assert one != two
    assert untimed(one) == untimed(two)
    assert changed({"a [gemini]": "pass"}, {"a [gemini]": "pass"}) == []
    assert slowest([fast, slow]) == "slowest cells: a [gemini] 9.5 s, a [gemini] 0.1 s"


def test_a_crash_shows_the_targets_frames_not_the_suites(tmp_path: Path) -> None:
    """Issue 25 item 16: docs/pytest.md promises no traceback into the library, and an
    error cell showed the suite's frames (kind.py, adapter.py) above the user's."""
    report = tmp_path / "r.json"
    args = ["run", "-q", "--target", "tests.targets.faulty:Raising", "--case", "interleaved-two-*"]
    assert main([*args, "--wire", "anthropic-messages", "--json", str(report)]) == 1
    (result,) = json.loads(report.read_text())["results"]
    assert 'File "tests/targets/faulty.py", line' in result["reason"]
    assert "conformance/_targets/" not in result["reason"]
    assert result["reason"].endswith("RuntimeError: the adapter broke")
