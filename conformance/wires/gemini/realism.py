"""The realism lint: shapes a case scripts or saves that Gemini never sends (redacted
reasoning, Responses-style reasoning items, argument fragments, stops it has no
finishReason for, a signature that is not the base64 it mints)."""

from __future__ import annotations

from conformance.cases.schema import Case
from conformance.model import Block, Reasoning, ScriptedResponse, ToolCall
from conformance.wires.gemini.signatures import standard_base64


def case_problems(case: Case) -> list[str]:
    """Every problem of the case's scripted responses and saved assistant history."""
    problems: list[str] = []
    for t, turn in enumerate(case.given.turns):
        for r, response in enumerate(turn.responses):
            problems += _response_problems(response, f"turns.{t}.responses.{r}")
    for m, message in enumerate(case.given.history):
        if message.role != "assistant":
            continue
        for b, saved in enumerate(message.blocks):
            if getattr(saved, "origin", None) is None:
                problems += [
                    f"history.{m}.blocks.{b}: {p}" for p in _block_problems(saved, scripted=False)
                ]
    return problems


def _block_problems(block: Block, *, scripted: bool) -> list[str]:
    """Why Gemini never sends this block (``scripted``: in a served response)."""
    problems: list[str] = []
    if isinstance(block, Reasoning):
        if block.redacted or block.data is not None:
            problems.append(
                "redacted reasoning (an encrypted blob); Gemini sends thought parts and "
                "thoughtSignature only"
            )
        if block.id is not None or block.summary is not None:
            problems.append("reasoning with an item id or a summary (OpenAI Responses shapes)")
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
    return problems


def _response_problems(response: ScriptedResponse, where: str) -> list[str]:
    problems: list[str] = []
    if response.stop in ("pause", "cancelled"):
        problems.append(f"{where}: stop `{response.stop}`; Gemini has no such finishReason")
    if response.noise:
        problems.append(f"{where}: noise events; a Gemini stream carries only response chunks")
    seen_call = False
    for b, block in enumerate(response.blocks):
        problems += [f"{where}.blocks.{b}: {p}" for p in _block_problems(block, scripted=True)]
        if isinstance(block, ToolCall):
            if seen_call and block.signature is not None:
                problems.append(
                    f"{where}.blocks.{b}: a signature on a parallel call other than the first; "
                    "Gemini signs only the first functionCall of a response (rule 41)"
                )
            seen_call = True
    return problems
