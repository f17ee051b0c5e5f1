"""The real libraries the suite is run on: where each wrapper lives and how it installs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Library:
    name: str  # folder under harness/targets/ and the tox env
    distribution: str  # the PyPI distribution (or npm package) whose version is reported
    install_hint: str
    node_package: str | None = None
    home_variable: str | None = None  # the variable naming the folder of node_modules


LIBRARIES = {
    lib.name: lib
    for lib in (
        Library("pydantic-ai", "pydantic-ai-slim", "pydantic-ai-slim[anthropic,openai,google]"),
        Library("openai-agents", "openai-agents", "openai-agents[litellm]"),
        Library("litellm", "litellm", "litellm"),
        Library("langchain-anthropic", "langchain-anthropic", "langchain-anthropic"),
        # One SDK, two targets: the manual generate_content_stream loop and the chats.
        Library("google-genai", "google-genai", "google-genai"),
        Library("google-genai-chats", "google-genai", "google-genai"),
        # One SDK, two targets: the tool runner's default (message threads) and thread=False.
        Library("anthropic-tool-runner", "anthropic", "anthropic"),
        Library("anthropic-tool-runner-nothread", "anthropic", "anthropic"),
        Library(
            "pi-ai",
            "@mariozechner/pi-ai",
            "npm @mariozechner/pi-ai",
            node_package="@mariozechner/pi-ai",
            home_variable="PI_AI_HOME",
        ),
        Library(
            "qwen-code",
            "@qwen-code/qwen-code",
            "npm @qwen-code/qwen-code",
            node_package="@qwen-code/qwen-code",
            home_variable="QWEN_CODE_HOME",
        ),
        Library(
            "ai-sdk",
            "ai",
            "npm ai (with @ai-sdk/anthropic, openai, google, deepseek)",
            node_package="ai",
            home_variable="AI_SDK_HOME",
        ),
        # One SDK, two targets: the tool runner's default (message threads) and thread: false.
        Library(
            "anthropic-ts-tool-runner",
            "@anthropic-ai/sdk",
            "npm @anthropic-ai/sdk",
            node_package="@anthropic-ai/sdk",
            home_variable="ANTHROPIC_TS_HOME",
        ),
        Library(
            "anthropic-ts-tool-runner-nothread",
            "@anthropic-ai/sdk",
            "npm @anthropic-ai/sdk",
            node_package="@anthropic-ai/sdk",
            home_variable="ANTHROPIC_TS_HOME",
        ),
    )
}
