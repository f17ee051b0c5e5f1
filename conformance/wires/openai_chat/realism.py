"""The realism predicates: the shapes a case scripts or saves that this wire, in a given
dialect, never produces (stops without a ``finish_reason``, signed text, reasoning the
dialect cannot carry)."""

from __future__ import annotations

from conformance.model import Block, Media, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires.openai_chat._dialects import (
    GEMINI,
    OLLAMA,
    OPENROUTER,
    REASONING_CONTENT,
    upstream,
)
from conformance.wires.openai_chat._stops import RAW_ARGUMENT_STOPS, TRUNCATED_STOPS
from conformance.wires.roles import BlockSpot
from conformance.wires.thought_signatures import standard_base64
from conformance.wires.wire_only import (
    anthropic_only_problems,
    claude_stream_problems,
    empty_chunk_problems,
    responses_only_problems,
)


def response_problems(response: ScriptedResponse, dialect: str | None) -> list[str]:
    """Why this wire never sends this response as a whole."""
    if response.stop in ("pause", "cancelled"):
        return [f"stop `{response.stop}`; Chat Completions has no such finish_reason"]
    if response.noise and dialect in (GEMINI, OLLAMA):
        return [f"noise; the {dialect} endpoint streams only completion chunks"]
    problems = responses_only_problems(response)
    calls = [b for b in response.blocks if isinstance(b, ToolCall)]
    if response.interleaved_calls and (len(calls) < 2 or dialect in (GEMINI, OLLAMA)):
        problems.append(
            "interleaved_calls needs two or more calls streamed as fragments "
            "(the gemini and ollama endpoints send each call whole)"
        )
    return problems


def block_problems(block: Block, spot: BlockSpot) -> list[str]:
    """Why this wire (in the spot's dialect) never sends this block where it sits."""
    problems = _shape_problems(block, spot) + anthropic_only_problems(block)
    if (
        spot.dialect in REASONING_CONTENT
        and spot.scripted
        and isinstance(block, Reasoning)
        and spot.index > 0
    ):
        problems.append(
            "DeepSeek and Kimi send at most one reasoning episode, first in the response"
        )
    if isinstance(block, ToolCall) and spot.dialect in (GEMINI, OLLAMA):
        problems += _whole_call_problems(block, spot)
    return problems


def _whole_call_problems(block: ToolCall, spot: BlockSpot) -> list[str]:
    """Gemini's and Ollama's calls: parsed by the server, sent whole, and on Gemini
    signed on the first call of a response only, in the base64 it mints (rule 41, 47)."""
    problems: list[str] = []
    if spot.scripted and (block.chunks is not None or isinstance(block.arguments, str)):
        problems.append(
            f"argument fragments or unparsed arguments; the {spot.dialect} endpoint sends "
            "each call whole, its arguments parsed"
        )
    if block.signature is None:
        return problems
    if not standard_base64(block.signature):
        problems.append("a thought_signature that is not the standard base64 Gemini mints")
    if spot.scripted and any(isinstance(b, ToolCall) for b in spot.before):
        problems.append(
            "a signature on a parallel call other than the first; Gemini signs only the "
            "first call of a response (rule 41)"
        )
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
    if isinstance(block, Text) and block.signature is not None:
        problems.append("a text block carries a signature; Chat Completions signs no text")
    if isinstance(block, ToolCall) and block.signature is not None and dialect != GEMINI:
        problems.append(
            "a tool_call carries a signature; only Gemini's endpoint signs calls "
            "(extra_content, rule 47)"
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
    if scripted and (dialect != OPENROUTER or upstream(model) != "anthropic"):
        problems += claude_stream_problems(block)
    elif scripted:
        problems += empty_chunk_problems(block)
    if block.id is not None:
        problems.append("reasoning with an item id (an OpenAI Responses shape)")
    if dialect in REASONING_CONTENT:
        if block.signature is not None or block.redacted or block.data or block.summary:
            problems.append(
                "reasoning_content is plain text: no signature, redacted data or summary"
            )
        elif scripted and not block.text:
            problems.append("an empty reasoning episode; reasoning_content is streamed text")
        return problems
    if dialect != OPENROUTER:
        problems.append(
            f"{'the ' + dialect + ' endpoint' if dialect else 'OpenAI Chat Completions'} "
            "returns no reasoning here (use the deepseek, kimi or openrouter dialect)"
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
