"""The realism predicates: case shapes OpenAI's Responses API never produces.

A scripted response is held to what OpenAI serves (no paused turn, no pings, every
reasoning item encrypted and followed by what it produced unless the response is cut);
a saved history block only to the shapes the wire can carry at all.
"""

from __future__ import annotations

from conformance.model import Block, Media, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires.roles import BlockSpot
from conformance.wires.wire_only import (
    anthropic_only_problems,
    chat_only_problems,
    claude_stream_problems,
)

#: Stops under which a response may end inside an item (an unfinished call, say).
_TRUNCATED_STOPS = frozenset({"max_tokens", "no_finish"})


def block_problems(block: Block, spot: BlockSpot) -> list[str]:
    """Why OpenAI never sends this block where it sits."""
    scripted, last, followed_by = spot.scripted, spot.last, spot.after
    truncated = spot.stop in _TRUNCATED_STOPS
    problems: list[str] = anthropic_only_problems(block)
    if isinstance(block, Text | ToolCall) and block.signature is not None:
        problems.append(
            f"a {block.kind} block carries a signature; Responses signs only reasoning "
            "(encrypted_content)"
        )
    if isinstance(block, Media) and scripted:
        problems.append("Responses output items carry no media")
    unparsed = isinstance(block, ToolCall) and isinstance(block.arguments, str)
    if unparsed and scripted and not (truncated and last):
        problems.append(
            "a function_call with unparsed arguments that is not the last item of a "
            "truncated response (stop max_tokens or no_finish); only an unfinished call "
            "has them"
        )
    if not isinstance(block, Reasoning):
        return problems
    if block.redacted:
        problems.append("a redacted reasoning block; Responses has no redacted_thinking shape")
    if block.text:
        problems.append("reasoning with text; Responses shows no raw reasoning text (use summary)")
    if block.id is not None and not block.id.startswith("rs_"):
        problems.append(f"a reasoning id {block.id!r}; OpenAI's reasoning item ids begin `rs_`")
    if not scripted:
        return problems
    problems += claude_stream_problems(block)
    if block.signature_chunks is not None and len(block.signature_chunks) > 2:
        problems.append(
            "encrypted_content in more than 2 pieces; it arrives whole in output_item.done "
            "(output_item.added may carry an incomplete first piece)"
        )
    if block.signature is None and not block.redacted and not (truncated and last):
        problems.append(
            "a reasoning item without encrypted_content (signature); OpenAI encrypts every "
            "reasoning item unless the response is cut inside it"
        )
    if followed_by is None and not truncated:
        problems.append(
            "a reasoning item not followed by the item it produced; only a truncated response "
            "(stop max_tokens or no_finish) ends on reasoning"
        )
    return problems


def response_problems(response: ScriptedResponse, dialect: str | None) -> list[str]:
    """Why OpenAI never sends this response as a whole."""
    problems: list[str] = []
    if response.stop == "pause":
        problems.append("stop `pause`; Responses has no paused turn")
    if response.stop == "cancelled":
        problems.append("stop `cancelled`; a Responses stream ends completed, incomplete or failed")
    if "ping" in response.noise:
        problems.append("noise `ping`; Responses streams send no ping events")
    fault = response.fault
    if fault is not None and fault.kind == "invalid-encrypted-content" and fault.mid_stream:
        problems.append("invalid_encrypted_content answers the request (a 400), not mid-stream")
    problems += chat_only_problems(response)
    if response.empty_final_output and not response.blocks:
        problems.append("empty_final_output on a response that streams no item")
    return problems
