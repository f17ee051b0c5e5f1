"""Test-only variants of the threaded reference (``harness.threaded``) that send a wrong
delta: one leaves the tool results out, one sends the delta's last message twice, one
names a wrong ``previous_message_id``, one re-sends the whole history on every
``continue``.  ``ThreadedReference`` itself threads correctly."""

from __future__ import annotations

from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceSession
from harness.threaded import ThreadedReference, ThreadedSession

__all__ = [
    "ThreadedDuplicatedMessage",
    "ThreadedReference",
    "ThreadedResentHistory",
    "ThreadedWithoutToolResults",
    "ThreadedWrongPrevious",
]


class _NoToolResults(ThreadedSession):
    def delta(self, held: list[Any], sent: list[Any]) -> list[Any]:
        kept = []
        for message in super().delta(held, sent):
            content = message.get("content")
            if message.get("role") == "user" and isinstance(content, list):
                content = [b for b in content if b.get("type") != "tool_result"]
                if not content:
                    continue
                message = {**message, "content": content}
            kept.append(message)
        return kept


class ThreadedWithoutToolResults(ThreadedReference):
    """Leaves the tool results out of the delta (the thread cannot supply them)."""

    name: ClassVar[str] = "threaded-without-tool-results"
    session_class: ClassVar[type[ReferenceSession]] = _NoToolResults


class _Duplicated(ThreadedSession):
    def delta(self, held: list[Any], sent: list[Any]) -> list[Any]:
        new = super().delta(held, sent)
        return [*new, new[-1]] if new else new


class ThreadedDuplicatedMessage(ThreadedReference):
    """Sends the delta's last message twice."""

    name: ClassVar[str] = "threaded-duplicated-message"
    session_class: ClassVar[type[ReferenceSession]] = _Duplicated


class _WrongPrevious(ThreadedSession):
    def previous(self) -> str | None:
        return "msg_0000000000000000000000wrong"


class ThreadedWrongPrevious(ThreadedReference):
    """Names a response no thread holds in ``previous_message_id``."""

    name: ClassVar[str] = "threaded-wrong-previous"
    session_class: ClassVar[type[ReferenceSession]] = _WrongPrevious


class _Resent(ThreadedSession):
    def delta(self, held: list[Any], sent: list[Any]) -> list[Any]:
        return list(sent)


class ThreadedResentHistory(ThreadedReference):
    """Sends the whole history again on every ``continue``."""

    name: ClassVar[str] = "threaded-resent-history"
    session_class: ClassVar[type[ReferenceSession]] = _Resent
