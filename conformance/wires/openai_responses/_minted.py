"""What the provider mints for one scripted response: its ids and its complete output items.

Render and the expansion of stored references both read ids from here, so a stored id
always names the item that was served under it.  A response read back from a recording
carries the ids it was really served under (``ScriptedResponse.ids``): those are used
instead, so the recording's own ``previous_response_id`` chain and item ids resolve.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.model import ContentBlock, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires import values

#: The output item type of each block kind that becomes an item.
_ITEM_TYPES: dict[type[object], str] = {
    Reasoning: "reasoning",
    Text: "message",
    ToolCall: "function_call",
}


@dataclass(frozen=True)
class Slot:
    """One output item in the order it was served: its type, its id, and the indexes of
    the blocks it holds (none: an item with no neutral form, a hosted tool's call)."""

    kind: str
    id: str | None
    blocks: tuple[int, ...]


@dataclass(frozen=True)
class Minted:
    """The ids and output items of one scripted response, as the provider mints them.

    Render and the expansion of references both read ids from here, so a stored id
    always names the item that was served under it.
    """

    index: int
    response: ScriptedResponse
    seed: str  # what every id and usage figure of this response derives from
    response_id: str
    item_ids: tuple[str | None, ...]  # per block; None for a block with no item
    slots: tuple[Slot, ...]  # every output item, in the order it was served

    @classmethod
    def of(cls, response: ScriptedResponse, index: int) -> Minted:
        seed = values.digest(index, response.model_dump_json())
        ids: list[str | None] = []
        for b, block in enumerate(response.blocks):
            if isinstance(block, Reasoning):
                ids.append(block.id or "rs_" + values.digest("reasoning", seed, b)[:48])
            elif isinstance(block, Text):
                ids.append("msg_" + values.digest("message", seed, b)[:48])
            elif isinstance(block, ToolCall):
                ids.append("fc_" + values.digest("function_call", seed, block.id)[:48])
            else:
                ids.append(None)
        if response.ids is None:
            slots = tuple(
                Slot(_ITEM_TYPES[type(block)], item_id, (b,))
                for b, (item_id, block) in enumerate(zip(ids, response.blocks, strict=True))
                if item_id is not None
            )
            response_id = "resp_" + values.digest("response", seed)[:48]
            return cls(index, response, seed, response_id, tuple(ids), slots)
        served: list[Slot] = []
        start = 0
        for item in response.ids.items:
            held = tuple(range(start, start + item.blocks))
            start += item.blocks
            for b in held:
                if item.id is not None and ids[b] is not None:
                    ids[b] = item.id
            served.append(Slot(item.type, item.id, held))
        return cls(index, response, seed, response.ids.response, tuple(ids), tuple(served))

    def items(self) -> list[tuple[int, str, ContentBlock]]:
        """``(block index, item id, block)`` of every block that becomes an item."""
        return [
            (b, item_id, block)
            for b, (item_id, block) in enumerate(
                zip(self.item_ids, self.response.blocks, strict=True)
            )
            if item_id is not None
        ]

    def done_items(self, encrypted: bool) -> list[dict[str, Any]]:
        """Every output item in its complete (``output_item.done``) form."""
        last = len(self.items()) - 1
        incomplete = self.response.stop == "max_tokens"
        return [
            done_item(
                block,
                item_id,
                encrypted=encrypted,
                refusal=self.response.stop == "refusal",
                incomplete=incomplete and k == last,
            )
            for k, (_, item_id, block) in enumerate(self.items())
        ]


def done_item(
    block: ContentBlock, item_id: str, *, encrypted: bool, refusal: bool, incomplete: bool
) -> dict[str, Any]:
    status = "incomplete" if incomplete else "completed"
    if isinstance(block, Reasoning):
        return {
            "type": "reasoning",
            "id": item_id,
            "summary": [{"type": "summary_text", "text": s} for s in block.summary or ()],
            "encrypted_content": block.signature if encrypted else None,
        }
    if isinstance(block, Text):
        return {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": status,
            "content": [content_part(block.text, refusal)],
        }
    if isinstance(block, ToolCall):
        return {
            "type": "function_call",
            "id": item_id,
            "call_id": block.id,
            "name": block.name,
            "arguments": values.argument_text(block),
            "status": status,
        }
    raise ValueError(f"a {block.kind} block has no Responses output item")


def content_part(text: str, refusal: bool) -> dict[str, Any]:
    if refusal:
        return {"type": "refusal", "refusal": text}
    return {"type": "output_text", "text": text, "annotations": []}
