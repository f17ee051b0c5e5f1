"""Accepted Chat spelling: an empty assistant turn kept in history as ``content: ""``
(a library that stores every turn, the empty final message of a tool loop included, and
writes no text as the empty string), on OpenAI's own endpoint.  OpenAI answers it 200
(vercel/ai#14950, verified live; vllm-project/vllm#21089); it refuses only
``content: null`` without tool_calls (rule 54), which this variant never sends.  Keeping
the turn costs tokens and nothing else, so the suite may warn (a design ``should``) but
never fail it.  The other Chat endpoints' answer is not known: there the variant is the
reference."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.codec import WireCodec
from conformance._reference.guards import Guards
from conformance._reference.openai_chat import OpenAIChatCodec
from conformance._targets.api import CaseBrief
from harness.accepted._rewrite import Rewriting


class EmptyStringContentCodec(Rewriting, OpenAIChatCodec):
    def rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        if self.brief.dialect is not None:
            return body
        for message in body.get("messages") or ():
            empty = message.get("content") is None and not message.get("tool_calls")
            if message.get("role") == "assistant" and empty:
                message["content"] = ""
        return body


class EmptyAssistantKeptAdapter(ReferenceAdapter):
    name: ClassVar[str] = "accepted-empty-assistant-kept"
    wires: ClassVar[frozenset[str]] = frozenset({"openai-chat"})
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {"openai-chat": EmptyStringContentCodec}

    def open(self, brief: CaseBrief) -> ReferenceSession:
        if brief.dialect is not None:
            return super().open(brief)
        guards = Guards({*self.guards.disabled, "skip-empty-assistant"})
        codec = self.codecs[brief.wire]
        return self.session_class(brief, guards, codec(brief, guards))
