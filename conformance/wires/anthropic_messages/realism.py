"""The realism predicates: what in a case's scripted responses and saved history Anthropic
never sends, so a case built on it would test a provider that does not exist.  The case
linter's one walk (``conformance/cases/realism.py``) asks them about every response and
block, and about a case's options (``options_problems``)."""

from __future__ import annotations

import base64
import binascii

from conformance.model import (
    Block,
    Media,
    Options,
    Reasoning,
    ScriptedResponse,
    ServerToolResult,
    ServerToolUse,
    Text,
    ToolCall,
    ToolSpec,
)
from conformance.wires.anthropic_messages._models import INTERLEAVED_BETA
from conformance.wires.anthropic_messages._stops import TRUNCATED_STOPS
from conformance.wires.roles import BlockSpot
from conformance.wires.wire_only import (
    chat_only_problems,
    empty_chunk_problems,
    responses_only_problems,
)

#: How Anthropic's tool_use ids begin: client tools, then server tools.
_TOOL_USE_ID_PREFIXES = ("toolu_", "srvtoolu_")


def _base64(value: str) -> bool:
    """Whether ``value`` is padded standard base64, the form Anthropic mints."""
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return bool(value)


def response_problems(response: ScriptedResponse, dialect: str | None) -> list[str]:
    """Why Anthropic never sends this response as a whole."""
    if response.stop == "cancelled":
        return ["stop `cancelled`; Anthropic has no such stop_reason"]
    return responses_only_problems(response) + chat_only_problems(response)


def block_problems(block: Block, spot: BlockSpot) -> list[str]:
    """Why Anthropic never sends this block where it sits."""
    scripted, last = spot.scripted, spot.last
    truncated = spot.stop in TRUNCATED_STOPS
    problems: list[str] = []
    if isinstance(block, Text | ToolCall) and block.signature is not None:
        problems.append(f"a {block.kind} block carries a signature; Anthropic signs only thinking")
    if isinstance(block, Media) and scripted:
        problems.append("Anthropic responses carry no media blocks")
    if (
        isinstance(block, ToolCall)
        and isinstance(block.arguments, str)
        and scripted
        and not truncated
    ):
        problems.append(
            "a tool_use with unparsed arguments outside a truncated response (stop max_tokens "
            "or no_finish); a router mislabelling a cut call (rule 33) is a Chat-wire shape"
        )
    # A saved history may hold calls another provider minted; only what Anthropic serves
    # must carry its own prefix.
    if isinstance(block, ToolCall) and scripted and not block.id.startswith(_TOOL_USE_ID_PREFIXES):
        problems.append(
            f"a tool_use id {block.id!r}; Anthropic's tool_use ids begin `toolu_` "
            "(`srvtoolu_` for server tools)"
        )
    problems += _server_problems(block, spot)
    if not isinstance(block, Reasoning):
        return problems
    complete = block.signature is not None or block.redacted
    after_answer = any(isinstance(b, Text | ToolCall) for b in spot.before)
    if last and after_answer and (complete or not truncated):
        problems.append(
            "a complete thinking block after the response's text or calls, last; "
            "Anthropic ends a response with its answer or its calls, and one cut there "
            "is cut inside the thinking (unsigned, stop max_tokens or no_finish)"
        )
    for field, value in (("signature", block.signature), ("data", block.data)):
        if value is not None and not _base64(value):
            problems.append(
                f"a thinking {field} that is not standard base64; Anthropic mints base64 "
                "(a cut or hand-typed value is refused as an invalid signature)"
            )
    if block.id is not None or block.summary is not None:
        problems.append("reasoning with an item id or a summary (OpenAI Responses shapes)")
    if block.redacted:
        if not block.data:
            problems.append("a redacted_thinking block without data")
        if block.text or block.signature is not None:
            problems.append(
                "a redacted_thinking block carries text or a signature; it has only data"
            )
        return problems
    if scripted and block.signature_chunks is not None and len(block.signature_chunks) > 1:
        problems.append(
            "a signature over several signature_delta events; Anthropic documents one per "
            "thinking block"
        )
    if scripted:
        problems += empty_chunk_problems(block)
    if scripted and block.signature is None and not (truncated and last):
        problems.append(
            "an unsigned thinking block; Anthropic signs every one unless the response is cut "
            "inside it (its last block, stop max_tokens or no_finish)"
        )
    return problems


def _server_problems(block: Block, spot: BlockSpot) -> list[str]:
    """Server-tool blocks (rule 14): a use has a ``srvtoolu_`` id, and a result follows its
    use in the same message, with a ``*_tool_result`` type."""
    if isinstance(block, ServerToolUse) and not block.id.startswith("srvtoolu_"):
        return [f"a server_tool_use id {block.id!r}; Anthropic's begin `srvtoolu_`"]
    if not isinstance(block, ServerToolResult):
        return []
    problems: list[str] = []
    if not block.type.endswith("_tool_result") or block.type in ("tool_result", "mcp_tool_result"):
        problems.append(
            f"a server tool result of type {block.type!r}; the family is `*_tool_result`"
        )
    uses = {b.id for b in spot.before if isinstance(b, ServerToolUse)}
    if block.call_id not in uses:
        problems.append(
            f"a {block.type} for {block.call_id!r} with no server_tool_use before it in the "
            "same message (rule 14)"
        )
    return problems


def options_problems(options: Options, tools: tuple[ToolSpec, ...]) -> list[str]:
    """A manual thinking budget not below ``max_tokens``, which Anthropic refuses unless
    the interleaved-thinking beta is sent with tools: an authoring mistake the linter
    catches before a client is blamed for the 400."""
    budget = options.thinking.budget_tokens
    if options.thinking.mode != "manual" or budget is None or budget < options.max_tokens:
        return []
    if tools and INTERLEAVED_BETA in options.betas:
        return []
    return [
        f"thinking budget_tokens {budget} is not below max_tokens {options.max_tokens}: "
        "Anthropic answers 400 (rule 12) unless the request sends the "
        f"`{INTERLEAVED_BETA}` beta with tools; lower the budget, or offer tools and configure "
        "the beta in `options.betas`"
    ]
