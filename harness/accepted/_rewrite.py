"""The seam every accepted variant uses: the reference's request body, rewritten.

A variant changes only how a request is spelled, never what the reference decided to
send, so each one isolates a single spelling the provider accepts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance._reference.codec import WireCodec
from conformance._targets.api import WireRequest
from conformance.vocabulary import Message


class Rewriting(WireCodec):
    """Mixin: ``rewrite`` gets each request body (a JSON object) and returns the new one.
    Put it before a concrete codec, whose ``request`` it wraps."""

    def rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        return body

    def request(self, history: Sequence[Message]) -> WireRequest:
        sent = super().request(history)  # type: ignore[safe-super]
        if not isinstance(sent.body, Mapping):
            return sent
        return WireRequest(body=self.rewrite(dict(sent.body)), headers=sent.headers, path=sent.path)
