"""Targets that misbehave on purpose: the suite must turn each into an `error` verdict
with the reason, and go on."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from conformance._targets.api import (
    Adapter,
    AdapterSession,
    CallToRun,
    CaseBrief,
    ToolResultIn,
    WireRequest,
    WireResponse,
)


class _Session(AdapterSession):
    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour

    def add_user(self, text: str) -> None:
        pass

    def next_request(self) -> WireRequest | Mapping[str, Any] | bytes:
        if self.behaviour == "hang":
            time.sleep(30)
        if self.behaviour == "raise":
            raise RuntimeError("the adapter broke")
        if self.behaviour == "not-json":
            return b"this is not json"
        return {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        return []

    def add_tool_results(self, results: Sequence[ToolResultIn]) -> None:
        pass


class _Faulty(Adapter):
    behaviour: ClassVar[str]
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})

    def open(self, session: CaseBrief) -> AdapterSession:
        return _Session(self.behaviour)


class Hanging(_Faulty):
    name = "hanging"
    behaviour = "hang"


class Raising(_Faulty):
    name = "raising"
    behaviour = "raise"


class NotJson(_Faulty):
    name = "not-json"
    behaviour = "not-json"
