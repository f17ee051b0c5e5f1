"""langchain-anthropic's ``ChatAnthropic`` as a command target, black-box over HTTP.

langchain-core's chat models have no agent loop of their own (that lives in the separate
``langchain``/LangGraph packages), so this wrapper runs the tool loop langchain's
documentation shows: ``bind_tools``, ``stream`` the turn and add the chunks up into one
``AIMessage`` (``full = full + chunk``), append it, append a ``ToolMessage`` per tool
call, stream again. Thinking is ``ChatAnthropic(thinking={"type": "enabled",
"budget_tokens": N})`` (adaptive: ``{"type": "adaptive"}``); configured betas are
``ChatAnthropic(betas=[...])`` (capability ``betas``).

What it cannot do (no other capability declared): speak any wire but Anthropic Messages (exit
90 elsewhere), load a saved history in the case language, report its output's
completeness, recover XML tool calls, resume a paused turn. A turn cut by
``stop_reason == "max_tokens"`` ends the loop; its calls are answered with an error
``ToolMessage`` saying they did not run (langchain leaves a cut turn to the loop).
"""

from __future__ import annotations

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


def _load() -> Any:
    import langchain_anthropic

    return langchain_anthropic


def chat_model(document: CaseDocument) -> Any:
    from langchain_anthropic import ChatAnthropic

    options: dict[str, Any] = {}
    if document.thinking_mode == "manual":
        budget = document.budget_tokens or 1024
        options["thinking"] = {"type": "enabled", "budget_tokens": budget}
    elif document.thinking_mode == "adaptive":
        options["thinking"] = {"type": "adaptive"}
    if document.betas:
        options["betas"] = list(document.betas)
    model = ChatAnthropic(
        model=document.model,
        base_url=base_url(),
        api_key=API_KEY,
        max_tokens=document.max_tokens,
        max_retries=0,
        **options,
    )
    tools = [
        {"name": t.name, "description": t.description, "input_schema": t.parameters}
        for t in document.tools
    ]
    return model.bind_tools(tools) if tools else model


def converse(document: CaseDocument) -> None:
    from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage

    model = chat_model(document)
    messages: list[Any] = []
    if document.system is not None:
        messages.append(SystemMessage(document.system))
    for prompt in document.prompts:
        messages.append(HumanMessage(prompt))
        while True:
            full: Any = None
            for chunk in model.stream(messages):
                full = chunk if full is None else full + chunk
            if full is None:
                raise RuntimeError("the stream produced no chunk")
            messages.append(full)
            stop = (full.response_metadata or {}).get("stop_reason")
            calls = full.tool_calls + full.invalid_tool_calls
            if stop == "max_tokens":
                # A cut turn ends the loop; its calls are answered as not run, so the
                # history the next prompt extends still pairs every tool_use.
                messages += [
                    ToolMessage(CUT, tool_call_id=call["id"], status="error") for call in calls
                ]
                break
            if not calls:
                break
            for call in full.tool_calls:
                # A failed tool is a ToolMessage with status="error" (langchain sends it
                # as is_error), as langchain's docs show for tool errors.
                content, failed = document.result_of(call["id"], call["name"])
                status = "error" if failed else "success"
                messages.append(ToolMessage(content, tool_call_id=call["id"], status=status))


def refused(error: BaseException) -> bool:
    import anthropic

    return not isinstance(error, anthropic.APIStatusError)


def main() -> None:
    import_library(_load, "langchain-anthropic")
    document = load_case()
    if document.wire != "anthropic-messages":
        unsupported(document, "langchain-anthropic speaks Anthropic Messages only")
    run_guarded(lambda: converse(document), refused)


if __name__ == "__main__":
    serve_or_run(main)
