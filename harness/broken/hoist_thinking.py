"""Broken: every reasoning block of an assistant message hoisted to its front.

The base of seed §84 (``mergeConsecutiveAssistantMessages`` hoisted all thinking when
merging) and mutant M5 (§117): ``[thinking1, tool_use1, thinking2, tool_use2]`` is
replayed as ``[thinking1, thinking2, tool_use1, tool_use2]``, losing each episode's
place relative to the calls it preceded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from conformance.model import Block, Reasoning
from conformance.reference.adapter import ReferenceAdapter
from conformance.reference.anthropic import AnthropicCodec, all_to_front
from conformance.reference.codec import WireCodec


def _reasoning(block: Block) -> bool:
    return isinstance(block, Reasoning)


class HoistingAnthropicCodec(AnthropicCodec):
    def arrange(self, blocks: tuple[Block, ...], repair: bool) -> tuple[Block, ...]:
        return all_to_front(blocks, _reasoning)


class HoistThinkingAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-hoist-thinking"
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {"anthropic-messages": HoistingAnthropicCodec}
