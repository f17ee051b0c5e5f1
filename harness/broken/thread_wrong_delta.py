"""Broken: a threaded client that counts its delta from its last request, not from the
thread's last response, so every ``continue`` sends the previous reply again.

The thread already holds the reply under its id (rule 58: a continue carries only the
messages since the previous response); sent again, the rebuilt conversation holds it
twice.  After a tool round that leaves its calls unanswered where they first stand,
which the provider refuses (rule 13); after a text reply it is a duplicated assistant
turn the provider takes, recorded on inferred evidence only.
"""

from __future__ import annotations

from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceSession
from harness.threaded import ThreadedReference, ThreadedSession


class ThreadWrongDeltaSession(ThreadedSession):
    def delta(self, held: list[Any], sent: list[Any]) -> list[Any]:
        return sent[len(held) - 1 :]  # from the request before: the reply comes again


class ThreadWrongDeltaAdapter(ThreadedReference):
    name: ClassVar[str] = "broken-thread-wrong-delta"
    session_class: ClassVar[type[ReferenceSession]] = ThreadWrongDeltaSession
