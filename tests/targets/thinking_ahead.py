"""A reference adapter that writes a cut, unsigned thinking block out as user text and
puts it ahead of the assistant message it came from, as pydantic-ai 2.68.0 does on
Anthropic: the signed thinking of that message then follows a prefix it was not produced
after (rule 55).  Anthropic Messages only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance._reference import ReferenceAdapter
from conformance._targets.api import CallToRun, WireResponse
from conformance.vocabulary import Reasoning
from tests.targets.rewriting import RewritingSession


class _AheadSession(RewritingSession):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._ahead: list[tuple[str, str]] = []  # (anchor signature, cut text)

    def receive(self, response: WireResponse) -> Sequence[CallToRun]:
        blocks = self.consolidate(self.codec.decode(response))
        last = blocks[-1] if blocks else None
        anchor = next(
            (b.signature for b in blocks if isinstance(b, Reasoning) and b.signature), None
        )
        if isinstance(last, Reasoning) and not last.signature and last.text and anchor:
            self._ahead.append((anchor, last.text))
        return super().receive(response)

    def rewrite(self, body: dict[str, Any], number: int) -> None:
        messages = body["messages"]
        for anchor, text in self._ahead:
            for i, message in enumerate(messages):
                content = message.get("content")
                if (
                    message.get("role") == "assistant"
                    and isinstance(content, list)
                    and any(block.get("signature") == anchor for block in content)
                ):
                    frame = f"<assistant_thinking>\n{text}\n</assistant_thinking>"
                    messages.insert(
                        i, {"role": "user", "content": [{"type": "text", "text": frame}]}
                    )
                    break


class ThinkingAheadAsUserText(ReferenceAdapter):
    name = "thinking-ahead-as-user-text"
    session_class = _AheadSession
