"""Accepted DeepSeek spelling: ``reasoning_content: ""`` on every assistant message that
had no reasoning (a library that always writes the key).  Empty and absent are the same
on that wire."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.codec import WireCodec
from conformance._reference.openai_chat import DEEPSEEK, OpenAIChatCodec
from harness.accepted._rewrite import Rewriting


class EmptyReasoningContentCodec(Rewriting, OpenAIChatCodec):
    def rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        if self.brief.dialect != DEEPSEEK:
            return body
        for message in body.get("messages") or ():
            if message.get("role") == "assistant":
                message.setdefault("reasoning_content", "")
        return body


class EmptyReasoningContentAdapter(ReferenceAdapter):
    name: ClassVar[str] = "accepted-empty-reasoning-content"
    wires: ClassVar[frozenset[str]] = frozenset({"openai-chat"})
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {"openai-chat": EmptyReasoningContentCodec}
