"""The reference adapter with its request bodies rewritten on the way out: the one
mechanism behind the test targets that put back a client's change to the JSON it sends
(reversed key order, text moved ahead of a turn, a respelled prompt)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

from conformance._reference import ReferenceAdapter
from conformance._reference.adapter import ReferenceSession
from conformance._targets.api import WireRequest

#: Changes a request body in place; told the request's 1-based number.
Rewrite = Callable[[dict[str, Any], int], None]


class RewritingSession(ReferenceSession):
    """The reference's requests, each body passed through ``rewrite`` before it goes."""

    _sent = 0

    def rewrite(self, body: dict[str, Any], number: int) -> None:
        """Change ``body`` (request ``number``) in place; the default changes nothing."""

    def next_request(self) -> WireRequest:
        request = super().next_request()
        self._sent += 1
        body = json.loads(request.body_bytes())
        self.rewrite(body, self._sent)
        return WireRequest(
            body=json.dumps(body).encode(), headers=request.headers, path=request.path
        )


def rewriting(rewrite: Rewrite, name: str = "rewriting") -> ReferenceAdapter:
    """The reference adapter with ``rewrite`` applied to every request body."""

    class CaseBrief(RewritingSession):
        def rewrite(self, body: dict[str, Any], number: int) -> None:
            rewrite(body, number)

    class Rewriting(ReferenceAdapter):
        session_class: ClassVar[type[ReferenceSession]] = CaseBrief

    Rewriting.name = name
    return Rewriting()
