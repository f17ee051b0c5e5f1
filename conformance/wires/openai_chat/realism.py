"""The realism predicates: the shapes a case scripts or saves that this wire, in a given
dialect, never produces (stops without a ``finish_reason``, signed text, reasoning the
dialect cannot carry)."""

from __future__ import annotations

from conformance.model import Block, Media, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires.openai_chat._dialects import DEEPSEEK, OPENROUTER, upstream
from conformance.wires.openai_chat._stops import RAW_ARGUMENT_STOPS, TRUNCATED_STOPS
from conformance.wires.roles import BlockSpot


def response_problems(response: ScriptedResponse, dialect: str | None) -> list[str]:
    """Why this wire never sends this response as a whole."""
    if response.stop in ("pause", "cancelled"):
        return [f"stop `{response.stop}`; Chat Completions has no such finish_reason"]
    return []


def block_problems(block: Block, spot: BlockSpot) -> list[str]:
    """Why this wire (in the spot's dialect) never sends this block where it sits."""
    problems = _shape_problems(block, spot)
    if (
        spot.dialect == DEEPSEEK
        and spot.scripted
        and isinstance(block, Reasoning)
        and spot.index > 0
    ):
        problems.append("DeepSeek sends at most one reasoning episode, first in the response")
    return problems


def _shape_problems(block: Block, spot: BlockSpot) -> list[str]:
    """Why this wire (in this dialect) never sends this block (``scripted``: in a served
    response that stopped with ``stop``)."""
    dialect, model, scripted, stop, last = (
        spot.dialect,
        spot.model,
        spot.scripted,
        spot.stop,
        spot.last,
    )
    problems: list[str] = []
    if isinstance(block, Text | ToolCall) and block.signature is not None:
        problems.append(
            f"a {block.kind} block carries a signature; Chat Completions signs no text or call"
        )
    if isinstance(block, Media) and scripted:
        problems.append("Chat Completions responses carry no media blocks")
    raw_arguments = isinstance(block, ToolCall) and isinstance(block.arguments, str)
    if raw_arguments and scripted and stop not in RAW_ARGUMENT_STOPS:
        problems.append(
            "a tool call with unparsed arguments outside a cut response (stop max_tokens, "
            "no_finish, or tool_calls as a router reports a cut call, rule 33)"
        )
    if not isinstance(block, Reasoning):
        return problems
    if block.id is not None:
        problems.append("reasoning with an item id (an OpenAI Responses shape)")
    if dialect == DEEPSEEK:
        if block.signature is not None or block.redacted or block.data or block.summary:
            problems.append(
                "DeepSeek's reasoning_content is plain text: no signature, redacted data or summary"
            )
        elif scripted and not block.text:
            problems.append("an empty reasoning episode; DeepSeek streams reasoning_content text")
        return problems
    if dialect != OPENROUTER:
        problems.append(
            "OpenAI Chat Completions returns no reasoning (use the deepseek or openrouter dialect)"
        )
        return problems
    if block.redacted:
        if not block.data:
            problems.append("a reasoning.encrypted detail without data")
        if block.text or block.signature is not None or block.summary:
            problems.append(
                "a reasoning.encrypted detail carries text or a signature; it has only data"
            )
        return problems
    if scripted and block.signature_chunks is not None and len(block.signature_chunks) > 1:
        problems.append(
            "a signature over several details; OpenRouter sends it in one final "
            "signature-only reasoning.text detail"
        )
    unsigned = block.signature is None and block.summary is None
    cut = stop in TRUNCATED_STOPS and last
    if scripted and unsigned and upstream(model) == "anthropic" and not cut:
        problems.append(
            "an unsigned reasoning episode; OpenRouter relays Anthropic's signature on every "
            "thinking block unless the response is cut inside it (its last block, stop "
            "max_tokens or no_finish)"
        )
    return problems
