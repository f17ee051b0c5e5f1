"""Reference adapters that react to a dropped stream (a response cut before its final
event) in the other ways a careful client does: send the identical request again once,
or send a request that differs from the one that got the cut (not a retry)."""

from __future__ import annotations

from collections.abc import Sequence

from conformance._reference import ReferenceAdapter
from conformance._reference.adapter import ReferenceSession
from conformance._reference.turns import settle
from conformance._targets.api import CallToRun, WireResponse


class _RetriesOnceSession(ReferenceSession):
    """On a dropped stream, stores nothing of it and asks again with the same history:
    the identical request, once (what the providers' SDKs do on a cut connection)."""

    _retry = False
    _retried = False

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        decoded = self.codec.decode(response)
        if decoded.stop == "no_finish" and not self._retried:
            self._retry = self._retried = True
            return []
        blocks = self.consolidate(decoded)
        settled = settle(blocks, decoded.stop, self._offered(), self.guards, self._new_id)
        self.history.add_assistant(settled.blocks, decoded.stop)
        self.history.add_tool_results(settled.answered)
        return list(settled.calls)

    def continues(self) -> bool:
        if self._retry:
            self._retry = False
            return True
        return super().continues()


class RetriesDroppedStream(ReferenceAdapter):
    """The reference adapter, retrying a dropped stream once with the identical body."""

    name = "retries-dropped-stream"
    session_class = _RetriesOnceSession
