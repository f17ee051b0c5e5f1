"""LiteLLM as a command target, black-box over HTTP.

LiteLLM has no agent loop of its own, so this wrapper runs the tool loop its
documentation shows: call, append the assistant ``message`` it returned (thinking blocks,
``reasoning_content`` and provider fields included, as LiteLLM built them), append one
``tool`` message per call, call again.

* ``anthropic-messages``     ``litellm.completion(model="anthropic/<model>")``
* ``gemini``                 ``litellm.completion(model="gemini/<model>")``
* ``openai-chat``            ``openai/<model>``; ``:deepseek`` ``deepseek/<model>``;
  ``:openrouter`` ``openrouter/<model>``
* ``openai-responses``       the Responses bridge, ``litellm.responses(model="openai/<model>")``,
  continuing with the returned ``output`` items

Chat calls stream (``stream=True``) and are assembled with ``litellm.stream_chunk_builder``;
Responses calls do not stream. ``litellm.responses`` keeps no history (it passes the
Responses API through), so this loop does what OpenAI's guide asks of a caller that
manages context itself: with ``store=False`` it asks for
``include=["reasoning.encrypted_content"]``, and from an incomplete response it drops a
reasoning item the limit cut before the item it produced (rule 26: it cannot go back
alone). Thinking is ``thinking={"type": "enabled", "budget_tokens":
N}`` (adaptive: ``{"type": "adaptive"}``), LiteLLM's cross-provider spelling. A turn cut
by ``finish_reason == "length"`` (Responses: ``status == "incomplete"``) ends the loop;
its calls are answered with a tool message saying they did not run.

A Gemini call's ``thoughtSignature`` travels inside the tool call id LiteLLM reports
(``<id>__thought__<signature>``, its way of making OpenAI-shaped clients send the
signature back; LiteLLM strips the suffix again when it builds the request). The case's
per-call results are keyed by the model's call id, so the lookup uses the part before the
separator; the ``tool`` message keeps LiteLLM's full id, as a caller's loop does.

Configured Anthropic betas are sent as LiteLLM documents it,
``extra_headers={"anthropic-beta": ...}`` (capability ``betas``). What it cannot do (no
other capability declared): load a saved history in the case language, report its
output's completeness, recover XML tool calls, resume a paused turn.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from harness.targets.command_io import (
    CaseDocument,
    base_url,
    import_library,
    load_case,
    run_guarded,
    serve_or_run,
    unsupported,
)

API_KEY = "sk-conformance"
CUT = "not run: the response was cut at the output limit"
STATELESS = "reasoning.encrypted_content"
#: LiteLLM's separator between a Gemini call id and the signature it carries in the id.
SIGNATURE_IN_ID = "__thought__"


def _load() -> Any:
    import litellm

    return litellm


def route(document: CaseDocument) -> tuple[str, str]:
    """LiteLLM's model string and the base URL it is given for the column."""
    root = base_url()
    if document.wire == "anthropic-messages":
        return f"anthropic/{document.model}", root
    if document.wire == "gemini":
        return f"gemini/{document.model}", f"{root}/v1beta"
    if document.wire == "openai-responses":
        return f"openai/{document.model}", f"{root}/v1"
    if document.wire == "openai-chat":
        prefix = {None: "openai", "deepseek": "deepseek", "openrouter": "openrouter"}
        if document.dialect in prefix:
            return f"{prefix[document.dialect]}/{document.model}", f"{root}/v1"
    unsupported(document, "no LiteLLM route for this column in this wrapper")


def thinking_for(document: CaseDocument) -> dict[str, Any]:
    if document.thinking_mode == "manual":
        return {"thinking": {"type": "enabled", "budget_tokens": document.budget_tokens or 1024}}
    if document.thinking_mode == "adaptive":
        return {"thinking": {"type": "adaptive"}}
    return {}


def chat_tools(document: CaseDocument) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in document.tools
    ]


def execute(document: CaseDocument, call_id: str, name: str, arguments: str | None) -> str:
    """Run a call as a tool executor does: arguments that are not a JSON object are an
    error answer, and the tool does not run. A tool message has no error flag on these
    routes, so a failed tool's output travels as its text."""
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError as error:
        return f"not run: the arguments are not valid JSON ({error})"
    if not isinstance(parsed, dict):
        return "not run: the arguments are not a JSON object"
    return document.result_of(model_call_id(call_id), name)[0]


def model_call_id(call_id: str) -> str:
    """The model's own call id: LiteLLM appends a Gemini signature to the id it reports."""
    return call_id.split(SIGNATURE_IN_ID, 1)[0]


def converse_chat(litellm: Any, document: CaseDocument) -> None:
    model, api_base = route(document)
    messages: list[Any] = []
    if document.system is not None:
        messages.append({"role": "system", "content": document.system})
    extra: dict[str, Any] = {"tools": chat_tools(document)} if document.tools else {}
    extra.update(thinking_for(document))
    if document.betas and document.wire == "anthropic-messages":
        extra["extra_headers"] = {"anthropic-beta": ",".join(document.betas)}
    for prompt in document.prompts:
        messages.append({"role": "user", "content": prompt})
        while True:
            chunks = list(
                litellm.completion(
                    model=model,
                    messages=messages,
                    api_base=api_base,
                    api_key=API_KEY,
                    max_tokens=document.max_tokens,
                    stream=True,
                    **extra,
                )
            )
            response = litellm.stream_chunk_builder(chunks, messages=messages)
            choice = response.choices[0]
            message = choice.message
            messages.append(message)
            calls = message.tool_calls or []
            cut = choice.finish_reason == "length"
            for call in calls:
                answer = (
                    CUT
                    if cut
                    else execute(document, call.id, call.function.name, call.function.arguments)
                )
                messages.append({"role": "tool", "tool_call_id": call.id, "content": answer})
            if not calls or cut:
                break


def replayable(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items of an incomplete response that can go back: a reasoning item the limit
    cut before the item it produced is dropped (the provider refuses it alone)."""
    kept: list[dict[str, Any]] = []
    for index, item in enumerate(output):
        following = output[index + 1] if index + 1 < len(output) else None
        if item.get("type") == "reasoning" and (
            following is None or following.get("type") == "reasoning"
        ):
            continue
        kept.append(item)
    return kept


def converse_responses(litellm: Any, document: CaseDocument) -> None:
    model, api_base = route(document)
    tools = [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.parameters,
        }
        for t in document.tools
    ]
    extra: dict[str, Any] = {"tools": tools} if tools else {}
    if document.thinking_mode != "off":
        extra["reasoning"] = {"effort": "medium"}
    if document.store is not None:
        extra["store"] = document.store
    include = list(document.include or ())
    if document.store is False and "reasoning" in extra and STATELESS not in include:
        include.append(STATELESS)  # what OpenAI's docs ask of a stateless loop
    if include:
        extra["include"] = include
    if document.system is not None:
        extra["instructions"] = document.system
    items: list[Any] = []
    for prompt in document.prompts:
        items.append({"role": "user", "content": prompt})
        while True:
            response = litellm.responses(
                model=model,
                input=items,
                api_base=api_base,
                api_key=API_KEY,
                max_output_tokens=document.max_tokens,
                **extra,
            )
            output = [item.model_dump(exclude_none=True) for item in response.output]
            cut = getattr(response, "status", None) == "incomplete"
            items.extend(replayable(output) if cut else output)
            calls = [item for item in output if item.get("type") == "function_call"]
            for call in calls:
                answer = (
                    CUT
                    if cut
                    else execute(document, call["call_id"], call["name"], call.get("arguments"))
                )
                items.append(
                    {"type": "function_call_output", "call_id": call["call_id"], "output": answer}
                )
            if not calls or cut:
                break


def refused(error: BaseException) -> bool:
    """LiteLLM maps every provider HTTP error to an ``APIError`` subclass with a status;
    anything else it raised while reading a 200 answer is a refused response."""
    return getattr(error, "status_code", None) is None and not isinstance(error, KeyError)


def main() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    litellm = import_library(_load, "litellm")
    litellm.disable_aiohttp_transport = True
    litellm.telemetry = False
    document = load_case()
    if document.wire == "openai-responses":
        run_guarded(lambda: converse_responses(litellm, document), refused)
    run_guarded(lambda: converse_chat(litellm, document), refused)


if __name__ == "__main__":
    serve_or_run(main)
