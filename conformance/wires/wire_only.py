"""Case-language shapes only one wire has: the OpenAI Responses terminal-event
directives, Anthropic's server-tool blocks and Chat's interleaved call fragments.  Every
other wire's realism lint refuses them with one reason each."""

from __future__ import annotations

from conformance.model import Block, ScriptedResponse, ServerToolResult, ServerToolUse


def responses_only_problems(response: ScriptedResponse) -> list[str]:
    """Why a wire other than OpenAI Responses never sends this response."""
    problems: list[str] = []
    if response.empty_final_output:
        problems.append(
            "empty_final_output; only an OpenAI Responses terminal event repeats the output"
        )
    if response.ids is not None:
        problems.append("served ids; only OpenAI Responses stores responses under their ids")
    if response.fault is not None and response.fault.response_failed:
        problems.append("a response_failed fault; only OpenAI Responses has response.failed")
    if response.fault is not None and response.fault.kind == "invalid-encrypted-content":
        problems.append(
            "an invalid-encrypted-content fault; only OpenAI Responses sends encrypted reasoning"
        )
    return problems


def anthropic_only_problems(block: Block) -> list[str]:
    """Why a wire other than Anthropic Messages never carries this block."""
    if isinstance(block, ServerToolUse | ServerToolResult):
        return [f"a {block.kind} block; only Anthropic Messages has server-tool blocks (rule 14)"]
    return []


def chat_only_problems(response: ScriptedResponse) -> list[str]:
    """Why a wire other than Chat Completions never sends this response."""
    if response.interleaved_calls:
        return ["interleaved_calls; only Chat Completions streams calls by index"]
    return []
