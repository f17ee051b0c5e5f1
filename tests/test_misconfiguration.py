"""A selection that can run nothing is a usage error with a one-line reason (exit 2),
never a green run that tested nothing; `-q` still shows case-file errors; a target whose
module is not found says what to put on ``sys.path``; a run on the bundled reference says
so in its summary line and its JSON report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance._cli import EXIT_FAILED, EXIT_USAGE, main

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
        "from conformance._reference.adapter import ReferenceAdapter\n"
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
    (line,) = out
    assert line.startswith("3 pass, 14 n/a · 73 cells of wires httpx-anthropic-min does not")
    assert json.loads(report.read_text())["bundled_target"] is False


def test_a_wire_that_no_selected_case_runs_on_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 25 item 7: the globs match cases and the wire exists, but no selected case
    runs on the wire: nothing ran, so the run is not green, and the line names the filter
    that emptied it."""
    code, out = run(capsys, "--case", "back-to-back-*", "--wire", "gemini")
    assert code == EXIT_USAGE
    assert out == [
        "wire-conformance: --wire gemini leaves no cell: the 3 cases --case 'back-to-back-*' "
        "selects run only on anthropic-messages, openai-chat:openrouter"
    ]


def test_a_selection_whose_every_cell_is_na_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every selected cell n/a (undeclared wires and missing capabilities, counted by
    cause) runs nothing: exit 2, with the capability and where to declare it."""
    code, out = run(capsys, "--target", CLIENT, "--case", "cross-wire-*")
    assert code == EXIT_USAGE
    (line,) = out
    assert line.startswith("wire-conformance: every one of the 39 selected cells is n/a: ")
    assert "35 on wires the target httpx-anthropic-min does not declare (gemini, " in line
    assert (
        f"4 need capability history, which the target does not declare (if it has it, "
        f"list it in {CLIENT}.capabilities)"
    ) in line


def test_a_cmd_target_is_told_how_to_declare_a_capability(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 25 item 11: not "which command targets lack": a manifest declares them."""
    code, out = run(capsys, "--target", "cmd:true", "--case", "cross-wire-*")
    assert code == EXIT_USAGE
    assert "command targets lack" not in out[0]
    assert (
        "need capability history, which the target does not declare (a `cmd:` target "
        "declares none; if it has it, run it from a target manifest that lists it under "
        "`capabilities`: docs/targets.md#target-manifests)"
    ) in out[0]


def test_a_manifest_target_is_told_where_to_declare_a_capability(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "target.toml"
    manifest.write_text(
        'name = "mine"\nkind = "command"\ncommand = "true"\ncontract = 2\n'
        'wires = ["anthropic-messages"]\n'
    )
    code, out = run(capsys, "--target", str(manifest), "--case", "cross-wire-*")
    assert code == EXIT_USAGE
    assert out[0].endswith(
        "4 need capability history, which the target does not declare "
        f"(if it has it, list it under `capabilities` in {manifest})"
    )


# ------------------------------------------------- issue 25 item 8: typos, suggested


def test_a_target_class_with_a_mistyped_capability_or_wire_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Class attributes are as strict as a manifest: `histroy` was accepted silently (every
    case needing history n/a), a wire `anthropic` read as "the selection has only …"."""
    (tmp_path / "typo_adapter.py").write_text(
        "from conformance._reference.adapter import ReferenceAdapter\n"
        "class Mine(ReferenceAdapter):\n"
        "    name = 'mine'\n"
        "    wires = frozenset({'anthropic'})\n"
        "    capabilities = frozenset({'histroy'})\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out = run(capsys, "--target", "typo_adapter:Mine")
    assert code == EXIT_USAGE
    (line,) = out
    assert "typo_adapter:Mine: unknown wire anthropic (did you mean 'anthropic-messages'?)" in line
    assert "unknown capability histroy (did you mean 'history'?); known: betas, history" in line
    code, out = run(capsys, "--target", "typo_adapter:Mien")
    assert (code, out) == (
        EXIT_USAGE,
        ["wire-conformance: 'typo_adapter' has no attribute 'Mien' (did you mean 'Mine'?)"],
    )


def test_a_mistyped_wire_option_or_case_id_gets_a_suggestion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out = run(capsys, "--wire", "anthropic-mesages")
    assert code == EXIT_USAGE
    assert out[0].startswith(
        "wire-conformance: unknown wire anthropic-mesages (did you mean 'anthropic-messages'?)"
    )
    assert main(["cases", "--show", "xml-structured-call-prefered"]) == EXIT_FAILED
    assert (
        "error: no case 'xml-structured-call-prefered' in the library "
        "(did you mean 'xml-structured-call-preferred'?)"
    ) in capsys.readouterr().out
