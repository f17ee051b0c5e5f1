"""What the toy server never sends: anything but reasoning (a token) and text, or a turn
that does not end."""

from __future__ import annotations

from conformance.model import Block, Reasoning, ScriptedResponse, Text
from conformance.wires.roles import BlockSpot


def response_problems(response: ScriptedResponse, dialect: str | None) -> list[str]:
    if response.fault is None and response.stop != "end":
        return [f"stop `{response.stop}`; the toy server's turns always end"]
    return []


def block_problems(block: Block, spot: BlockSpot) -> list[str]:
    if isinstance(block, Reasoning):
        return [] if block.signature and not block.text else ["reasoning other than a token"]
    if isinstance(block, Text):
        return []
    return [f"a {block.kind} block; the toy server sends only a token and text"]
