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

from conformance.cli import main
from conformance.report.junit import to_junit
from conformance.report.markdown import to_markdown
from conformance.report.model import build_report, to_json
from conformance.report.terminal import LEGEND, print_report
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
    from conformance.wires.registry import columns

    assert main(["run", "--format", form, "--strict"]) == 0
    out = capsys.readouterr().out
    assert "♊" not in out
    for column in columns():
        assert (f"  {column}: " in out) if form == "list" else (column in out), column
