"""Two adjacent signed thinking blocks joined into one: before
back-to-back-signed-thinking-blocks-kept-apart, an adapter doing it passed every
Anthropic and OpenRouter cell; now that case fails it on both, and only that case."""

from __future__ import annotations

from conformance._runner import RunOptions, plan, run_jobs
from conformance._targets.resolve import resolve_target
from tests.support import library

CASE = "back-to-back-signed-thinking-blocks-kept-apart"
COLUMNS = {"anthropic-messages", "openai-chat:openrouter"}


def test_joining_adjacent_signed_thinking_fails_only_the_case_about_it() -> None:
    target = resolve_target("tests.targets.merge_adjacent:MergeAdjacentSignedThinking")
    jobs = [j for j in plan([c.case for c in library().cases], target) if j.column in COLUMNS]
    results = run_jobs(target, jobs, RunOptions(timeout=30))
    failed = {(r.case, r.wire) for r in results if r.verdict not in ("pass", "pinned", "n/a")}
    assert failed == {(CASE, column) for column in COLUMNS}


def test_the_reference_keeps_them_apart() -> None:
    target = resolve_target("reference")
    jobs = [j for j in plan([c.case for c in library().cases], target) if j.case.id == CASE]
    assert {r.verdict for r in run_jobs(target, jobs, RunOptions(timeout=30))} == {"pass"}
