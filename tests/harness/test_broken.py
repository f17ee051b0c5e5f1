"""Each deliberately broken adapter fails exactly the cells whose shape it breaks.

The expected sets are written out, one line per cell, with the shape that makes the
break visible; a library change that lets a broken adapter through (or catches one on
a shape it does not break) shows here as a set difference.
"""

from __future__ import annotations

import pytest

from conformance._targets.api import Adapter
from harness.broken import (
    DropRedactedAfterCallAdapter,
    DropServerToolUseAdapter,
    DropSignatureOnlyAdapter,
    HoistThinkingAdapter,
    InvokeOnlyRecoveryAdapter,
    MergeEpisodesAdapter,
    ResponsesWrongDeltaAdapter,
    StoreErrorOnRetryAdapter,
    TextBeforeCallsAdapter,
    ThreadWrongDeltaAdapter,
)
from tests.support import failing, run_library

A, R, G, OR = "anthropic-messages", "openai-responses", "gemini", "openai-chat:openrouter"
C = "openai-chat"

EXPECTED: dict[type[Adapter], set[tuple[str, str]]] = {
    # Every reasoning episode of a response becomes one block carrying the first
    # signature, placed first (seed §25, §26, §33): any response with two episodes, or
    # one episode that did not come first, is replayed wrong.
    # (Gemini's two signed thoughts joined, §27, is a `should`: Gemini takes the part and
    # loses a signature, so it warns.)
    MergeEpisodesAdapter: {
        ("responses-blank-message-after-reasoning-keeps-its-reasoning", R),
        ("back-to-back-signed-thinking-blocks-kept-apart", A),  # [A sA, B sB, call]
        ("back-to-back-signed-thinking-blocks-kept-apart", OR),
        ("preserved-thinking-cut-thinking-not-replayed-ahead-of-its-signed-turn", A),
        ("gemini-max-tokens-partial-thought-after-call-not-merged", G),  # §42 merge
        ("gemini-signature-only-thought-between-calls", G),  # §30
        ("gemini-thought-after-call-stays-after-it", G),  # §31: moved before the call
        ("gemini-thought-runs-between-parallel-calls", G),  # §25
        ("interleaved-signature-only-mid-turn", A),  # [A sA, call, "" sB, call]
        ("interleaved-two-episodes-one-response", A),  # [A sA, call, B sB, call]
        ("leading-thinking-manual-first-run-only", A),  # [text, F, call, S, call]
        ("leading-thinking-redacted-counts-as-thinking", A),  # moved before the redacted
        ("leading-thinking-redacted-counts-as-thinking", OR),
        ("openrouter-two-signed-episodes-around-calls-kept-apart", OR),
        ("responses-two-reasoning-items-before-one-function-call", R),  # §108
        ("responses-chain-interleaved-reasoning-across-tool-loop-in-place", R),  # [B, C, c2, c3]
        ("truncation-max-tokens-dangling-episode-after-tool-call", A),  # partial merged in
        ("anthropic-max-tokens-cut-call-after-interleaved-thinking", A),  # [A sA, text, B sB]
        ("xml-signed-episode-after-markup-kept-before-call", A),  # §58: [sA, text, sB] merged
        ("xml-signed-episode-after-markup-kept-before-call", OR),
    },
    # Every reasoning block moved to the front of its message (seed §84 base, mutant M5):
    # visible wherever reasoning sat after a call on a wire that keeps that order (Chat
    # keeps reasoning in a field of its own, so it cannot show there).
    HoistThinkingAdapter: {
        ("responses-blank-message-after-reasoning-keeps-its-reasoning", R),
        ("responses-chain-interleaved-reasoning-across-tool-loop-in-place", R),  # rule 26
        ("gemini-signature-only-thought-between-calls", G),
        ("gemini-thought-after-call-stays-after-it", G),
        ("gemini-thought-runs-between-parallel-calls", G),
        ("interleaved-signature-only-mid-turn", A),
        ("interleaved-two-episodes-one-response", A),
        ("leading-thinking-manual-first-run-only", A),
        # (§79's recorded Gemini turn hoisted only warns: Gemini checks no thought's
        # signature, so the cost is continuity)
        ("saved-history-interleaved-episodes-replayed-as-recorded", A),  # §79
    },
    # Signed reasoning with empty text dropped (wire-rules 4, langchain#38638, seed §30):
    # Anthropic signature-only thinking, OpenRouter's signature-only details, Responses
    # reasoning items without a summary (§35), Gemini signature-only thought parts.
    DropSignatureOnlyAdapter: {
        ("responses-blank-message-after-reasoning-keeps-its-reasoning", R),
        ("responses-chain-interleaved-reasoning-across-tool-loop-in-place", R),
        ("responses-chain-tool-loop-reasoning-items-sent-once", R),
        ("responses-saved-history-continued-into-a-new-chain", R),
        ("gemini-signature-only-thought-between-calls", G),
        ("interleaved-signature-only-mid-turn", A),
        ("responses-output-follows-its-call-when-a-message-trails-it", R),
        ("responses-reasoning-items-across-tool-loop-all-kept", R),
        ("responses-reasoning-only-incomplete-output", R),
        ("responses-store-false-replays-whole-items", R),
        ("responses-summaryless-reasoning-items-kept", R),
        ("responses-two-reasoning-items-before-one-function-call", R),
        ("signature-only-episode-replayed-with-empty-thinking", A),
        ("signature-only-episode-replayed-with-empty-thinking", OR),
        ("signature-only-episodes-across-tool-loop", A),
        ("signature-only-episodes-across-tool-loop", OR),
        ("xml-signature-only-episode-survives-recovery", A),
        ("xml-signature-only-episode-survives-recovery", OR),
        ("leading-thinking-manual-signature-only-block-after-text-moves-first", A),
        ("responses-function-call-arguments-over-many-deltas", R),
        ("responses-overloaded-after-reasoning-round-retried-unchanged", R),
        ("responses-reasoning-then-message-then-call-in-order", R),
        ("responses-three-rounds-each-item-before-its-call", R),
    },
    # A threaded client counting its delta from its last request, not the thread's last
    # response (rule 58): every continue sends the previous reply again, so the rebuilt
    # conversation holds it twice.  After a tool round the first copy's calls go
    # unanswered (rule 13, or the ledger's once); after a text reply only the inferred
    # thread-delta-resent names it (a warning).  Threads are Anthropic's: no other column.
    ThreadWrongDeltaAdapter: {
        (
            "anthropic-adaptive-only-model-manual-config-sent-adaptive",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "anthropic-budget-over-max-tokens-needs-interleaved-beta",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("anthropic-first-ping-inside-the-first-block", A),  # anthropic-messages/tool-use-answered
        (
            "anthropic-forced-tool-choice-with-manual-thinking-not-forced",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "anthropic-max-tokens-complete-tool-use-not-run",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "anthropic-overloaded-after-tool-round-retried-unchanged",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "anthropic-server-and-client-tool-only-client-answered",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("anthropic-web-search-blocks-passed-through", A),  # invariant/ledger-once
        ("back-to-back-consecutive-redacted", A),  # anthropic-messages/tool-use-answered
        (
            "back-to-back-signed-thinking-blocks-kept-apart",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("back-to-back-thinking-then-redacted", A),  # anthropic-messages/tool-use-answered
        (
            "claude-empty-thinking-fragment-before-signature",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "earlier-call-arguments-key-order-stable-across-requests",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "empty-terminal-end-turn-after-tool-result-not-replayed",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "empty-terminal-max-tokens-after-tool-turn-not-replayed",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("empty-terminal-output-last-message-wins", A),  # anthropic-messages/tool-use-answered
        ("empty-terminal-output-last-nonempty-text", A),  # anthropic-messages/tool-use-answered
        ("empty-terminal-output-never-tool-result", A),  # anthropic-messages/tool-use-answered
        (
            "empty-terminal-output-reasoning-only-incomplete",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("interleaved-episodes-across-tool-loop", A),  # anthropic-messages/tool-use-answered
        ("interleaved-signature-only-mid-turn", A),  # anthropic-messages/tool-use-answered
        (
            "interleaved-thinking-text-tool-use-one-message",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("interleaved-two-episodes-one-response", A),  # anthropic-messages/tool-use-answered
        ("latest-turn-thinking-text-byte-exact", A),  # anthropic-messages/tool-use-answered
        (
            "leading-thinking-adaptive-may-stay-chronological",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "leading-thinking-adaptive-redacted-after-text-kept-unchanged",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("leading-thinking-every-tool-turn-stable", A),  # anthropic-messages/tool-use-answered
        ("leading-thinking-redacted-counts-as-thinking", A),  # anthropic-messages/tool-use-answered
        (
            "output-last-of-several-messages-wins-on-claude",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("pause-turn-server-tool-blocks-resent", A),  # invariant/ledger-once
        (
            "per-call-results-failing-tool-keeps-its-own-result",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("redacted-thinking-replayed-verbatim-in-place", A),  # anthropic-messages/tool-use-answered
        ("refusal-after-a-tool-round-context-reset", A),  # anthropic-messages/tool-use-answered
        (
            "signature-only-episode-replayed-with-empty-thinking",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("signature-only-episodes-across-tool-loop", A),  # anthropic-messages/tool-use-answered
        ("signatures-accumulate-as-an-ordered-prefix", A),  # expect
        ("split-signatures-thinking-over-many-deltas", A),  # anthropic-messages/tool-use-answered
        (
            "stream-events-framing-crlf-lines-split-across-reads",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "stream-events-framing-unicode-line-separators-in-payloads",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("stream-events-pings-and-unknown-events", A),  # anthropic-messages/tool-use-answered
        ("thinking-config-held-across-tool-loop", A),  # anthropic-messages/tool-use-answered
        ("thinking-off-nothing-fabricated", A),  # anthropic-messages/tool-use-answered
        (
            "thread-continue-retried-after-overloaded-not-duplicated",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "thread-interleaved-tool-loop-continued-with-results-only",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "thread-redacted-thinking-tool-round-kept-in-place",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "thread-saved-history-continued-into-a-new-thread",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("tool-arguments-fragments-parallel-calls", A),  # anthropic-messages/tool-use-answered
        ("tool-arguments-non-ascii-joined-exactly", A),  # anthropic-messages/tool-use-answered
        (
            "tool-call-without-arguments-replayed-as-empty-object",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("tool-choice-auto-held-across-tool-loop", A),  # anthropic-messages/tool-use-answered
        ("tool-pairing-parallel-calls-results-first", A),  # anthropic-messages/tool-use-answered
        ("truncation-max-tokens-no-prefill-continuation", A),  # invariant/ledger-once
        (
            "truncation-no-finish-mid-thinking-after-tool-result",
            A,
        ),  # anthropic-messages/tool-use-answered
        (
            "user-input-omission-current-loop-assistant-blocks-kept",
            A,
        ),  # anthropic-messages/tool-use-answered
        ("xml-structured-call-preferred", A),  # anthropic-messages/tool-use-answered
    },
    # A chained Responses client counting its delta from its last request, not the
    # provider's last response (rule 60): every chained request sends the previous reply
    # again beside previous_response_id.  A reasoning item sent again is refused as a
    # duplicate (rule 61); a reply of id-less items (a message, a call) comes twice in the
    # rebuilt conversation, which the case's expectations see.  With store false nothing
    # chains, so those cells pass; chains are Responses': no other column.
    ResponsesWrongDeltaAdapter: {
        ("responses-blank-message-after-reasoning-keeps-its-reasoning", R),
        ("responses-chain-interleaved-reasoning-across-tool-loop-in-place", R),  # duplicate
        ("responses-chain-retried-after-server-error-delta-held-once", R),  # duplicate
        ("responses-chain-tool-loop-reasoning-items-sent-once", R),  # duplicate
        ("responses-conversation-continued-over-tool-loop-and-next-turn", R),  # duplicate
        ("responses-output-follows-its-call-when-a-message-trails-it", R),  # duplicate
        ("responses-parallel-function-calls-all-answered", R),  # duplicate
        ("responses-reasoning-items-across-tool-loop-all-kept", R),  # duplicate
        ("responses-reasoning-only-incomplete-output", R),  # duplicate
        ("responses-saved-history-continued-into-a-new-chain", R),  # duplicate
        ("responses-server-error-after-tool-round-retried-unchanged", R),  # duplicate
        ("responses-unknown-stream-events-ignored", R),  # duplicate
        ("stream-events-framing-crlf-lines-split-across-reads", R),  # expect: message twice
        ("stream-events-framing-split-inside-utf8-sequences", R),  # expect: message twice
        ("stream-events-framing-unicode-line-separators-in-payloads", R),  # expect
        ("xml-prose-mention-left-untouched", R),  # expect: message twice
        ("xml-unknown-tool-left-untouched", R),  # expect: message twice
    },
    # A transient error answer stored as an assistant turn before the retry: every fault
    # case, on the wire it runs on.  The provider accepts such a retry, so the check is a
    # `should` on inferred evidence: these fail under --strict --evidence any only.
    StoreErrorOnRetryAdapter: {
        ("anthropic-overloaded-after-tool-round-retried-unchanged", A),
        ("thread-continue-retried-after-overloaded-not-duplicated", A),
        ("responses-chain-retried-after-server-error-delta-held-once", R),
        ("anthropic-rate-limited-with-retry-after", A),
        ("chat-rate-limited-after-tool-round-retried-unchanged", C),
        ("gemini-unavailable-after-tool-round-retried-unchanged", G),
        ("responses-server-error-after-tool-round-retried-unchanged", R),
        ("deepseek-server-busy-after-tool-round-retried-unchanged", "openai-chat:deepseek"),
        ("gemini-rate-limited-after-signed-call-retried-unchanged", G),
        ("gemini-resource-exhausted-first-request-retried-unchanged", G),
        ("openrouter-rate-limited-after-tool-round-retried-unchanged", OR),
        ("openrouter-upstream-unavailable-first-request-retried-unchanged", OR),
        ("responses-overloaded-after-reasoning-round-retried-unchanged", R),
        ("responses-rate-limited-first-request-retried-unchanged", R),
        ("chat-rate-limited-after-tool-round-retried-unchanged", "openai-chat:kimi"),
        ("gemini-compat-overloaded-after-tool-round-retried-unchanged", "openai-chat:gemini"),
        ("gemini-compat-rate-limited-between-steps-retried-unchanged", "openai-chat:gemini"),
    },
    # XML recovery that knows only <invoke> (QwenLM/qwen-code#10692, rule 50): every
    # other dialect ends the turn with the markup as text; it declares xml-recovery, so
    # that is a failure, not an unexplained stop.
    InvokeOnlyRecoveryAdapter: {
        ("xml-bare-function-dialect-recovered", A),
        ("xml-bare-function-dialect-recovered", C),
        ("xml-hermes-json-tool-call-recovered", C),
        ("xml-hermes-json-tool-call-recovered", "openai-chat:ollama"),
        ("xml-bare-function-dialect-recovered", "openai-chat:ollama"),
        ("xml-hermes-json-two-calls-recovered-in-order", "openai-chat:ollama"),
        ("xml-tool-call-function-dialect-recovered", "openai-chat:ollama"),
        ("xml-hermes-json-two-calls-recovered-in-order", C),
        ("xml-tool-call-function-dialect-recovered", A),
        ("xml-tool-call-function-dialect-recovered", C),
        ("xml-tool-call-function-dialect-recovered", R),
    },
    # A server tool's result stored without its server_tool_use (anthropics/claude-code
    # #64383, rule 14): Anthropic rejects the result block that has no use before it.
    DropServerToolUseAdapter: {
        ("anthropic-server-and-client-tool-only-client-answered", A),
        ("anthropic-web-search-blocks-passed-through", A),
        ("pause-turn-server-tool-blocks-resent", A),
    },
    # Redacted reasoning after a tool call dropped: found by generation (no hand-written
    # case had the shape); its shrunk counterexample joined the library.
    DropRedactedAfterCallAdapter: {
        ("openrouter-redacted-detail-after-a-call-kept-in-place", OR),
    },
    # A Gemini model turn rebuilt text-first (an OpenAI-style message): a signed text part
    # after a call moves before it.  Found by generation; its counterexample joined the
    # library.
    TextBeforeCallsAdapter: {
        ("gemini-signed-text-after-call-stays-after-it", G),
    },
}


#: Broken adapters whose bug the provider accepts: no default run may fail them.
ONLY_WHEN_INFERRED_COUNTS: frozenset[type[Adapter]] = frozenset({StoreErrorOnRetryAdapter})


def test_a_changed_retry_is_no_failure_by_default() -> None:
    """The provider accepts a changed retry: by default `invariant/retry-identical` fails
    no cell (a case's own expectations still judge where the stored turn lands)."""
    for adapter in ONLY_WHEN_INFERRED_COUNTS:
        results = run_library(adapter(), strict=False)
        failed_by = {v.check for r in results.values() for v in r.violations}
        warned_by = {w.check for r in results.values() for w in r.warnings}
        assert "invariant/retry-identical" not in failed_by
        assert "invariant/retry-identical" in warned_by


@pytest.mark.parametrize("adapter", list(EXPECTED), ids=lambda a: a.name)
def test_broken_adapter_fails_exactly_its_shapes(adapter: type[Adapter]) -> None:
    strictly = adapter in ONLY_WHEN_INFERRED_COUNTS
    results = run_library(adapter(), strict=strictly, evidence="any" if strictly else "observed")
    assert failing(results) == EXPECTED[adapter]
    for key in EXPECTED[adapter]:
        assert results[key].verdict == "fail", results[key]  # a failure, not an error
