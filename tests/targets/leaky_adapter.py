"""An adapter that keeps its state from one conversation to the next: the first
conversation it opens is the one every later ``open`` returns, history and all.  Held
as a session (one process, many cells), its second cell replays the first cell's
conversation and must fail: a session's state cannot make a later cell pass."""

from __future__ import annotations

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._targets.api import CaseBrief


class LeakyAdapter(ReferenceAdapter):
    kept: ReferenceSession | None = None

    def open(self, session: CaseBrief) -> ReferenceSession:
        if LeakyAdapter.kept is None:
            LeakyAdapter.kept = super().open(session)
        return LeakyAdapter.kept
