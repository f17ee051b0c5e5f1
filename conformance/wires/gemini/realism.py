"""The realism predicates: shapes a case scripts or saves that Gemini never sends (redacted
reasoning, Responses-style reasoning items, argument fragments, stops it has no
finishReason for, a signature that is not the base64 it mints)."""

from __future__ import annotations

from conformance.model import Block, Reasoning, ScriptedResponse, ToolCall
from conformance.wires.roles import BlockSpot
from conformance.wires.thought_signatures import standard_base64
from conformance.wires.wire_only import (
    anthropic_only_problems,
    chat_only_problems,
    claude_stream_problems,
    responses_only_problems,
)


def response_problems(response: ScriptedResponse, dialect: str | None) -> list[str]:
    """Why Gemini never sends this response as a whole."""
    problems: list[str] = []
    if response.stop in ("pause", "cancelled"):
        problems.append(f"stop `{response.stop}`; Gemini has no such finishReason")
    if response.noise:
        problems.append("noise events; a Gemini stream carries only response chunks")
    return problems + responses_only_problems(response) + chat_only_problems(response)


def block_problems(block: Block, spot: BlockSpot) -> list[str]:
    """Why Gemini never sends this block where it sits."""
    scripted = spot.scripted
    problems: list[str] = anthropic_only_problems(block)
    if isinstance(block, Reasoning):
        if block.redacted or block.data is not None:
            problems.append(
                "redacted reasoning (an encrypted blob); Gemini sends thought parts and "
                "thoughtSignature only"
            )
        if block.id is not None or block.summary is not None:
            problems.append("reasoning with an item id or a summary (OpenAI Responses shapes)")
        if scripted:
            problems += claude_stream_problems(block)
        if scripted and block.signature_chunks is not None:
            problems.append(
                "signature_chunks; Gemini sends each thoughtSignature whole on one part"
            )
    if isinstance(block, ToolCall) and scripted:
        if isinstance(block.arguments, str):
            problems.append(
                "a functionCall with unparsed arguments; Gemini sends complete args objects "
                "(a call cut by MAX_TOKENS is dropped, never sent)"
            )
        if block.chunks is not None:
            problems.append("argument chunks; Gemini has no argument fragments, args come whole")
    signature = getattr(block, "signature", None)
    if isinstance(signature, str) and not standard_base64(signature):
        problems.append(
            "a thoughtSignature that is not canonical standard base64; Gemini mints base64 "
            "and clients such as google-genai decode it as bytes"
        )
    earlier_call = any(isinstance(b, ToolCall) for b in spot.before)
    if isinstance(block, ToolCall) and earlier_call and block.signature is not None:
        problems.append(
            "a signature on a parallel call other than the first; "
            "Gemini signs only the first functionCall of a response (rule 41)"
        )
    return problems
