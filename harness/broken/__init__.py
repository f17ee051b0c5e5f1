"""Deliberately broken adapters: the reference with one known pre-fix behaviour put back.

Each must fail the cases for the shape it breaks and pass the others; a case library
that lets one through has a hole.
"""

from __future__ import annotations

from harness.broken.drop_redacted_after_call import DropRedactedAfterCallAdapter
from harness.broken.drop_server_tool_use import DropServerToolUseAdapter
from harness.broken.drop_signature_only import DropSignatureOnlyAdapter
from harness.broken.hoist_thinking import HoistThinkingAdapter
from harness.broken.invoke_only_recovery import InvokeOnlyRecoveryAdapter
from harness.broken.merge_episodes import MergeEpisodesAdapter
from harness.broken.responses_wrong_delta import ResponsesWrongDeltaAdapter
from harness.broken.store_error_on_retry import StoreErrorOnRetryAdapter
from harness.broken.text_before_calls import TextBeforeCallsAdapter
from harness.broken.thread_wrong_delta import ThreadWrongDeltaAdapter

BROKEN_ADAPTERS = (
    MergeEpisodesAdapter,
    HoistThinkingAdapter,
    DropSignatureOnlyAdapter,
    StoreErrorOnRetryAdapter,
    InvokeOnlyRecoveryAdapter,
    DropServerToolUseAdapter,
    DropRedactedAfterCallAdapter,
    TextBeforeCallsAdapter,
    ThreadWrongDeltaAdapter,
    ResponsesWrongDeltaAdapter,
)

__all__ = [
    "BROKEN_ADAPTERS",
    "DropRedactedAfterCallAdapter",
    "DropServerToolUseAdapter",
    "DropSignatureOnlyAdapter",
    "HoistThinkingAdapter",
    "InvokeOnlyRecoveryAdapter",
    "MergeEpisodesAdapter",
    "ResponsesWrongDeltaAdapter",
    "StoreErrorOnRetryAdapter",
    "TextBeforeCallsAdapter",
    "ThreadWrongDeltaAdapter",
]
