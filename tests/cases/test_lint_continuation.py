"""The linter asks every response a target may go on from (a cut call, a truncated stop,
an empty or blank response) for the continuation a target that asks again gets: without it, a
client that nudges after the cut (pydantic-ai) runs past the script, a false failure."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance._cases.library import bundled_cases_dir
from conformance._cases.lint import lint_case
from conformance._cases.schema import Case

CONTINUATION = """        - if_continued: true
          stop: end
          blocks:
            - {kind: text, text: "Asked again, here is the answer in full."}
"""
MISSING = "no `if_continued` response follows it"


def _problems(file: Path, text: str) -> list[str]:
    return lint_case(Case.model_validate(yaml.safe_load(text)), str(file))


@pytest.mark.parametrize(
    "name",
    [
        "truncation/length-cut-text-answer-reported-incomplete.yaml",  # max_tokens, text
        "empty-terminal-message/gemini-empty-stop-on-first-prompt-not-retried.yaml",  # empty
        "truncation/dropped-stream-mid-call-arguments-never-run.yaml",  # no_finish, cut call
        "truncation/truncation-no-finish-after-signed-thinking.yaml",  # after `if_retried`
        "empty-content/empty-content-blank-final-answer-not-replayed.yaml",  # blank text
    ],
)
def test_a_response_gone_on_from_needs_its_continuation(name: str) -> None:
    file = bundled_cases_dir() / name
    text = file.read_text(encoding="utf-8")
    assert CONTINUATION in text
    assert not [p for p in _problems(file, text) if MISSING in p]
    found = [p for p in _problems(file, text.replace(CONTINUATION, "")) if MISSING in p]
    assert found == [
        f"turns[0].responses[0] may be gone on from (a cut call, a truncated stop or an empty "
        f"or blank response) but {MISSING}: script the continuation a target that asks again gets"
    ]


def test_a_complete_answer_needs_none() -> None:
    file = bundled_cases_dir() / "truncation/length-cut-text-answer-reported-incomplete.yaml"
    text = file.read_text(encoding="utf-8").replace(CONTINUATION, "")
    text = text.replace("stop: max_tokens", "stop: end")
    assert not [p for p in _problems(file, text) if MISSING in p]
