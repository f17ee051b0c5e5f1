"""Broken: request options that drift inside a tool loop.

Harnesses that build the continuation request (the one carrying tool results) on a
different code path than the first request of a turn lose options on the way: the
thinking budget is recomputed from what is left of ``max_tokens``, the interleaved
thinking beta header is only sent on the first request, and ``include`` and
``tool_choice`` are forgotten, so a stateless Responses client receives no encrypted
reasoning to replay (rules 12, 19, 25, 53; seed §85).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.anthropic import AnthropicCodec
from conformance._reference.codec import WireCodec
from conformance._reference.openai_chat import OpenAIChatCodec
from conformance._reference.openai_responses import OpenAIResponsesCodec
from conformance._targets.api import WireRequest
from conformance.vocabulary import Message


class _Drifting(WireCodec):
    """Mixin: a continuation request (its last message a tool message) is rewritten."""

    def drift(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        """Change ``body`` and ``headers`` in place."""

    def request(self, history: Sequence[Message]) -> WireRequest:
        sent = super().request(history)  # type: ignore[safe-super]
        if not history or history[-1].role != "tool" or not isinstance(sent.body, Mapping):
            return sent
        body, headers = dict(sent.body), dict(sent.headers)
        self.drift(body, headers)
        return WireRequest(body=body, headers=headers, path=sent.path)


class DriftingAnthropicCodec(_Drifting, AnthropicCodec):
    def drift(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        thinking = body.get("thinking")
        if isinstance(thinking, dict) and "budget_tokens" in thinking:
            body["thinking"] = {**thinking, "budget_tokens": thinking["budget_tokens"] // 2}
        headers.pop("anthropic-beta", None)
        body.pop("tool_choice", None)


class DriftingResponsesCodec(_Drifting, OpenAIResponsesCodec):
    def drift(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        body.pop("include", None)
        body.pop("tool_choice", None)


class DriftingChatCodec(_Drifting, OpenAIChatCodec):
    def drift(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        reasoning = body.get("reasoning")
        if isinstance(reasoning, dict) and "max_tokens" in reasoning:
            body["reasoning"] = {**reasoning, "max_tokens": reasoning["max_tokens"] // 2}
        body.pop("tool_choice", None)


class DriftRequestOptionsAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-drift-request-options"
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {
        **ReferenceAdapter.codecs,
        "anthropic-messages": DriftingAnthropicCodec,
        "openai-responses": DriftingResponsesCodec,
        "openai-chat": DriftingChatCodec,
    }
