"""The Chat Completions wire's own data (``_assembly.assemble`` builds its ``Wire`` from
this and the job modules).  Its ledger
hints are the defaults but two: Chat keeps reasoning in a field of its own beside
``tool_calls``, so a request cannot say where an episode sat among the calls (see the
package docstring); and Gemini's two documented dummy signatures, which a client on
Gemini's endpoint may put on a call whose signature it lost (rule 45), are no payload.
A call's thought signature (Gemini's endpoint) stays with its call id, as the defaults say."""

from __future__ import annotations

from conformance.wires._openai_chat import _dialects, route
from conformance.wires._openai_chat._dialects import DEEPSEEK, GEMINI, KIMI, OLLAMA, OPENROUTER
from conformance.wires._sdk_clients import openai_client
from conformance.wires._thought_signatures import SENTINELS
from conformance.wires.hints import LedgerHints
from conformance.wires.roles import ProviderHost

NAME = _dialects.NAME
CLIENT = openai_client(route.endpoint)
# OpenAI answers an assistant message with ``content: ""`` 200 (vercel/ai#14950,
# verified live; vllm-project/vllm#21089); the 400s quoted for it are for ``null``
# (rule 54).  DeepSeek, Kimi and Ollama are not known to refuse one; OpenRouter's and
# Gemini's endpoints relay to upstreams that do (rule 15, gemini/parts-required).
HINTS = LedgerHints(
    reasoning_between_calls=False,
    sentinels=SENTINELS,
    empty_messages_taken=frozenset({None, DEEPSEEK, KIMI, OLLAMA}),
    unpaired_tools_taken=frozenset({OLLAMA}),
)
DIALECTS = (DEEPSEEK, OPENROUTER, GEMINI, KIMI, OLLAMA)
PLAIN_DIALECT = "openai"
#: The Chat upstreams, each with the dialect its host says; Ollama by its default port,
#: its OpenAI-compatible endpoint on whatever host.
HOSTS = (
    ProviderHost("api.openai.com"),
    ProviderHost("openrouter.ai", OPENROUTER),
    ProviderHost("api.deepseek.com", DEEPSEEK),
    ProviderHost("generativelanguage.googleapis.com", GEMINI),
    ProviderHost("api.moonshot.ai", KIMI),
    ProviderHost("api.moonshot.cn", KIMI),
    ProviderHost(dialect=OLLAMA, port=11434),
)
PATH_REWRITES = (
    (r"^/api/v1/chat/completions$", "/v1/chat/completions"),  # OpenRouter
    (r"^/v1beta/openai/chat/completions$", "/v1/chat/completions"),  # Gemini
)
MODELS = {
    "": "gpt-4.1",
    DEEPSEEK: "deepseek-chat",
    OPENROUTER: "anthropic/claude-sonnet-4.5",
    GEMINI: "gemini-3-flash-preview",
    KIMI: "kimi-k2.5",
    OLLAMA: "qwen3:8b",
}
