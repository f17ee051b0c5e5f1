"""The provider model held to real traffic: the vendored corpus (tests/real_traffic/,
real conversations from pydantic/pydantic-ai's public cassettes, PROVENANCE.md there).

A request a real provider answered 2xx is accepted, whatever a rule says: the audit
finds no false refusal; every real answer decodes; every real recording replays on the
reference without a `fail` or an `error`.  A recording that is not evidence is excluded
by name with its reason (EXCLUDED.toml), never silently.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.recording.audit import audit_paths, exclusions
from conformance.recording.load import load_recording, recording_files
from conformance.recording.replay import replay_file
from conformance.recording.to_case import conversation_exchanges, scripted_answer
from conformance.runner import RunOptions
from conformance.targets.resolve import resolve_target

CORPUS = Path(__file__).resolve().parents[1] / "real_traffic"
EXCLUDED = exclusions(CORPUS / "EXCLUDED.toml")
FILES = recording_files(CORPUS)
EVIDENCE = [p for p in FILES if p.name not in EXCLUDED]

#: Real recordings the suite cannot yet replay or decode, each with the reason: pinned
#: limitations (a strict xfail: one that starts passing fails, so the pin is removed).
_BACKGROUND = (
    "background mode: the answer is `queued` and fetched later with GET /v1/responses/{id}, "
    "which the scripted provider does not serve yet"
)
UNDECODED = {
    name: _BACKGROUND
    for name in (
        "test_background_mode_reasoning_vcr.json",
        "test_background_mode_streaming_without_starting_after_vcr.json",
        "test_background_mode_vcr.json",
        "test_background_mode_with_tool_vcr.json",
    )
}
UNREPLAYED = dict(UNDECODED)


def _pinned(paths: list[Path], pins: dict[str, str]) -> list[object]:
    return [
        pytest.param(p, marks=pytest.mark.xfail(reason=pins[p.name], strict=True))
        if p.name in pins
        else p
        for p in paths
    ]


def _shown(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


def test_the_corpus_is_there_and_every_exclusion_names_a_file() -> None:
    assert len(FILES) >= 340
    names = {p.name for p in FILES}
    assert set(EXCLUDED) <= names, set(EXCLUDED) - names
    columns = {load_recording(p).metadata.column for p in FILES}
    assert {"anthropic-messages", "openai-responses", "openai-chat", "gemini"} <= columns
    assert {"openai-chat:deepseek", "openai-chat:openrouter"} <= columns


def test_every_vendored_recording_says_where_it_comes_from() -> None:
    for path in FILES:
        meta = load_recording(path).metadata
        assert not meta.synthetic, path
        assert "pydantic/pydantic-ai@" in (meta.origin or ""), path
        assert (meta.license or "").startswith("MIT"), path
        assert meta.edits, path


def test_no_false_refusal_over_the_corpus() -> None:
    report = audit_paths([(p, _shown(p)) for p in FILES], EXCLUDED)
    refused = [
        f"{e.recording}#{e.exchange}: {', '.join(e.rules)}: {e.fired[0].message}"
        for e in report.false_refusals
    ]
    assert refused == []
    assert not report.errors
    counts = report.counts()
    # The audit judged most of the corpus: this is no vacuous pass.
    assert counts["agrees"] >= 380, counts
    assert sum(1 for r in report.recordings if r.excluded) == len(EXCLUDED)


@pytest.mark.parametrize("path", _pinned(EVIDENCE, UNDECODED), ids=_shown)
def test_every_real_answer_decodes(path: Path) -> None:
    recording = load_recording(path)
    column = recording.metadata.column
    for index, exchange in conversation_exchanges(recording):
        if 200 <= exchange.response.status < 300:
            scripted_answer(exchange, column, f"exchanges.{index}")


@pytest.mark.parametrize("path", _pinned(EVIDENCE, UNREPLAYED), ids=_shown)
def test_every_real_recording_replays_on_the_reference(path: Path) -> None:
    result = replay_file(path, _shown(path), resolve_target("reference", None), RunOptions())
    problems = [f"{v.check}: {v.message}" for v in result.violations]
    assert result.status not in ("fail", "error"), (result.reason, problems)
