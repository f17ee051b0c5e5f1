"""Issue 13: the naive stream readers real clients shipped fail the framing case of their
shape, and only it, among the stream cases: a client that splits lines on U+2028/U+0085,
and one that decodes every read on its own."""

from __future__ import annotations

import pytest

from conformance._runner import RunOptions, plan, run_jobs
from conformance._targets.resolve import target_from_object
from harness.broken.naive_sse import LossyReadsClient, UnicodeLinesClient
from tests.support import library

COLUMNS = (
    "anthropic-messages",
    "gemini",
    "openai-chat",
    "openai-chat:deepseek",
    "openai-chat:openrouter",
    "openai-responses",
)
UNICODE = "stream-events-framing-unicode-line-separators-in-payloads"
UTF8 = "stream-events-framing-split-inside-utf8-sequences"
#: Each framing shape's cases: the Gemini-compat column has its own case for the Unicode
#: separators (its calls must be signed), the Chat dialects otherwise share the case.
FAMILY = {UNICODE: {UNICODE, "gemini-compat-unicode-separators-beside-signed-call"}, UTF8: {UTF8}}


def verdicts(target: object) -> dict[tuple[str, str], str]:
    resolved = target_from_object(target)
    cases = (c.case for c in library().cases if "stream-events" in c.case.features)
    results = run_jobs(resolved, plan(cases, resolved), RunOptions(strict=True))
    return {r.key: r.verdict for r in results if r.verdict != "n/a"}


@pytest.mark.parametrize(
    ("client", "case"), [(UnicodeLinesClient, UNICODE), (LossyReadsClient, UTF8)]
)
def test_a_naive_reader_fails_its_framing_case_on_every_column(client: type, case: str) -> None:
    found = verdicts(client())
    broken = {key: verdict for key, verdict in found.items() if verdict != "pass"}
    assert set(broken) == {key for key in found if key[0] in FAMILY[case]}
    assert {(case, column) for column in COLUMNS} <= set(broken)
    # A failure, not an error, except where the lost event is Responses' terminal one:
    # the target then stops short (Soju06/codex-lb#1010's symptom), an `error` that names it.
    failed = {key for key, verdict in broken.items() if verdict == "fail"}
    allowed_error = {(UNICODE, "openai-responses")} if case == UNICODE else set()
    assert set(broken) - failed == allowed_error
