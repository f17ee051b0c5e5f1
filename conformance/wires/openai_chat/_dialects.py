"""The Chat wire's name, its dialects and, on OpenRouter, the provider behind a model: the
facts every job of the wire branches on."""

from __future__ import annotations

from typing import Literal

NAME = "openai-chat"
DEEPSEEK = "deepseek"
OPENROUTER = "openrouter"
Upstream = Literal["anthropic", "google"]


def upstream(model: str | None) -> Upstream:
    """The provider behind an OpenRouter model name (see the package docstring, rule 37)."""
    return "google" if model is not None and model.startswith("google/") else "anthropic"
