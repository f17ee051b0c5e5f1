"""Reference adapters whose "library" stops the conversation on purpose right after the
Nth response it receives (``ConversationStopped``), as openai-agents raises on
``response.incomplete`` and the AI SDK on a cut turn: the held half of the conversation
is the reference's, so only the stop is judged."""

from __future__ import annotations

from collections.abc import Sequence

from conformance._reference import ReferenceAdapter
from conformance._reference.adapter import ReferenceSession
from conformance._targets.api import CallToRun, ConversationStopped, WireRequest, WireResponse


class _StopsAfterFirstSession(ReferenceSession):
    """Reads the first response, then raises as a library does on a response it will
    not go on from."""

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        calls = super().receive(response)
        raise ConversationStopped(f"LibraryStop: will not go on ({len(calls)} calls)")


class StopsAfterFirstResponse(ReferenceAdapter):
    """The reference adapter, stopping the conversation after its first response."""

    name = "stops-after-first-response"
    session_class = _StopsAfterFirstSession


class _StopsBeforeSendingSession(ReferenceSession):
    def next_request(self) -> WireRequest:
        raise ConversationStopped("LibraryStop: this configuration is not supported")


class StopsBeforeSending(ReferenceAdapter):
    """The reference adapter, stopping before its first request."""

    name = "stops-before-sending"
    session_class = _StopsBeforeSendingSession
