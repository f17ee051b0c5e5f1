"""Broken: a transient error answer stored in the history before the retry.

Harnesses that render a failed request as an assistant turn ("API Error: 529 ...") and
then retry send the model a conversation it never had, and keep it: every later request
carries the error text (rule 52: never a different history after a transient error).
"""

from __future__ import annotations

from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._targets.api import WireResponse
from conformance.vocabulary import Text


class StoreErrorOnRetrySession(ReferenceSession):
    def retries(self, response: WireResponse) -> bool:
        retried = super().retries(response)
        if retried:
            note = f"API Error: {response.status} {response.body.decode(errors='replace')}"
            self.history.add_assistant((Text(text=note),), "end")
        return retried


class StoreErrorOnRetryAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-store-error-on-retry"
    session_class: ClassVar[type[ReferenceSession]] = StoreErrorOnRetrySession
