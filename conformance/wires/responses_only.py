"""Case-language directives only the OpenAI Responses stream has a shape for: every other
wire's realism lint refuses them with this one reason."""

from __future__ import annotations

from conformance.model import ScriptedResponse


def responses_only_problems(response: ScriptedResponse) -> list[str]:
    """Why a wire other than OpenAI Responses never sends this response."""
    problems: list[str] = []
    if response.empty_final_output:
        problems.append(
            "empty_final_output; only an OpenAI Responses terminal event repeats the output"
        )
    if response.fault is not None and response.fault.response_failed:
        problems.append("a response_failed fault; only OpenAI Responses has response.failed")
    return problems
