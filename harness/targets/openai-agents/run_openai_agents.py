"""openai-agents (the OpenAI Agents SDK) as a command target: its own ``Runner`` loop,
streamed, black-box over HTTP.

The model per column, as the SDK's documentation shows:

* ``openai-responses``  ``OpenAIResponsesModel`` on an ``AsyncOpenAI`` client
  (``store`` and ``include`` from the case, through ``ModelSettings``; with store=false
  and thinking it also asks for ``reasoning.encrypted_content``, which the SDK leaves to
  the caller)
* ``openai-chat``       ``OpenAIChatCompletionsModel`` on an ``AsyncOpenAI`` client
* ``anthropic-messages`` ``LitellmModel("anthropic/<model>")`` (the SDK's LiteLLM
  extension, its documented way to reach Anthropic)
* ``gemini``            ``LitellmModel("gemini/<model>")``

Thinking is asked for with ``ModelSettings(reasoning=Reasoning(effort="medium"))``, the
switch the SDK reads to keep reasoning for replay; it cannot pass the case's exact
``budget_tokens``. Each prompt is one ``Runner.run_streamed`` continuing
``result.to_input_list()``. Tracing is off and the default key is a dummy.

Configured Anthropic betas go in ``ModelSettings(extra_headers=...)`` (capability
``betas``). What it cannot do (no other capability declared): load a saved history in
the case language, report whether its output is complete and why it stopped, recover XML
tool calls from text, resume a paused turn; the DeepSeek and OpenRouter dialects (no
documented model class for them in the SDK; exit 90).
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
    never,
    run_async,
    run_guarded,
    serve_or_run,
    unsupported,
)

API_KEY = "sk-conformance"


def _load() -> Any:
    import agents

    return agents


def model_for(document: CaseDocument) -> Any:
    root = base_url()
    if document.wire in ("openai-responses", "openai-chat") and document.dialect is None:
        from agents import OpenAIChatCompletionsModel, OpenAIResponsesModel
        from openai import AsyncOpenAI

        client = AsyncOpenAI(api_key=API_KEY, base_url=f"{root}/v1")
        if document.wire == "openai-responses":
            return OpenAIResponsesModel(document.model, openai_client=client)
        return OpenAIChatCompletionsModel(document.model, openai_client=client)
    if document.wire in ("anthropic-messages", "gemini"):
        from agents.extensions.models.litellm_model import LitellmModel

        if document.wire == "anthropic-messages":
            return LitellmModel(f"anthropic/{document.model}", base_url=root, api_key=API_KEY)
        # LiteLLM appends ``/models/<model>:...`` to a Gemini base URL: the version is ours.
        return LitellmModel(f"gemini/{document.model}", base_url=f"{root}/v1beta", api_key=API_KEY)
    unsupported(document, "openai-agents has no documented model class for this dialect")


def settings_for(document: CaseDocument) -> Any:
    from agents import ModelSettings
    from openai.types.shared import Reasoning

    values: dict[str, Any] = {"max_tokens": document.max_tokens}
    if document.thinking_mode != "off":
        values["reasoning"] = Reasoning(effort="medium")
    if document.betas and document.wire == "anthropic-messages":
        values["extra_headers"] = {"anthropic-beta": ",".join(document.betas)}
    if document.wire == "openai-responses":
        if document.store is not None:
            values["store"] = document.store
        include = list(document.include or [])
        if document.store is False and document.thinking_mode != "off":
            # A stateless run asks for the encrypted reasoning it must replay, as OpenAI's
            # reasoning guide says for store=false (the SDK leaves include to the caller).
            include += [i for i in ["reasoning.encrypted_content"] if i not in include]
        if include:
            values["response_include"] = include
    return ModelSettings(**values)


def tools_for(document: CaseDocument) -> list[Any]:
    from agents import FunctionTool

    def answering(name: str) -> Any:
        async def invoke(context: Any, arguments: str) -> str:
            # As the SDK's own function tools do: arguments that do not parse are an
            # error message to the model, and the tool does not run.
            try:
                parsed = json.loads(arguments or "{}")
            except ValueError as error:
                return f"An error occurred while running the tool: invalid JSON ({error})"
            if not isinstance(parsed, dict):
                return "An error occurred while running the tool: arguments are not an object"
            # The SDK has no error flag on a function output: a failed tool's text goes
            # back as its output, as the SDK's own failure_error_function does.
            content, _failed = document.result_of(context.tool_call_id, name)
            return content

        return invoke

    return [
        FunctionTool(
            name=t.name,
            description=t.description,
            params_json_schema=t.parameters,
            on_invoke_tool=answering(t.name),
            strict_json_schema=False,
        )
        for t in document.tools
    ]


async def converse(document: CaseDocument) -> None:
    from agents import Agent, Runner

    agent: Any = Agent(
        name="conformance",
        instructions=document.system,
        model=model_for(document),
        model_settings=settings_for(document),
        tools=tools_for(document),
    )
    items: list[Any] = []
    for prompt in document.prompts:
        result = Runner.run_streamed(agent, [*items, {"role": "user", "content": prompt}])
        async for _event in result.stream_events():
            pass
        items = result.to_input_list()


def stopped(error: BaseException) -> bool:
    """The SDK's own stops (exit 93, judged on what was sent): ModelBehaviorError (raised
    on `response.incomplete`, a provider `error` event, a call to an unknown tool),
    MaxTurnsExceeded, ModelRefusalError and the guardrail tripwires.  Not UserError (a
    wrapper mistake) nor an HTTP or LiteLLM error (exit 1)."""
    from agents import exceptions

    return isinstance(
        error,
        (
            exceptions.ModelBehaviorError,
            exceptions.MaxTurnsExceeded,
            exceptions.ModelRefusalError,
            exceptions.InputGuardrailTripwireTriggered,
            exceptions.OutputGuardrailTripwireTriggered,
            exceptions.ToolInputGuardrailTripwireTriggered,
            exceptions.ToolOutputGuardrailTripwireTriggered,
        ),
    )


def main() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
    document = load_case()
    if document.dialect is not None:
        unsupported(document, "openai-agents has no documented model class for this dialect")
    agents = import_library(_load, "openai-agents[litellm]")
    agents.set_tracing_disabled(True)
    agents.set_default_openai_key(API_KEY, use_for_tracing=False)
    if document.wire in ("anthropic-messages", "gemini"):
        import litellm

        litellm.disable_aiohttp_transport = True
        litellm.telemetry = False
    run_guarded(lambda: run_async(lambda: converse(document)), never, stopped)


if __name__ == "__main__":
    serve_or_run(main)
