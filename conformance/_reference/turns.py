"""What a received turn stores, and which of its calls run (wire-agnostic).

A truncated turn (``max_tokens``, ``no_finish``, ``cancelled``) runs nothing: its
complete calls are stored and answered with an error result, its incomplete ones
(raw-string arguments) are left out (rule 16, 33).  A turn whose finish claims
tool calls while a call's arguments do not parse was truncated too: routers relabel a
``length`` cut as ``tool_calls`` (rule 33).  A complete turn without structured calls
gets its XML-style calls recovered (rule 50).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance._reference.consolidate import TurnBlock
from conformance._reference.guards import Guards
from conformance._reference.xml_recovery import DIALECTS, Dialect, recover
from conformance._targets.api import CallToRun
from conformance.vocabulary import TRUNCATING_STOPS, Stop, ToolCall, ToolResult

NOT_EXECUTED = "not executed: the response was cut by the output limit"

#: Stops after which the model finished what it meant to say (XML recovery applies).
_COMPLETE_STOPS: frozenset[Stop] = frozenset({"end", "tool_calls"})


@dataclass(frozen=True)
class Settled:
    """The turn to store, the calls to run, and results the adapter answers itself."""

    blocks: tuple[TurnBlock, ...]
    calls: tuple[CallToRun, ...]
    answered: tuple[ToolResult, ...] = ()


def settle(
    blocks: Sequence[TurnBlock],
    stop: Stop,
    offered: Mapping[str, Mapping[str, Any]],
    guards: Guards,
    new_id: Callable[[], str],
    dialects: Sequence[Dialect] = DIALECTS,
) -> Settled:
    """Decide what a consolidated turn becomes.  ``offered``: tool name -> schema;
    ``dialects``: the XML markup forms recovered."""
    if stop in TRUNCATING_STOPS or (
        _has_cut_call(blocks) and guards.on("unparsable-arguments-truncate")
    ):
        return _truncated(blocks, guards)
    if stop in _COMPLETE_STOPS and not any(isinstance(b, ToolCall) for b in blocks):
        blocks = recover(blocks, offered, guards, new_id, dialects) or blocks
    return Settled(tuple(blocks), _runnable(blocks))


def _truncated(blocks: Sequence[TurnBlock], guards: Guards) -> Settled:
    # An unsigned episode the cut left dangling is stored like any other block: each
    # wire's request decides whether it can be sent (Anthropic cannot send unsigned
    # thinking, `omit-unsigned-thinking`; nothing may end a message on reasoning,
    # `omit-trailing-reasoning`), while a non-signing provider (DeepSeek, Gemini thought
    # summaries) keeps its reasoning.  Dropping it here would re-create seed §45's
    # accepted false positive, which a wire-aware adapter does not need (§46).
    kept = [b for b in blocks if not (isinstance(b, ToolCall) and not b.complete)]
    calls = _runnable(kept)
    if guards.on("truncated-calls-not-run"):
        answered = tuple(
            ToolResult(call_id=c.id, content=NOT_EXECUTED, is_error=True) for c in calls
        )
        return Settled(tuple(kept), (), answered)
    return Settled(tuple(kept), calls)


def _runnable(blocks: Sequence[TurnBlock]) -> tuple[CallToRun, ...]:
    """The complete calls of a turn, in order (an incomplete call is never run)."""
    calls: list[CallToRun] = []
    for block in blocks:
        if isinstance(block, ToolCall) and isinstance(block.arguments, dict):
            calls.append(CallToRun(block.id, block.name, block.arguments))
    return tuple(calls)


def _has_cut_call(blocks: Sequence[TurnBlock]) -> bool:
    return any(isinstance(b, ToolCall) and not b.complete for b in blocks)
