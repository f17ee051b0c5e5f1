"""Replay: the shipped recordings are green on the reference, every broken adapter is
caught by one, responses are served byte for byte, and a recording becomes a case that
lints clean."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest

from conformance._cases.library import load_library
from conformance._cases.lint import lint
from conformance._cli import main
from conformance._recording.diff import changed
from conformance._recording.load import bundled_recordings_dir, load_recording, recording_files
from conformance._recording.replay import ReplayProvider, recorded_answers, replay_paths
from conformance._recording.to_case import case_yaml, played, recording_case
from conformance._runner import RunOptions, plan, run_job
from conformance._targets.resolve import resolve_target
from harness.broken import BROKEN_ADAPTERS

FILES = [(p, p.name) for p in recording_files(bundled_recordings_dir())]


def test_every_wire_and_dialect_has_shipped_recordings() -> None:
    columns = {load_recording(p).metadata.column for p, _ in FILES}
    assert columns == {
        "anthropic-messages",
        "openai-responses",
        "gemini",
        "openai-chat",
        "openai-chat:deepseek",
        "openai-chat:openrouter",
    }
    assert all(load_recording(p).metadata.synthetic for p, _ in FILES)


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict-any-evidence"])
def test_the_reference_replays_every_shipped_recording_green(strict: bool) -> None:
    # Strict with any evidence too: a tool's result is taken only from a call that ran,
    # never from the error answer to a cut call (which made truncated-call-not-run fail
    # a correct target on the two cut-turn recordings).
    options = RunOptions(strict=strict, evidence="any" if strict else "observed")
    report = replay_paths(FILES, resolve_target("reference", None), options)
    assert {r.file: r.status for r in report.recordings} == {name: "pass" for _, name in FILES}


#: Broken adapters whose shapes among the shipped recordings the provider only degrades:
#: hoisting thinking shows there only on a Gemini turn, whose thought signatures Gemini does
#: not check (the ledger's order is a `should` there), so the replay reports drift.
ONLY_DRIFT = {"HoistThinkingAdapter"}


@pytest.mark.parametrize("adapter", BROKEN_ADAPTERS, ids=lambda a: a.__name__)
def test_each_broken_adapter_is_caught(adapter: type) -> None:
    target = resolve_target(f"{adapter.__module__}:{adapter.__name__}", None)
    # Storing an error answer before the retry breaks invariant/retry-identical, a
    # `should` on inferred evidence: by default it is drift (a warning), and fails under
    # --strict --evidence any.  On Claude with thinking on, the stored answer also ends
    # the retry as a text-only assistant message, which the provider refuses
    # (anthropic-messages/prefill-with-thinking): a failure by default there.
    strict = adapter.__name__ == "StoreErrorOnRetryAdapter"
    options = RunOptions(strict=strict, evidence="any" if strict else "observed")
    report = replay_paths(FILES, target, options)
    if adapter.__name__ in ONLY_DRIFT:
        assert any(r.status == "drift" for r in report.recordings)
    else:
        assert any(r.status == "fail" for r in report.recordings)
    if strict:
        default = replay_paths(FILES, target, RunOptions())
        failed = {r.file for r in default.recordings if r.status == "fail"}
        assert {Path(f).name for f in failed} == {
            "anthropic-overloaded-after-tool-round-retried-unchanged.json"
        }
        assert {r.status for r in default.recordings} == {"pass", "drift", "fail"}


def test_recorded_chunks_are_served_byte_for_byte() -> None:
    path = bundled_recordings_dir() / "gemini" / "gemini-thought-runs-between-parallel-calls.json"
    recording = load_recording(path)
    case = recording_case(recording, path)
    answers = recorded_answers(recording, played(recording))
    target = resolve_target("reference", None)
    options = replace(RunOptions(), provider=partial(ReplayProvider, answers))
    _, transcript = run_job(target, plan([case], target)[0], options)
    assert transcript is not None
    served = [e.response.chunks for e in transcript.exchanges]
    assert served == [a.outcome.chunks for a in answers]
    assert any(len(chunks) > 1 for chunks in served)  # streamed, event by event


def test_to_case_writes_a_case_that_lints_clean(tmp_path: Path) -> None:
    path = (
        bundled_recordings_dir()
        / "anthropic-messages"
        / ("anthropic-overloaded-after-tool-round-retried-unchanged.json")
    )
    family = tmp_path / "opaque-ledger"
    family.mkdir()
    assert main(["recording", "to-case", str(path), "--out", str(family)]) == 0
    case_id = "recorded-anthropic-messages-anthropic-overloaded-after-tool-round-retried-unchanged"
    text = (family / f"{case_id}.yaml").read_text(encoding="utf-8")  # named after its id
    library = load_library([tmp_path])
    assert not library.errors
    mine = [c for c in library.cases if c.case.id == case_id]
    assert [p.recording for p in mine[0].case.provenance] == [path.name]  # type: ignore[union-attr]
    assert not [p for p in lint(library) if case_id in str(p)]
    assert "fault:" in text
    assert case_yaml(load_recording(path), path) == text
    # and it reproduces the recording's verdict through the renderer
    target = resolve_target("reference", None)
    result, _ = run_job(target, plan([mine[0].case], target)[0], RunOptions())
    assert result.verdict == "pass"


def test_to_case_out_refuses_a_file_name_the_loader_would_refuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = (
        bundled_recordings_dir() / "anthropic-messages" / "back-to-back-thinking-then-redacted.json"
    )
    case_id = "recorded-anthropic-messages-back-to-back-thinking-then-redacted"
    wrong = tmp_path / "x.yaml"
    assert main(["recording", "to-case", str(path), "--out", str(wrong)]) == 2
    assert not wrong.exists()
    out = capsys.readouterr().out
    assert f"the case id is {case_id!r}" in out
    assert f"({case_id}.yaml)" in out
    right = tmp_path / f"{case_id}.yaml"
    assert main(["recording", "to-case", str(path), "--out", str(right)]) == 0
    assert right.exists()
    # a directory that does not exist yet is made, and the file named after the id
    assert main(["recording", "to-case", str(path), "--out", str(tmp_path / "new")]) == 0
    assert (tmp_path / "new" / f"{case_id}.yaml").read_bytes() == right.read_bytes()


def test_decode_with_the_wrong_wire_fails_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = load_recording(FILES[0][0])
    body = tmp_path / "body.sse"
    body.write_bytes(recording.exchanges[0].response.body)
    assert main(["decode", "--wire", "gemini", str(body)]) == 1
    assert "looks like a anthropic-messages response" in capsys.readouterr().out


def test_report_diff_prints_changed_verdicts() -> None:
    old = {"a [w]": "pass", "b [w]": "pass", "c [w]": "fail"}
    new = {"a [w]": "pass", "b [w]": "fail", "d [w]": "pass"}
    assert changed(old, new) == ["b [w]: pass -> fail  (regression)"]  # absent: counted


#: The case language scripts the encrypted_content OpenAI holds; a stateful Responses
#: recording (no `include`) never carried it, so its reasoning items have no signature,
#: which the realism lint flags.  Every other shipped recording lints clean.
RESPONSES_STATEFUL = "a reasoning item without encrypted_content"


def test_every_shipped_recording_becomes_a_case_that_passes(tmp_path: Path) -> None:
    family = tmp_path / "opaque-ledger"
    family.mkdir()
    for path, _ in FILES:
        case = recording_case(load_recording(path), path)
        (family / f"{case.id}.yaml").write_text(
            case_yaml(load_recording(path), path), encoding="utf-8"
        )
    library = load_library([tmp_path])
    assert not library.errors
    problems = [str(p) for p in lint(library) if "recorded-" in str(p)]
    assert all(RESPONSES_STATEFUL in p and "openai-responses" in p for p in problems)
    mine = [loaded.case for loaded in library.cases if loaded.case.id.startswith("recorded-")]
    assert len(mine) == len(FILES)
    target = resolve_target("reference", None)
    verdicts = {c.id: run_job(target, plan([c], target)[0], RunOptions())[0].verdict for c in mine}
    assert set(verdicts.values()) == {"pass"}


def test_to_case_keeps_the_recorded_chunk_boundaries() -> None:
    path = (
        bundled_recordings_dir()
        / "anthropic-messages"
        / ("truncation-no-finish-mid-thinking-after-tool-result.json")
    )
    recording = load_recording(path)
    responses = [p.response for p in played(recording) if p.response is not None]
    chunked = [b for r in responses for b in r.blocks if getattr(b, "chunks", None)]
    assert chunked, "the thinking streamed over several deltas keeps their sizes"
    assert "chunks:" in case_yaml(recording, path)


def test_decode_keeps_chunk_boundaries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = (
        bundled_recordings_dir()
        / "anthropic-messages"
        / ("truncation-no-finish-mid-thinking-after-tool-result.json")
    )
    plays = played(load_recording(path))
    chunked = next(
        p
        for p in plays
        if p.response is not None and any(getattr(b, "chunks", None) for b in p.response.blocks)
    )
    body = tmp_path / "body.sse"
    body.write_bytes(chunked.exchange.response.body)
    assert main(["decode", "--wire", "anthropic-messages", str(body)]) == 0
    assert "chunks:" in capsys.readouterr().out


def test_a_recording_for_a_wire_the_target_does_not_speak_is_na(tmp_path: Path) -> None:
    target = resolve_target("reference", None)
    gemini = [f for f in FILES if "gemini" in str(f[0].parent.name)][:1]
    narrowed = replace(target, wires=frozenset({"anthropic-messages"}))
    (result,) = replay_paths(gemini, narrowed, RunOptions()).recordings
    assert result.status == "n/a"
    assert result.reason is not None
    assert "does not declare gemini" in result.reason


def test_replay_of_a_missing_directory_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(tmp_path / "nowhere")]) == 2
    assert "no such recording directory" in capsys.readouterr().out
    assert main(["replay", str(tmp_path)]) == 2
    assert "no recording" in capsys.readouterr().out


def test_report_diff_on_two_replay_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps({"recordings": [{"file": "a.json", "status": "pass"}]}))
    new.write_text(json.dumps({"recordings": [{"file": "a.json", "status": "fail"}]}))
    assert main(["report", "diff", str(old), str(new)]) == 0
    assert "a.json: pass -> fail" in capsys.readouterr().out
    assert main(["report", "diff", str(old), str(tmp_path / "missing.json")]) == 2


@pytest.mark.parametrize(
    ("column", "noise"),
    [
        ("anthropic-messages", [("ping", "ping", "unknown-event"), ("ping", "unknown-event")]),
        ("openai-chat-openrouter", [("ping", "ping", "unknown-event"), ("ping", "unknown-event")]),
    ],
)
def test_to_case_keeps_the_noise_events(column: str, noise: list[tuple[str, ...]]) -> None:
    path = bundled_recordings_dir() / column / "stream-events-pings-and-unknown-events.json"
    responses = [p.response for p in played(load_recording(path)) if p.response is not None]
    assert [r.noise for r in responses] == noise


def test_a_recording_whose_client_asked_again_after_a_final_answer_needs_xml_recovery() -> None:
    """The client went on after a response that ended the turn with the call in its
    text: only a target that recovers XML tool calls can hold that conversation, and one
    that stops there fails (not an error) on replay."""
    needs = {
        name: "xml-recovery" in recording_case(load_recording(p), p).requires for p, name in FILES
    }
    assert {n for n, needed in needs.items() if needed} == {
        "xml-tool-call-function-dialect-recovered.json",
        "xml-hermes-json-tool-call-recovered.json",
    }


def test_report_diff_fails_on_a_regression_when_asked_and_counts_absent_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25 item 12: pass -> fail exited 0, and a narrower run listed every cell it
    did not hold as `pass -> (absent)`."""

    def report(name: str, cells: dict[str, str]) -> str:
        path = tmp_path / name
        results = [{"case": c, "wire": "gemini", "verdict": v} for c, v in cells.items()]
        path.write_text(json.dumps({"results": results}))
        return str(path)

    old = report("old.json", {"a": "pass", "b": "pass", "c": "fail", "gone": "pass"})
    new = report("new.json", {"a": "fail", "b": "pass", "c": "pass", "added": "error"})
    assert main(["report", "diff", old, new]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "a [gemini]: pass -> fail  (regression)",
        "c [gemini]: fail -> pass",
        "not compared: 1 cell(s) only in the old report, 1 only in the new one",
        "2 changed verdict(s) of 3 compared cells, 1 regression(s)",
    ]
    assert main(["report", "diff", "--fail-on-regression", old, new]) == 1
    capsys.readouterr()
    fixed = report("fixed.json", {"a": "pass", "b": "pass", "c": "pass"})
    assert main(["report", "diff", "--fail-on-regression", old, fixed]) == 0  # fail -> pass
