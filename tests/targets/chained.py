"""Test-only variants of the chained Responses reference (``harness.chained``) that keep
the conversation on the provider wrongly: one chains even with ``store: false``, one
sends a retried delta twice, one leaves the function_call_output items out, one names a
response the provider never stored, one sends the whole input again into its
conversation.  ``ChainedReference`` and ``ConversationReference`` themselves chain
correctly."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceSession
from conformance._targets.api import WireRequest, WireResponse
from harness.chained import (
    ChainedReference,
    ChainedSession,
    ConversationReference,
    ConversationSession,
)

__all__ = [
    "ChainedDoubledRetry",
    "ChainedIgnoringStore",
    "ChainedReference",
    "ChainedWithoutToolOutputs",
    "ChainedWrongPrevious",
    "ConversationReference",
    "ConversationResendingEverything",
]


class _IgnoringStore(ChainedSession):
    """Chains as if ``store`` were on: drops ``store: false`` from its view of the body
    and puts it back on the request it sends."""

    def next_request(self) -> WireRequest:
        request = ReferenceSession.next_request(self)
        raw = request.body
        body: dict[str, Any] = json.loads(raw) if isinstance(raw, bytes) else dict(raw)
        if body.get("store") is not False:
            return super().next_request()
        whole = list(body["input"])
        self.sent = whole
        parts = self._chainable(whole)
        if parts is None:
            return request
        chained = {**body, "input": self.delta(parts), "previous_response_id": self.latest}
        return WireRequest(body=chained, headers=request.headers, path=request.path)

    def retries(self, response: WireResponse) -> bool:
        return ReferenceSession.retries(self, response)  # no fallback: the 400 stands


class ChainedIgnoringStore(ChainedReference):
    """Chains on responses answered with ``store: false`` (rule 60)."""

    name: ClassVar[str] = "chained-ignoring-store"
    session_class: ClassVar[type[ReferenceSession]] = _IgnoringStore


class _DoubledRetry(ChainedSession):
    """Appends the delta to its own copy of the chain when it sends it, so the retry
    after a fault carries it twice."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: list[Any] = []
        self.faulted = False

    def delta(self, parts: tuple[list[Any], list[Any]]) -> list[Any]:
        new = parts[1]
        sent = [*self.pending, *new] if self.faulted else list(new)
        self.pending, self.faulted = list(new), False
        return sent

    def retries(self, response: WireResponse) -> bool:
        self.faulted = True
        return super().retries(response)


class ChainedDoubledRetry(ChainedReference):
    """Sends a retried delta twice (rule 52 / 60)."""

    name: ClassVar[str] = "chained-doubled-retry"
    session_class: ClassVar[type[ReferenceSession]] = _DoubledRetry


class _WithoutToolOutputs(ChainedSession):
    def delta(self, parts: tuple[list[Any], list[Any]]) -> list[Any]:
        return [i for i in parts[1] if i.get("type") != "function_call_output"]


class ChainedWithoutToolOutputs(ChainedReference):
    """Leaves the function_call_output items out of the delta (the chain cannot supply
    them)."""

    name: ClassVar[str] = "chained-without-tool-outputs"
    session_class: ClassVar[type[ReferenceSession]] = _WithoutToolOutputs


class _WrongPrevious(ChainedSession):
    def previous(self) -> str | None:
        return "resp_0000000000000000000000000000000000000000wrong"

    def retries(self, response: WireResponse) -> bool:
        return ReferenceSession.retries(self, response)  # no fallback: the 400 stands


class ChainedWrongPrevious(ChainedReference):
    """Names a response the provider never stored in ``previous_response_id``."""

    name: ClassVar[str] = "chained-wrong-previous"
    session_class: ClassVar[type[ReferenceSession]] = _WrongPrevious


class _ResendingEverything(ConversationSession):
    def delta(self, parts: tuple[list[Any], list[Any]]) -> list[Any]:
        return list(self.sent)


class ConversationResendingEverything(ConversationReference):
    """Sends the whole input again into its conversation (openai-agents-python#1789)."""

    name: ClassVar[str] = "conversation-resending-everything"
    session_class: ClassVar[type[ReferenceSession]] = _ResendingEverything
