"""Case-language shapes only one wire has: the OpenAI Responses terminal-event
directives, Anthropic's server-tool blocks, Chat's interleaved call fragments and the
empty thinking fragment Claude streams before a signature.  Every other wire's realism
lint refuses them with one reason each."""

from __future__ import annotations

from conformance.model import Block, Reasoning, ScriptedResponse, ServerToolResult, ServerToolUse


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


def claude_stream_problems(block: Block) -> list[str]:
    """Why a wire that does not stream Claude's thinking never sends this block: the
    empty thinking fragment before a signature is Anthropic's (and OpenRouter's, relaying
    it from a Claude upstream)."""
    if isinstance(block, Reasoning) and block.empty_chunk_before_signature:
        return [
            "empty_chunk_before_signature; only Claude's thinking stream (Anthropic Messages, "
            "or OpenRouter relaying a Claude model) sends an empty fragment before the signature"
        ]
    return []


def empty_chunk_problems(block: Reasoning) -> list[str]:
    """Why a Claude thinking stream never sends this block's empty fragment: it comes
    right before a signature, so an unsigned or redacted episode has none."""
    if block.empty_chunk_before_signature and (block.signature is None or block.redacted):
        return [
            "empty_chunk_before_signature on an episode without a signature; the empty "
            "fragment comes right before the signature"
        ]
    return []
