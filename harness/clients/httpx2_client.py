"""The httpx client's twin on ``httpx2.Client``, the HTTP library the current
anthropic and openai SDKs import: the suite must intercept it without
``httpx2.alias_httpx()``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import httpx2

from conformance._targets.api import Client, Conversation
from harness.clients.httpx_client import hold_anthropic


class Httpx2AnthropicClient(Client):
    name: ClassVar[str] = "httpx2-anthropic-min"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})

    def run(self, conversation: Conversation) -> None:
        with httpx2.Client(timeout=60.0) as http:

            def post(url: str, body: bytes, headers: Mapping[str, str]) -> tuple[int, bytes]:
                answer = http.post(url, content=body, headers=dict(headers))
                return answer.status_code, answer.content

            hold_anthropic(conversation, post)
