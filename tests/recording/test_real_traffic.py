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

from conformance._recording.audit import audit_paths, exclusions
from conformance._recording.load import load_recording, recording_files
from conformance._recording.replay import replay_file
from conformance._recording.to_case import conversation_exchanges, scripted_answer, settled
from conformance._runner import RunOptions
from conformance._targets.resolve import resolve_target

CORPUS = Path(__file__).resolve().parents[1] / "real_traffic"
EXCLUDED = exclusions(CORPUS / "EXCLUDED.toml")
FILES = recording_files(CORPUS)
EVIDENCE = [p for p in FILES if p.name not in EXCLUDED]

#: Real recordings that hold no answered turn, each with the reason: their replay is
#: ``n/a`` with it, and their answers are not read back.
UNANSWERED = {
    "test_background_mode_streaming_without_starting_after_vcr.json": (
        "the background response is still queued at the recording's last poll"
    ),
}
#: Real conversations the client ended on a forced tool choice's call, answered with
#: finish_reason "stop": replay is ``n/a`` (a case's target would run the call).
ENDED_ON_A_CALL = {"mirascope-openai-chat-structured-output-forced-tool.json"}
#: A client that reads a text protocol of its own (ReAct's "Action:" lines) and asks
#: again: replay is ``n/a`` (no case scripts it), never an xml-recovery failure.
TEXT_PROTOCOL = {"crewai-openai-chat-react-text-protocol.json"}
#: Real conversations in a form no case scripts, each ``n/a`` with its reason: a prompt
#: that is an image alone, the legacy functions API's ``function_call``.
UNSCRIPTED = {
    "llm-anthropic-image-with-no-prompt.json": "the prompt is media with no text",
    "openllmetry-openai-legacy-function-call.json": "legacy functions API",
}


def _shown(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


def test_the_corpus_is_there_and_every_exclusion_names_a_file() -> None:
    assert len(FILES) >= 359
    names = {p.name for p in FILES}
    assert set(EXCLUDED) <= names, set(EXCLUDED) - names
    columns = {load_recording(p).metadata.column for p in FILES}
    assert {"anthropic-messages", "openai-responses", "openai-chat", "gemini"} <= columns
    assert {"openai-chat:deepseek", "openai-chat:openrouter"} <= columns


#: The public repositories the corpus comes from, and their licenses (PROVENANCE.md).
SOURCES = {
    "pydantic/pydantic-ai@": "MIT",
    "crewAIInc/crewAI@": "MIT",
    "DataDog/dd-trace-py@": "Apache-2.0 OR BSD-3-Clause",
    "Mirascope/mirascope@": "MIT",
    "simonw/llm-anthropic@": "Apache-2.0",
    "traceloop/openllmetry@": "Apache-2.0",
}


def test_every_vendored_recording_says_where_it_comes_from() -> None:
    for path in FILES:
        meta = load_recording(path).metadata
        assert not meta.synthetic, path
        (source,) = [s for s in SOURCES if s in (meta.origin or "")]
        assert (meta.license or "").startswith(SOURCES[source]), path
        assert meta.edits, path
        if source != "pydantic/pydantic-ai@":
            assert path.parent.name == "other", path


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


#: Answers the suite reads as a form it does not model (``errors.Unmodelled``).
UNMODELLED = {"openllmetry-openai-legacy-function-call.json"}


@pytest.mark.parametrize(
    "path", [p for p in EVIDENCE if p.name not in {*UNANSWERED, *UNMODELLED}], ids=_shown
)
def test_every_real_answer_decodes(path: Path) -> None:
    """Every answered turn reads back, a background response from the poll that
    settled it."""
    recording = load_recording(path)
    column = recording.metadata.column
    for index, _ in conversation_exchanges(recording):
        exchange = settled(recording, index)
        if 200 <= exchange.response.status < 300:
            scripted_answer(exchange, column, f"exchanges.{index}")


@pytest.mark.parametrize("path", EVIDENCE, ids=_shown)
def test_every_real_recording_replays_on_the_reference(path: Path) -> None:
    result = replay_file(path, _shown(path), resolve_target("reference", None), RunOptions())
    problems = [f"{v.check}: {v.message}" for v in result.violations]
    assert result.status not in ("fail", "error"), (result.reason, problems)
    if path.name in UNANSWERED:
        assert result.status == "n/a"
        assert "still running when the recording ended" in (result.reason or "")
    elif path.name in ENDED_ON_A_CALL:
        assert result.status == "n/a"
        assert "finished as a final answer" in (result.reason or "")
    elif path.name in UNSCRIPTED:
        assert result.status == "n/a"
        assert UNSCRIPTED[path.name] in (result.reason or "")
    elif path.name in TEXT_PROTOCOL:
        assert result.status == "n/a"
        assert "holds no tool-call markup" in (result.reason or "")
    elif result.status == "n/a":
        assert result.reason, "an n/a replay says why"
    if path.name.startswith("test_background_mode"):
        assert result.status == "pass" or path.name in UNANSWERED, result.reason
