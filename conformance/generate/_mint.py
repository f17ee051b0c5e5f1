"""Minting: every opaque payload and call id of a drawn conversation made unique and
shaped as the wire mints it.

Payloads become standard base64 of a serial number and the drawn bytes (the lint
refuses a payload minted twice); call ids take the first prefix the wire's realism
predicates accept, then the serial number.  Minting runs before the realism pass, so
what the predicates judge is what the case will hold.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Iterator

from conformance.generate.blocks import PENDING_ID
from conformance.vocabulary import ContentBlock, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires.roles import BlockSpot, Realism

#: Call-id prefixes real providers use, tried in order (Anthropic's, OpenAI's, none).
CALL_ID_PREFIXES = ("toolu_01", "call_", "fc_", "")


def call_id_prefix(realism: Realism, dialect: str | None, model: str) -> str:
    """The first of ``CALL_ID_PREFIXES`` the wire's predicates accept on a served call."""
    for prefix in CALL_ID_PREFIXES:
        probe = ToolCall(id=f"{prefix}probe", name="probe")
        spot = BlockSpot(True, 0, (probe,), "tool_calls", dialect, model)
        if not realism.block(probe, spot):
            return prefix
    return CALL_ID_PREFIXES[-1]


class Mint:
    """Hands out serial numbers for one conversation."""

    def __init__(self, call_prefix: str) -> None:
        self._serials: Iterator[int] = itertools.count(1)
        self._prefix = call_prefix

    def payload(self, placeholder: str) -> str:
        raw = base64.b64decode(placeholder)
        return base64.b64encode(f"w{next(self._serials):03d}".encode() + raw).decode("ascii")

    def block(self, block: ContentBlock) -> ContentBlock:
        update: dict[str, object] = {}
        if isinstance(block, Reasoning | Text | ToolCall) and block.signature is not None:
            update["signature"] = self.payload(block.signature)
        if isinstance(block, Reasoning) and block.data is not None:
            update["data"] = self.payload(block.data)
        if isinstance(block, Reasoning) and block.id is not None:
            update["id"] = f"rs_{next(self._serials):04d}"
        if isinstance(block, ToolCall) and block.id == PENDING_ID:
            update["id"] = f"{self._prefix}{next(self._serials):04d}"
        return block.model_copy(update=update) if update else block

    def response(self, response: ScriptedResponse) -> ScriptedResponse:
        blocks = tuple(self.block(b) for b in response.blocks)
        return response.model_copy(update={"blocks": blocks})
