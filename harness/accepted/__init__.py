"""Accepted-variant adapters: the reference with one spelling the provider accepts changed.

Each differs from the reference in one way a widely used library differs and the real
provider accepts; the suite must give every one of them no ``fail`` and no ``error``
(``tests/harness/test_accepted.py``), the mirror image of ``harness.broken``.
"""

from __future__ import annotations

from harness.accepted.anthropic import (
    BlankTextKeptAdapter,
    MovingBreakpointAdapter,
    VerbatimOrderAdapter,
)
from harness.accepted.chat_empty import EmptyAssistantKeptAdapter
from harness.accepted.cut_calls import AnswerCutCallsAdapter
from harness.accepted.deepseek import EmptyReasoningContentAdapter
from harness.accepted.gemini import ReturnValueAdapter, UrlSafeSignatureAdapter
from harness.accepted.unflagged import NoErrorFlagAdapter

ACCEPTED_ADAPTERS = (
    UrlSafeSignatureAdapter,
    ReturnValueAdapter,
    EmptyReasoningContentAdapter,
    MovingBreakpointAdapter,
    VerbatimOrderAdapter,
    NoErrorFlagAdapter,
    AnswerCutCallsAdapter,
    BlankTextKeptAdapter,
    EmptyAssistantKeptAdapter,
)

__all__ = [
    "ACCEPTED_ADAPTERS",
    "AnswerCutCallsAdapter",
    "BlankTextKeptAdapter",
    "EmptyAssistantKeptAdapter",
    "EmptyReasoningContentAdapter",
    "MovingBreakpointAdapter",
    "NoErrorFlagAdapter",
    "ReturnValueAdapter",
    "UrlSafeSignatureAdapter",
    "VerbatimOrderAdapter",
]
