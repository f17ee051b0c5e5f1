"""The Chat wire's name, its dialects and, on OpenRouter, the provider behind a model: the
facts every job of the wire branches on."""

from __future__ import annotations

from typing import Literal

NAME = "openai-chat"
DEEPSEEK = "deepseek"
OPENROUTER = "openrouter"
#: Gemini's OpenAI-compatible endpoint (``/v1beta/openai/chat/completions``): a call's
#: thought signature rides in ``tool_calls[].extra_content.google`` (rule 47).
GEMINI = "gemini"
#: Kimi/Moonshot: DeepSeek's ``reasoning_content``, with its own key rule (rule 36).
KIMI = "kimi"
#: Ollama's OpenAI-compatible endpoint: every streamed call arrives whole, at ``index`` 0
#: (rule 31's quirk).
OLLAMA = "ollama"
#: Dialects that stream ``delta.reasoning_content`` as plain text.
REASONING_CONTENT = frozenset({DEEPSEEK, KIMI})
Upstream = Literal["anthropic", "google"]


def upstream(model: str | None) -> Upstream:
    """The provider behind an OpenRouter model name (see the package docstring, rule 37)."""
    return "google" if model is not None and model.startswith("google/") else "anthropic"
