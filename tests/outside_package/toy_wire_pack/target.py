"""Two in-process targets that speak the toy wire: one that keeps each token with its
message, and one that forgets them (what ``toy-echo/token-minted`` refuses)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from conformance import (
    Adapter,
    AdapterSession,
    CallToRun,
    CaseBrief,
    ToolResultIn,
    WireResponse,
)


class _Conversation(AdapterSession):
    def __init__(self, session: CaseBrief, keep_tokens: bool) -> None:
        self.model = session.model
        self.keep_tokens = keep_tokens
        self.messages: list[dict[str, Any]] = []

    def add_user(self, text: str) -> None:
        self.messages.append({"role": "user", "text": text})

    def next_request(self) -> dict[str, Any]:
        return {"model": self.model, "messages": self.messages}

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        answer = json.loads(response.body)
        message = {"role": "assistant", "text": answer.get("text", "")}
        if self.keep_tokens and "token" in answer:
            message["token"] = answer["token"]
        elif "token" in answer:
            message["token"] = "forgotten"
        self.messages.append(message)
        return []

    def add_tool_results(self, results: Sequence[ToolResultIn]) -> None:
        raise NotImplementedError("the toy wire has no tools")


class ToyEchoAdapter(Adapter):
    name: ClassVar[str] = "toy-echo-client"
    wires: ClassVar[frozenset[str]] = frozenset({"toy-echo"})

    def open(self, brief: CaseBrief) -> AdapterSession:
        return _Conversation(brief, keep_tokens=True)


class ForgetfulToyAdapter(Adapter):
    name: ClassVar[str] = "toy-echo-forgetful"
    wires: ClassVar[frozenset[str]] = frozenset({"toy-echo"})

    def open(self, brief: CaseBrief) -> AdapterSession:
        return _Conversation(brief, keep_tokens=False)
