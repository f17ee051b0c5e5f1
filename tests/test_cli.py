"""The command line: exit codes, reports, bad input, and misbehaving targets."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from rich.console import Console

from conformance._cases.load_problem import LoadProblem
from conformance._checks.registry import all_checks
from conformance._cli import main
from conformance._provider.scripted import PROVIDER_RULES
from conformance._report.junit import to_junit
from conformance._report.markdown import to_markdown
from conformance._report.report_schema import REPORT_VERSION, Report, build_report, to_json, untimed
from conformance._report.terminal import print_report
from conformance.verdict import Result, Violation
from conformance.wires._registry import get_wire, wire_names


def run(*args: str) -> int:
    """`wire-conformance run -q` on the Anthropic column (so cell counts stay put)."""
    return main(["run", "-q", "--wire", "anthropic-messages", *args])


def test_run_writes_a_versioned_deterministic_report(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert run("--case", "xml-*", "--json", str(first)) == 0
    assert run("--case", "xml-*", "--json", str(second)) == 0
    # the same bytes, timings aside (issue 25 item 2: per-cell wall time)
    assert untimed(first.read_text()) == untimed(second.read_text())
    assert untimed(first.read_text()) != first.read_text()
    report = json.loads(first.read_text())
    assert all(isinstance(r["seconds"], float) for r in report["results"])
    assert report["report_version"] == REPORT_VERSION
    assert report["target"] == "reference"
    assert report["summary"]["pass"] == len(report["results"]) == 17
    assert set(report["summary"]) == {"pass", "fail", "pinned", "xfail", "n/a", "error"}
    result = report["results"][0]
    assert {"case", "wire", "verdict", "features", "violations"} <= set(result)


def test_junit_and_markdown_reports(tmp_path: Path) -> None:
    junit, markdown = tmp_path / "r.xml", tmp_path / "r.md"
    target = "harness.broken.hoist_thinking:HoistThinkingAdapter"
    code = run(
        "--target",
        target,
        "--case",
        "interleaved-*",
        "--junit",
        str(junit),
        "--markdown",
        str(markdown),
    )
    assert code == 1
    assert "<failure" in junit.read_text()
    assert "| `interleaved-two-episodes-one-response` | fail |" in markdown.read_text()


def test_a_failing_target_exits_1_and_names_the_violations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        [
            "run",
            "--target",
            "harness.broken.merge_episodes:MergeEpisodesAdapter",
            "--case",
            "interleaved-two-episodes-one-response",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "anthropic-messages/latest-thinking-immutable" in out
    assert "invariant/ledger-paired" in out


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("tests.targets.faulty:Raising", "the target raised RuntimeError: the adapter broke"),
        ("tests.targets.faulty:Hanging", "the target did not finish within 0.3 s"),
    ],
)
def test_a_crashing_or_hanging_target_is_an_error_and_the_run_goes_on(
    tmp_path: Path, target: str, reason: str
) -> None:
    out = tmp_path / "r.json"
    code = run(
        "--target",
        target,
        "--case",
        "tool-pairing-*",
        "--case",
        "xml-prose-mention-*",
        "--timeout",
        "0.3",
        "--json",
        str(out),
    )
    report = json.loads(out.read_text())
    assert code == 1
    assert len(report["results"]) == 2  # every cell ran
    assert {r["verdict"] for r in report["results"]} == {"error"}
    assert all(r["reason"].startswith(reason) for r in report["results"])


def test_a_body_that_is_not_json_fails_clearly(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert (
        run(
            "--target",
            "tests.targets.faulty:NotJson",
            "--case",
            "tool-pairing-*",
            "--json",
            str(out),
        )
        == 1
    )
    (result,) = json.loads(out.read_text())["results"]
    assert result["verdict"] == "fail"
    assert result["violations"][0]["check"] == "provider/malformed-request"
    assert "not valid JSON" in result["violations"][0]["message"]


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("--target", "no.such.module:Thing") == 2
    assert run("--wire", "carrier-pigeon") == 2
    assert run("--target", "cmd:") == 2
    assert "unknown wire carrier-pigeon" in capsys.readouterr().out


def test_a_bad_case_file_is_reported_and_the_others_still_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "mine" / "truncation"
    mine.mkdir(parents=True)
    (mine / "oops.yaml").write_text("id: oops\ntitle: A case with an unknown field\nwat: 1\n")
    out = tmp_path / "r.json"
    code = run("--cases", str(tmp_path / "mine"), "--case", "xml-unknown-*", "--json", str(out))
    report = json.loads(out.read_text())
    assert code == 1
    assert report["results"][0]["verdict"] == "pass"
    errors = {(Path(e["file"]).name, e["line"], e["field"]) for e in report["load_errors"]}
    assert ("oops.yaml", 3, "wat") in errors


def test_cases_schema_lint_and_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cases", "--schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert {"id", "provenance", "wires", "given", "expect"} <= set(schema["properties"])
    assert main(["cases", "--lint"]) == 0
    assert "0 lint problems" in capsys.readouterr().out
    assert main(["cases"]) == 0
    assert "interleaved-two-episodes-one-response" in capsys.readouterr().out


def test_checks_lists_every_id_with_its_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["checks"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for wanted in (
        "invariant/ledger-known",
        "invariant/append-only",
        "anthropic-messages/leading-thinking",
        "provider/beyond-script",
    ):
        assert any(line.startswith(f"{wanted}  ") for line in lines)
    checks = all_checks()
    assert len(lines) == len(checks)
    for line, check in zip(lines, checks, strict=True):
        source = check.source if check.ref is None else f"{check.ref}; {check.source}"
        assert (
            line
            == f"{check.id}  [{check.severity}, {check.evidence}]  {check.statement}  ({source})"
        )
    rules = [*PROVIDER_RULES, *(r for name in wire_names() for r in get_wire(name).rules)]
    listed = {line.split("  ", 1)[0]: line for line in lines}
    for rule in rules:  # every rule, with its ref and source, read from the rule itself
        assert listed[rule.id].endswith(f"  {rule.statement}  ({rule.ref}; {rule.source})")


def test_checks_kind_realism_lists_every_realism_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The ids `cases --lint` cites resolve where a reader looks them up."""
    assert main(["checks", "--kind", "realism"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "anthropic-messages/realism/unsigned-thinking  an unsigned thinking block;" in "\n".join(
        lines
    )
    assert not any(line.startswith("invariant/") for line in lines)  # only the realism ones
    assert main(["checks", "--kind", "realism", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert {
        "id": "realism/chat-only-interleaved-calls",
        "finding": ("interleaved_calls; only Chat Completions streams calls by index"),
    } in listing
    assert main(["checks", "--rule", "gemini/realism/noise"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        "gemini/realism/noise  [realism]",
        "  noise events; a Gemini stream carries only response chunks",
    ]


def test_checks_json_lists_every_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["checks", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing == [
        {
            "id": c.id,
            "statement": c.statement,
            "source": c.source,
            "severity": c.severity,
            "ref": c.ref,
            "evidence": c.evidence,
        }
        for c in all_checks()
    ]
    assert {"expect", "provider/beyond-script", "invariant/append-only"} <= {
        c["id"] for c in listing
    }


def test_snapshot_drift_is_reported_not_judged(tmp_path: Path) -> None:
    first = tmp_path / "first.json"
    assert (
        run(
            "--case",
            "xml-unknown-*",
            "--snapshots",
            str(tmp_path / "s"),
            "--update-snapshots",
            "--json",
            str(first),
        )
        == 0
    )
    assert json.loads(first.read_text())["results"][0]["snapshot"] == "new"
    (stored,) = (tmp_path / "s").rglob("*.json")
    stored.write_text(stored.read_text().replace('"model": "', '"model": "x-', 1))
    second = tmp_path / "second.json"
    assert (
        run("--case", "xml-unknown-*", "--snapshots", str(tmp_path / "s"), "--json", str(second))
        == 0
    )
    (result,) = json.loads(second.read_text())["results"]
    assert (result["verdict"], result["snapshot"]) == ("pass", "changed")


# ---------------------------------------------------------------- decode


def _recorded(tmp_path: Path, name: str, column: str, stream: bool) -> tuple[Path, object]:
    """A signed reasoning episode and a tool call, rendered for ``column`` as the provider
    sends it and saved as a recording; with the script it came from."""
    from conformance.vocabulary import ScriptedResponse
    from conformance.wires._registry import get_wire, split_column
    from conformance.wires.context import RenderContext

    response = ScriptedResponse.model_validate(
        {
            "stop": "tool_calls",
            "blocks": [
                {"kind": "reasoning", "text": "Read it first.", "signature": "EqQBc2ln"},
                {"kind": "tool_call", "id": "toolu_1", "name": "read", "arguments": {"p": "a"}},
            ],
        }
    )
    wire, dialect = split_column(column)
    context = RenderContext(0, "decode-case", "model-under-test", stream, dialect)
    path = tmp_path / name
    path.write_bytes(get_wire(wire).render(response, context).body)
    return path, response


def test_decode_prints_the_case_language_or_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import yaml

    from conformance.vocabulary import ScriptedResponse

    path, response = _recorded(tmp_path, "turn.sse", "anthropic-messages", stream=True)
    assert main(["decode", "--wire", "anthropic-messages", str(path)]) == 0
    listing = capsys.readouterr().out
    assert listing == (
        "stop: tool_calls\n"
        "blocks:\n"
        "  - {kind: reasoning, text: Read it first., signature: EqQBc2ln}\n"
        "  - {kind: tool_call, id: toolu_1, name: read, arguments: {p: a}}\n"
    )
    assert ScriptedResponse.model_validate(yaml.safe_load(listing)) == response
    assert main(["decode", "--wire", "anthropic-messages", "--json", str(path)]) == 0
    assert ScriptedResponse.model_validate_json(capsys.readouterr().out) == response


def test_decode_tells_a_stream_from_its_content_unless_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stream, _ = _recorded(tmp_path, "turn.sse", "openai-chat:openrouter", stream=True)
    answer, _ = _recorded(tmp_path, "turn.json", "openai-chat:openrouter", stream=False)
    for path in (stream, answer):
        assert main(["decode", "--wire", "openai-chat:openrouter", str(path)]) == 0
        assert "{kind: reasoning, text: " in capsys.readouterr().out
    assert main(["decode", "--wire", "openai-chat", "--no-stream", str(stream)]) == 1
    assert capsys.readouterr().out == f"{stream}: byte 0: the body is not JSON: Expecting value\n"
    assert main(["decode", "--wire", "openai-chat", "--stream", str(answer)]) == 1
    assert capsys.readouterr().out == f"{answer}: byte 0: no server-sent event in the body\n"


def test_decode_names_where_a_recording_is_broken_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.sse"
    broken.write_text(
        'event: message_start\ndata: {"type": "message_start", "message": {}}\n\n'
        "event: content_block_delta\n"
        'data: {"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta"}}\n\n'
    )
    assert main(["decode", "--wire", "anthropic-messages", str(broken)]) == 1
    assert capsys.readouterr().out == (
        f"{broken}: event 2 (content_block_delta): content block 3 was never started\n"
    )
    overloaded = tmp_path / "overloaded.sse"
    overloaded.write_text(
        'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
        '"message": "Overloaded"}}\n\n'
    )
    assert main(["decode", "--wire", "anthropic-messages", str(overloaded)]) == 1
    assert "event 1 (error): provider error overloaded_error: Overloaded" in capsys.readouterr().out


def test_decode_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recording, _ = _recorded(tmp_path, "turn.sse", "gemini", stream=True)
    assert main(["decode", "--wire", "gemini:vertex", str(recording)]) == 2
    assert "unknown wire gemini:vertex" in capsys.readouterr().out
    assert main(["decode", "--wire", "gemini", str(tmp_path / "missing.sse")]) == 2
    assert "missing.sse: No such file or directory" in capsys.readouterr().out
    assert main(["decode", "--wire", "gemini", str(recording)]) == 0


# ---------------------------------------------------------------- reports


def a_report() -> Report:
    """Two cells in reverse order, one failing with a warning, and one bad case file."""
    failing = Result(
        case="b-case",
        wire="gemini",
        verdict="fail",
        violations=(Violation(check="expect", message="expect[0] no", request=2, at="contents"),),
        warnings=(Violation(check="invariant/append-only", message="changed", severity="should"),),
        reason="1 violation",
    )
    passing = Result(case="a-case", wire="anthropic-messages", verdict="pass")
    errors = [LoadProblem(file="bad.yaml", line=3, field="wat", message="Extra inputs")]
    return build_report("mine", "adapter", [failing, passing], strict=False, load_errors=errors)


def test_a_report_sorts_its_results_and_counts_every_verdict() -> None:
    report = a_report()
    assert [r.key for r in report.results] == [
        ("a-case", "anthropic-messages"),
        ("b-case", "gemini"),
    ]
    assert report.summary == {"pass": 1, "fail": 1, "pinned": 0, "xfail": 0, "n/a": 0, "error": 0}
    assert not report.ok
    clean = build_report("mine", "adapter", [report.results[0]])
    assert clean.ok
    assert not build_report("mine", "adapter", [], load_errors=report.load_errors).ok


def test_the_json_report_lists_load_errors_field_for_field() -> None:
    data = json.loads(to_json(a_report()))
    assert data["load_errors"] == [
        {"file": "bad.yaml", "line": 3, "field": "wat", "message": "Extra inputs"}
    ]
    assert to_json(a_report()) == to_json(a_report())
    assert to_json(a_report()).startswith('{\n  "report_version": 3,\n  "suite_version": ')
    assert to_json(a_report()).endswith("\n}\n")


def test_junit_and_markdown_name_load_errors_and_failures() -> None:
    report = a_report()
    junit = to_junit(report)
    assert '<testcase classname="case-files" name="bad.yaml">' in junit
    assert '<error message="Extra inputs">3</error>' in junit
    assert '<failure message="expect: expect[0] no">' in junit  # its first violation
    assert 'tests="2" failures="1" errors="0" skipped="0"' in junit
    markdown = to_markdown(report).splitlines()
    assert "| `a-case` | pass |  |" in markdown
    assert "| `b-case` |  | fail* |" in markdown  # `*`: warnings, as in the terminal
    assert "bad.yaml:3: wat: Extra inputs" in markdown
    assert "  - expect [must, observed] (request 2, contents): expect[0] no" in markdown


def test_the_terminal_report_prints_load_errors_details_and_summary() -> None:
    console = Console(record=True, width=200)
    print_report(a_report(), console)
    out = console.export_text().splitlines()
    assert out[0] == "case file error: bad.yaml:3: wat: Extra inputs"
    assert "b-case [gemini]: fail" in out
    assert "  reason: 1 violation" in out
    assert "  - expect [must, observed] (request 2, contents): expect[0] no" in out
    # a warning is counted on one line; -v prints it under its cell (issue 25 item 5)
    assert "  - invariant/append-only [should, observed]: changed" not in out
    assert (
        "warnings: 1 in 1 cell (violations that did not fail them): invariant/append-only (1); "
        "-v prints each"
    ) in out
    verbose = Console(record=True, width=200)
    print_report(a_report(), verbose, verbose=True)
    assert "  - invariant/append-only [should, observed]: changed" in verbose.export_text()
    assert out[-2:] == [
        "1 pass, 1 fail",
        # One meaning for `*` (this cell failed and has a warning: not "passed with").
        "* = the cell has warnings: violations that did not fail it "
        "(`should` ones fail with --strict; weaker evidence with --evidence any)",
    ]


def test_checks_list_each_checks_evidence(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 15: evidence levels; a check that rests only on the design says so."""
    assert main(["checks"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(
        line.startswith("invariant/no-reasoning-in-user-input  [must, design]") for line in lines
    )
    assert any(line.startswith("provider/beyond-script  [must, documented]") for line in lines)


def test_run_takes_an_evidence_threshold(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    args = [
        "run",
        "-q",
        "--case",
        "leading-thinking-manual-text-first-response",
        "--json",
        str(out),
    ]
    assert main([*args, "--evidence", "any"]) == 0
    assert json.loads(out.read_text())["evidence"] == "any"
    with pytest.raises(SystemExit) as usage:
        main([*args, "--evidence", "nonsense"])
    assert usage.value.code == 2


def test_save_exchanges_writes_every_request_and_response_of_a_cell(tmp_path: Path) -> None:
    """Issue 15: the JSON report carries no bodies; --save-exchanges keeps them."""
    args = ["run", "-q", "--case", "chat-length-cut-call-not-run", "--wire", "openai-chat"]
    assert main([*args, "--save-exchanges", str(tmp_path / "a")]) == 0
    path = tmp_path / "a" / "reference" / "openai-chat" / "chat-length-cut-call-not-run.json"
    saved = json.loads(path.read_text())
    assert saved["verdict"] == "pass"
    first = saved["exchanges"][0]
    assert first["request"]["method"] == "POST"
    assert first["request"]["path"] == "/v1/chat/completions"
    assert first["request"]["body"]["messages"][0]["role"] == "user"
    assert first["response"]["status"] == 200
    assert "finish_reason" in first["response"]["body"]
    assert len(saved["exchanges"]) == saved_requests(saved)
    assert main([*args, "--save-exchanges", str(tmp_path / "b")]) == 0
    again = tmp_path / "b" / "reference" / "openai-chat" / "chat-length-cut-call-not-run.json"
    assert again.read_bytes() == path.read_bytes()  # deterministic


def saved_requests(saved: dict[str, object]) -> int:
    exchanges = saved["exchanges"]
    assert isinstance(exchanges, list)
    return len({e["number"] for e in exchanges})


def test_the_default_timeout_fits_a_heavy_library() -> None:
    """Issue 15: 10 s errored most cells of libraries that take 8-20 s per cell."""
    from conformance._runner import RunOptions
    from conformance.pytest._suite import ConformanceSuite

    run = _parser_defaults()
    assert run.timeout == 60.0
    assert RunOptions().timeout == 60.0
    assert ConformanceSuite.timeout == 60.0


def _parser_defaults() -> argparse.Namespace:
    from conformance._cli import _parser

    return _parser().parse_args(["run"])


def test_checks_rule_resolves_every_id_a_report_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25 item 9: `checks --rule invariant/tool-pairing` said "not in the rule
    catalogue", though failures print exactly that id.  Every check id of the registry
    (a superset of what any report prints) and every id in a failing run's report
    resolves, with the catalogue entries the check cites."""
    report = tmp_path / "r.json"
    target = "harness.broken.merge_episodes:MergeEpisodesAdapter"
    args = ["run", "-q", "--target", target, "--wire", "anthropic-messages"]
    assert main([*args, "--json", str(report)]) == 1
    results = json.loads(report.read_text())["results"]
    printed = {v["check"] for r in results for v in (*r["violations"], *r["warnings"])}
    assert {"invariant/ledger-paired", "anthropic-messages/latest-thinking-immutable"} <= printed
    capsys.readouterr()
    for check in sorted(printed | {c.id for c in all_checks()}):
        assert main(["checks", "--rule", check]) == 0, check
        first = capsys.readouterr().out.splitlines()[0]
        assert first.startswith(f"{check}  ["), check
    assert main(["checks", "--rule", "invariant/tool-pairing"]) == 0
    out = capsys.readouterr().out
    assert "  rule 13 (section A, anthropic-messages) [observed]" in out
    assert main(["checks", "--rule", "anthropic-messages/leading-thinking"]) == 0
    assert capsys.readouterr().out.count("rule 6 (section A") == 1
    assert main(["checks", "--rule", "invariant/no-such-check"]) == 1
    assert "neither a check id nor in the rule catalogue" in capsys.readouterr().out


@pytest.mark.parametrize(
    "command",
    [
        [],
        *([c] for c in ("run", "cases", "target", "checks", "decode", "probe", "generate")),
        *([c] for c in ("record", "replay", "recording", "report")),
    ],
)
def test_help_shows_no_markup(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 25 item 16: `wire-conformance --help` printed "The ``wire-conformance``
    command."."""
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    out = capsys.readouterr().out
    assert "``" not in out
    assert ":class:" not in out


def test_decode_names_where_a_stream_is_cut_inside_an_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25 item 16: the README says decode names where a cut stream goes wrong; it
    dropped the partial event without a word."""
    from conformance._recording.load import bundled_recordings_dir, load_recording

    path = sorted((bundled_recordings_dir() / "anthropic-messages").glob("*.json"))[0]
    body = load_recording(path).exchanges[0].response.body
    at = body.index(b'"type":"content_block_delta"')
    cut, whole = tmp_path / "cut.sse", tmp_path / "whole.sse"
    cut.write_bytes(body[: at + 40])
    whole.write_bytes(body)
    assert main(["decode", "--wire", "anthropic-messages", str(cut)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("stop: no_finish")
    start = body[:at].rindex(b"\n\n") + 2
    assert err.startswith(f"{cut}: byte {start}: the stream is cut inside an event (event: ")
    assert main(["decode", "--wire", "anthropic-messages", str(whole)]) == 0
    assert capsys.readouterr().err == ""  # negative: a whole stream says nothing


@pytest.mark.parametrize("command", [["record", "--out", "x"], ["recording", "import", "x"]])
def test_dialect_choices_are_the_wires_dialects(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--dialect`` offers what the wires declare (a dialect added to a wire is offered
    without editing the recording commands) and refuses anything else as a usage error."""
    from conformance.wires._registry import dialects_by_wire

    declared = {d for dialects in dialects_by_wire().values() for d in dialects}
    with pytest.raises(SystemExit) as refused:
        main([*command, "--dialect", "no-such-dialect"])
    assert refused.value.code == 2
    offered = capsys.readouterr().err.split("choose from ")[1]
    assert {c.strip(" '\n)") for c in offered.split(",")} == declared
