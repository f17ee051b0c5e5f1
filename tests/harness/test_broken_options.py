"""Issue 13: request options that drift inside a tool loop (budget recomputed, beta,
``include`` and ``tool_choice`` dropped on the continuation request) fail the
request-option cases, and the stateless Responses cases that need the encrypted
reasoning ``include`` asks for."""

from __future__ import annotations

from harness.broken.drift_request_options import DriftRequestOptionsAdapter
from tests.support import failing, run_library

A, R, C, OR = "anthropic-messages", "openai-responses", "openai-chat", "openai-chat:openrouter"
LOOP = "tool-choice-auto-held-across-tool-loop"

EXPECTED = {
    ("thinking-config-held-across-tool-loop", A),  # budget halved
    ("thinking-config-held-across-tool-loop", OR),  # reasoning.max_tokens halved
    ("responses-stateless-request-options-held-across-tool-loop", R),  # include dropped
    # include dropped: the continuation's reasoning arrives without encrypted content,
    # so the next turn replays it by id alone (rule 25)
    ("responses-store-false-replays-whole-items", R),
    ("responses-summaryless-reasoning-items-kept", R),
    ("responses-three-rounds-each-item-before-its-call", R),  # new in the merge
    ("anthropic-forced-tool-choice-with-manual-thinking-not-forced", A),  # budget halved
    ("anthropic-budget-over-max-tokens-needs-interleaved-beta", A),  # budget halved
    (LOOP, A),  # tool_choice dropped on the continuation (should: caching)
    (LOOP, C),
    (LOOP, R),
}


def test_drifting_request_options_fail_exactly_the_option_cases() -> None:
    results = run_library(DriftRequestOptionsAdapter(), strict=True)
    assert failing(results) == EXPECTED
    for key in EXPECTED:
        assert results[key].verdict == "fail", results[key]
