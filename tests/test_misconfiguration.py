"""A selection that can run nothing is a usage error with a one-line reason (exit 2),
never a green run that tested nothing; `-q` still shows case-file errors; a target whose
module is not found says what to put on ``sys.path``; a run on the bundled reference says
so in its summary line and its JSON report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import EXIT_FAILED, EXIT_USAGE, main

CLIENT = "harness.clients.httpx_client:HttpxAnthropicClient"  # speaks anthropic-messages


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = main(["run", "-q", *args])
    return code, capsys.readouterr().out.splitlines()


def test_a_case_glob_that_matches_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--case", "xml-*", "--case", "no-such-case-*")
    assert code == EXIT_USAGE
    assert out == [
        "wire-conformance: --case 'no-such-case-*' matches no case "
        "(list them with `wire-conformance cases`)"
    ]


def test_a_cases_dir_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(capsys, "--cases", str(tmp_path / "missing"))
    assert code == EXIT_USAGE
    assert out == [f"wire-conformance: --cases {tmp_path / 'missing'}: no such directory"]


def test_a_cases_dir_with_no_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("not a case\n")
    code, out = run(capsys, "--cases", str(tmp_path))
    assert code == EXIT_USAGE
    assert out == [f"wire-conformance: --cases {tmp_path}: holds no case file (*.yaml)"]


def test_a_target_that_speaks_none_of_the_selected_wires(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out = run(capsys, "--target", CLIENT, "--wire", "gemini", "--case", "xml-*")
    assert code == EXIT_USAGE
    assert out == [
        "wire-conformance: the target httpx-anthropic-min declares anthropic-messages; "
        "the selection has only gemini"
    ]


def test_quiet_still_prints_case_file_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.yaml").write_text("id: [unclosed\n")
    code, out = run(capsys, "--cases", str(tmp_path), "--case", "xml-*", "--wire", "gemini")
    assert code == EXIT_FAILED
    assert out[0].startswith(f"case file error: {tmp_path / 'bad.yaml'}")
    assert out[-1].startswith("12 pass")


def test_a_target_module_not_found_says_what_to_put_on_sys_path(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out = run(capsys, "--target", "my_project_adapter:MyAdapter")
    assert code == EXIT_USAGE
    assert len(out) == 1
    assert "No module named 'my_project_adapter'" in out[0]
    assert "put the directory that holds 'my_project_adapter' on sys.path" in out[0]
    assert "project root" in out[0]


def test_a_missing_dependency_of_the_target_gets_no_sys_path_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "needs_dep.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out = run(capsys, "--target", "needs_dep:Adapter")
    assert code == EXIT_USAGE
    assert "No module named 'no_such_dependency_xyz'" in out[0]
    assert "sys.path" not in out[0]


def test_the_command_line_finds_a_target_in_the_current_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_cwd_adapter.py").write_text(
        "from conformance.reference.adapter import ReferenceAdapter\n"
        "class Mine(ReferenceAdapter):\n    name = 'mine'\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", ".")])
    code, out = run(capsys, "--target", "my_cwd_adapter:Mine", "--case", "xml-*")
    assert code == 0
    assert out == ["90 pass"]


def test_a_run_on_the_bundled_reference_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    code, out = run(capsys, "--case", "xml-*", "--json", str(report))
    assert code == 0
    assert out == ["90 pass · target: the bundled reference adapter, not your code (use --target)"]
    assert json.loads(report.read_text())["bundled_target"] is True
    code, out = run(capsys, "--case", "xml-*", "--target", CLIENT, "--json", str(report))
    assert out == ["3 pass, 87 n/a"]
    assert json.loads(report.read_text())["bundled_target"] is False
