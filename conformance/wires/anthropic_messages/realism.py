"""The lint of case shapes: what in a case's scripted responses and saved history
Anthropic never sends, so a case built on it would test a provider that does not exist."""

from __future__ import annotations

from conformance.cases.schema import Case
from conformance.model import Block, Media, Reasoning, Text, ToolCall
from conformance.wires.anthropic_messages.stops import TRUNCATED_STOPS


def _block_problems(block: Block, *, scripted: bool, truncated: bool, last: bool) -> list[str]:
    """Why Anthropic never sends this block (``scripted``: in a served response)."""
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
    if not isinstance(block, Reasoning):
        return problems
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
    if scripted and block.signature is None and not (truncated and last):
        problems.append(
            "an unsigned thinking block; Anthropic signs every one unless the response is cut "
            "inside it (its last block, stop max_tokens or no_finish)"
        )
    return problems


def case_problems(case: Case) -> list[str]:
    """Every unrealistic shape in ``case``, each prefixed with where it sits."""
    problems: list[str] = []
    for t, turn in enumerate(case.given.turns):
        for r, response in enumerate(turn.responses):
            where = f"turns.{t}.responses.{r}"
            if response.stop == "cancelled":
                problems.append(f"{where}: stop `cancelled`; Anthropic has no such stop_reason")
            truncated = response.stop in TRUNCATED_STOPS
            for b, block in enumerate(response.blocks):
                last = b == len(response.blocks) - 1
                problems += [
                    f"{where}.blocks.{b}: {p}"
                    for p in _block_problems(block, scripted=True, truncated=truncated, last=last)
                ]
    for m, message in enumerate(case.given.history):
        if message.role != "assistant":
            continue
        for b, saved in enumerate(message.blocks):
            if getattr(saved, "origin", None) is None:
                problems += [
                    f"history.{m}.blocks.{b}: {p}"
                    for p in _block_problems(saved, scripted=False, truncated=False, last=False)
                ]
    return problems
