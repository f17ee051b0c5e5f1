"""Broken: every reasoning block of an assistant message hoisted to its front.

The base of seed §84 (``mergeConsecutiveAssistantMessages`` hoisted all thinking when
merging) and mutant M5 (§117): ``[thinking1, tool_use1, thinking2, tool_use2]`` is
replayed as ``[thinking1, thinking2, tool_use1, tool_use2]``, losing each episode's
place relative to the calls it preceded.  The same reordering breaks every wire that
keeps reasoning in place: a Responses reasoning item no longer precedes the item it
produced (rule 26), Gemini thought parts leave their function calls (rule 41).  Chat
keeps reasoning in its own field, so there it changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.anthropic import AnthropicCodec, all_to_front
from conformance._reference.codec import WireCodec
from conformance._reference.gemini import GeminiCodec
from conformance._reference.openai_chat import OpenAIChatCodec
from conformance._reference.openai_responses import OpenAIResponsesCodec
from conformance.vocabulary import Block, Reasoning


def _reasoning(block: Block) -> bool:
    return isinstance(block, Reasoning)


class Hoisting(WireCodec):
    """Mixin: the order of every assistant message, reasoning first."""

    def arrange(self, blocks: tuple[Block, ...], repair: bool) -> tuple[Block, ...]:
        return all_to_front(blocks, _reasoning)


class HoistingAnthropicCodec(Hoisting, AnthropicCodec):
    pass


class HoistingOpenAIResponsesCodec(Hoisting, OpenAIResponsesCodec):
    pass


class HoistingOpenAIChatCodec(Hoisting, OpenAIChatCodec):
    pass


class HoistingGeminiCodec(Hoisting, GeminiCodec):
    pass


class HoistThinkingAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-hoist-thinking"
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {
        codec.wire: codec
        for codec in (
            HoistingAnthropicCodec,
            HoistingOpenAIResponsesCodec,
            HoistingOpenAIChatCodec,
            HoistingGeminiCodec,
        )
    }
