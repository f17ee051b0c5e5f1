"""What the provider mints for one scripted response: its ids and its complete output items.

Render and the expansion of stored references both read ids from here, so a stored id
always names the item that was served under it.  A response read back from a recording
carries the ids it was really served under (``ScriptedResponse.ids``): those are used
instead, so the recording's own ``previous_response_id`` chain and item ids resolve.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

from conformance.vocabulary import Block, ContentBlock, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires import _values as values
from conformance.wires._sse import fragments

#: The Fernet header (version byte, then a timestamp) of the interim token: OpenAI's
#: encrypted_content is a Fernet token, ``gAAAAAB…`` in URL-safe base64.
_FERNET_HEADER = b"\x80" + (1_750_000_000).to_bytes(8, "big")

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


def interim_content(signature: str) -> str:
    """The ``encrypted_content`` a stream's ``output_item.added`` announces for a reasoning
    item whose final one (at ``output_item.done``) is ``signature``.

    Real streams set it already at ``.added``, to a whole token of its own, shorter and
    different from the final one: 10 of 10 reasoning items of pydantic/pydantic-ai
    tests/models/cassettes/test_openai_responses/ (e.g.
    test_openai_responses_streaming_usage.yaml: 824 characters at ``.added``, 3896 at
    ``.done``).  A client that keeps it sends a token the provider can decrypt but that
    holds none of the item's reasoning: the ledger wants the final one (rule 22).  This
    one is derived from the final token, so it is distinct from every minted payload and
    the same script renders the same bytes.
    """
    seed = hashlib.sha256(("interim\x1f" + signature).encode()).digest()
    body = hashlib.sha256(seed + b"body").digest() * 2  # the IV and an "encrypted" block
    mac = hashlib.sha256(seed + b"mac").digest()
    return base64.urlsafe_b64encode(_FERNET_HEADER + seed[:16] + body + mac).decode()


def added_content(block: Reasoning) -> str | None:
    """The ``encrypted_content`` of a reasoning item's ``output_item.added``: the interim
    token (the default, as real streams send it), or, with ``signature_chunks``, only the
    first piece of the final one (the spec's "may be incomplete" read as a prefix)."""
    if not block.signature:
        return None
    if block.signature_chunks:
        return fragments(block.signature, block.signature_chunks)[0]
    return interim_content(block.signature)


def announced(block: Block) -> str | None:
    """The ledger's hint: the ``encrypted_content`` a reasoning block's stream announced
    before its final one (see ``LedgerHints.announced``)."""
    return added_content(block) if isinstance(block, Reasoning) else None
