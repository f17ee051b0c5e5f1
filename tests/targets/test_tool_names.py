"""A manifest's ``tool_names``: the provider scripts calls under the target's names, the
contract document lists the tools under them, and the checks and reports use the case's
names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance._runner import RunOptions, plan, run_job
from conformance._targets.manifest import load_manifest
from conformance._targets.resolve import ResolvedTarget, resolve_target
from conformance._targets.tool_names import ToolNames
from conformance._transcript import Transcript
from conformance.errors import ManifestError, TargetError
from conformance.verdict import Result
from conformance.vocabulary import ToolCall
from tests.support import library

CASE = "latest-turn-thinking-text-byte-exact"  # run_query, called twice, on Anthropic
REFERENCE = "conformance._reference.adapter:ReferenceAdapter"


def _manifest(tmp_path: Path, body: str, kind: str = REFERENCE) -> Path:
    path = tmp_path / "target.toml"
    path.write_text(f'name = "mapped"\nkind = "{kind}"\n{body}', encoding="utf-8")
    return path


def _run(target: ResolvedTarget) -> tuple[Result, Transcript]:
    case = next(c.case for c in library().cases if c.case.id == CASE)
    job = next(j for j in plan([case], target) if j.column == "anthropic-messages")
    result, transcript = run_job(target, job, RunOptions(strict=True))
    assert transcript is not None
    return result, transcript


def _sent_names(transcript: Transcript) -> set[str]:
    names: set[str] = set()
    for exchange in transcript.exchanges:
        body = json.loads(exchange.request.body)
        names |= {t["name"] for t in body.get("tools", [])}
        for message in body["messages"]:
            content = message["content"]
            if isinstance(content, list):
                names |= {b["name"] for b in content if b.get("type") == "tool_use"}
    return names


@pytest.mark.parametrize(
    ("body", "mapped"),
    [
        ('[tool_names]\nprefix = "mcp__conformance__"\n', "mcp__conformance__run_query"),
        ('[tool_names]\ntable = {run_query = "Query"}\n', "Query"),
    ],
)
def test_the_target_plays_its_own_names_and_is_judged_in_the_cases(
    tmp_path: Path, body: str, mapped: str
) -> None:
    result, transcript = _run(resolve_target(str(_manifest(tmp_path, body))))
    assert result.verdict == "pass", (result.reason, result.violations)
    assert _sent_names(transcript) == {mapped}  # what went over the wire
    assert all(mapped.encode() in e.response.body for e in transcript.exchanges[:2])
    called = {
        b.name
        for _, view in transcript.views
        for m in view.messages
        for b in m.blocks
        if isinstance(b, ToolCall)
    }
    assert called == {"run_query"}  # what the checks read
    assert {t for _, view in transcript.views for t in view.tools} == {"run_query"}


def test_without_a_mapping_the_case_names_go_over_the_wire(tmp_path: Path) -> None:
    _, transcript = _run(resolve_target(str(_manifest(tmp_path, ""))))
    assert _sent_names(transcript) == {"run_query"}


def test_the_contract_document_lists_the_mapped_names() -> None:
    case = next(c.case for c in library().cases if c.case.id == CASE)
    played = ToolNames(prefix="mcp__x__").apply(case)
    assert [t.name for t in played.given.tools] == ["mcp__x__run_query"]
    assert ToolNames(prefix="mcp__x__").original("mcp__x__run_query") == "run_query"
    assert [t.name for t in case.given.tools] == ["run_query"]  # the case is untouched


def test_a_bad_mapping_is_a_located_manifest_error(tmp_path: Path) -> None:
    path = _manifest(tmp_path, '[tool_names]\ntable = {a = "X", b = "X"}\n')
    with pytest.raises(ManifestError, match=r"tool_names: two tools map to one name"):
        load_manifest(path)
    path = _manifest(tmp_path, '[tool_names]\nprefix = "mcp::"\n')
    with pytest.raises(TargetError, match=r"tool_names\.prefix"):
        resolve_target(str(path))


@pytest.mark.slow
def test_a_command_gets_the_mapped_names_in_its_contract_document(tmp_path: Path) -> None:
    command = f"command = '\"$CONFORMANCE_PYTHON\" -m conformance.agent {REFERENCE}'\n"
    body = command + '[tool_names]\nprefix = "mcp__conformance__"\n'
    result, transcript = _run(resolve_target(str(_manifest(tmp_path, body, kind="command"))))
    assert result.verdict == "pass", (result.reason, result.violations)
    assert _sent_names(transcript) == {"mcp__conformance__run_query"}
