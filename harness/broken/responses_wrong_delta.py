"""Broken: a chained Responses client that counts its delta from its last request, not
from the provider's last response, so every chained request sends the previous reply's
output items again beside ``previous_response_id``.

The stored response already holds those items (rule 60: a chained request carries only
the items since the previous response); sent again, the conversation the provider sees
holds them twice.  A reasoning item (or any item with its id) sent again is refused,
"Duplicate item found with id …" (rule 61: openai/openai-agents-python#1789,
vercel/ai#15492); a call sent again without its id is a second copy of the call.
"""

from __future__ import annotations

from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceSession
from harness.chained import ChainedReference, ChainedSession


class ResponsesWrongDeltaSession(ChainedSession):
    def delta(self, parts: tuple[list[Any], list[Any]]) -> list[Any]:
        replayed, new = parts
        return [*replayed, *new]  # from the request before: the reply comes again


class ResponsesWrongDeltaAdapter(ChainedReference):
    name: ClassVar[str] = "broken-responses-wrong-delta"
    session_class: ClassVar[type[ReferenceSession]] = ResponsesWrongDeltaSession
