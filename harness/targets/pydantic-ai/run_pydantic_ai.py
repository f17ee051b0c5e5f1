"""pydantic-ai as a command target: its own ``Agent`` loop, black-box over HTTP.

One model class per column, built the way pydantic-ai's documentation shows, each
pointed at the loopback provider:

* ``anthropic-messages``   ``AnthropicModel`` + ``AnthropicProvider(base_url=...)``
* ``openai-responses``     ``OpenAIResponsesModel`` + ``OpenAIProvider``
* ``openai-chat``          ``OpenAIChatModel`` + ``OpenAIProvider``
* ``openai-chat:deepseek`` ``OpenAIChatModel`` + ``DeepSeekProvider``
* ``openai-chat:openrouter`` ``OpenRouterModel`` + ``OpenRouterProvider``
* ``gemini``               ``GoogleModel`` + ``GoogleProvider(base_url=...)``

Each prompt is one ``agent.run`` (streamed: an ``event_stream_handler`` is given, as
the docs show for streaming runs) continuing ``result.all_messages()``; the tools are
the case's tools, declared with ``Tool.from_schema`` and answering each call its scripted
result (a failed one raises ``ToolFailed``, pydantic-ai's error result).

Configured Anthropic betas go in the ``anthropic_betas`` model setting (capability
``betas``). What it cannot do (so it declares no other capability): load a saved history
in the case language (``history``: pydantic-ai's history is its own ``ModelMessage``
types), report whether its output is complete and why it stopped (``output-selection``),
recover XML tool calls from text, or resume a paused turn on its own. A run that
pydantic-ai ends with its own error (``UnexpectedModelBehavior``: ``OutputTokenLimitExceeded``
on a turn cut at the output limit, an empty response after its retries, a content filter;
``UsageLimitExceeded``) is the library stopping the conversation: exit 93 with its message,
as every Python wrapper maps its library's deliberate stop (the messages
``capture_run_messages()`` keeps are for diagnosing, not a history pydantic-ai hands back).
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterable
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
    import pydantic_ai

    return pydantic_ai


def model_for(document: CaseDocument) -> tuple[Any, dict[str, Any]]:
    """The model for the case's column and its provider-specific settings."""
    root = base_url()
    settings: dict[str, Any] = {"max_tokens": document.max_tokens}
    thinking = document.thinking_mode
    if document.wire == "anthropic-messages":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        if thinking == "manual":
            budget = document.budget_tokens or 1024
            settings["anthropic_thinking"] = {"type": "enabled", "budget_tokens": budget}
        elif thinking == "adaptive":
            settings["anthropic_thinking"] = {"type": "adaptive"}
        if document.betas:
            settings["anthropic_betas"] = list(document.betas)
        provider = AnthropicProvider(api_key=API_KEY, base_url=root)
        return AnthropicModel(document.model, provider=provider), settings
    if document.wire == "openai-responses":
        from pydantic_ai.models.openai import OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        if thinking != "off":
            settings["thinking"] = True
        if document.store is not None:
            settings["openai_store"] = document.store
        provider = OpenAIProvider(api_key=API_KEY, base_url=f"{root}/v1")
        return OpenAIResponsesModel(document.model, provider=provider), settings
    if document.wire == "gemini":
        from pydantic_ai.models.google import GoogleModel
        from pydantic_ai.providers.google import GoogleProvider

        if thinking != "off":
            config: dict[str, Any] = {"include_thoughts": True}
            if document.budget_tokens:
                config["thinking_budget"] = document.budget_tokens
            settings["google_thinking_config"] = config
        provider = GoogleProvider(api_key=API_KEY, base_url=root)
        return GoogleModel(document.model, provider=provider), settings
    if document.wire == "openai-chat":
        from openai import AsyncOpenAI

        client = AsyncOpenAI(api_key=API_KEY, base_url=f"{root}/v1")
        if document.dialect == "deepseek":
            from pydantic_ai.models.openai import OpenAIChatModel
            from pydantic_ai.providers.deepseek import DeepSeekProvider

            if thinking != "off":
                settings["thinking"] = True
            model = OpenAIChatModel(document.model, provider=DeepSeekProvider(openai_client=client))
            return model, settings
        if document.dialect == "openrouter":
            from pydantic_ai.models.openrouter import OpenRouterModel
            from pydantic_ai.providers.openrouter import OpenRouterProvider

            if thinking != "off":
                settings["openrouter_reasoning"] = (
                    {"max_tokens": document.budget_tokens}
                    if document.budget_tokens
                    else {"enabled": True}
                )
            provider = OpenRouterProvider(openai_client=client)
            return OpenRouterModel(document.model, provider=provider), settings
        if document.dialect is None:
            from pydantic_ai.models.openai import OpenAIChatModel
            from pydantic_ai.providers.openai import OpenAIProvider

            provider = OpenAIProvider(openai_client=client)
            return OpenAIChatModel(document.model, provider=provider), settings
    unsupported(document, "pydantic-ai has no model class for this column in this wrapper")


def tools_for(document: CaseDocument) -> list[Any]:
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.exceptions import ToolFailed

    def answering(name: str) -> Any:
        def call(context: RunContext[Any], **_arguments: Any) -> str:
            content, failed = document.result_of(context.tool_call_id or "", name)
            if failed:
                # pydantic-ai's documented terminal tool failure: an error result.
                raise ToolFailed(content)
            return content

        return call

    return [
        Tool.from_schema(answering(t.name), t.name, t.description, t.parameters, takes_ctx=True)
        for t in document.tools
    ]


async def converse(document: CaseDocument) -> None:
    from pydantic_ai import Agent

    model, settings = model_for(document)
    agent: Any = Agent(
        model,
        instructions=document.system,
        tools=tools_for(document),
        model_settings=settings,
    )

    async def drain(_context: Any, events: AsyncIterable[Any]) -> None:
        async for _event in events:
            pass

    history: list[Any] = []
    for prompt in document.prompts:
        result = await agent.run(prompt, message_history=history, event_stream_handler=drain)
        history = result.all_messages()


def stopped(error: BaseException) -> bool:
    """pydantic-ai's own stops (exit 93): UnexpectedModelBehavior and its subclasses
    (OutputTokenLimitExceeded, IncompleteToolCall, ContentFilterError) and
    UsageLimitExceeded; an HTTP or API error (ModelAPIError) is not one (exit 1)."""
    from pydantic_ai.exceptions import UnexpectedModelBehavior, UsageLimitExceeded

    return isinstance(error, (UnexpectedModelBehavior, UsageLimitExceeded))


def main() -> None:
    os.environ.setdefault("LOGFIRE_IGNORE_NO_CONFIG", "1")
    import_library(_load, "pydantic-ai-slim[anthropic,openai,google]")
    document = load_case()
    run_guarded(lambda: run_async(lambda: converse(document)), never, stopped)


if __name__ == "__main__":
    serve_or_run(main)
