"""The Chat Completions wire, assembled from the job modules of this package.  Its ledger
hints are the defaults but two: Chat keeps reasoning in a field of its own beside
``tool_calls``, so a request cannot say where an episode sat among the calls (see the
package docstring); and Gemini's two documented dummy signatures, which a client on
Gemini's endpoint may put on a call whose signature it lost (rule 45), are no payload.
A call's thought signature (Gemini's endpoint) stays with its call id, as the defaults say."""

from __future__ import annotations

from conformance.wires.gemini._signatures import SENTINELS
from conformance.wires.hints import LedgerHints
from conformance.wires.openai_chat import parse, read, realism, render, route, rules
from conformance.wires.openai_chat._dialects import DEEPSEEK, GEMINI, KIMI, NAME, OLLAMA, OPENROUTER
from conformance.wires.openai_chat.validate import validate
from conformance.wires.roles import Realism, Wire

WIRE = Wire(
    name=NAME,
    rules=rules.RULES,
    serves=route.serves,
    endpoint=route.endpoint,
    wants_stream=route.wants_stream,
    parse=parse.parse,
    validate=validate,
    render=render.render,
    render_error=render.render_error,
    render_history=render.render_history,
    read=read.read,
    history_items=parse.history_items,
    # OpenAI answers an assistant message with ``content: ""`` 200 (vercel/ai#14950,
    # verified live; vllm-project/vllm#21089); the 400s quoted for it are for ``null``
    # (rule 54).  DeepSeek, Kimi and Ollama are not known to refuse one; OpenRouter's and
    # Gemini's endpoints relay to upstreams that do (rule 15, gemini/parts-required).
    hints=LedgerHints(
        reasoning_between_calls=False,
        sentinels=SENTINELS,
        empty_messages_taken=frozenset({None, DEEPSEEK, KIMI, OLLAMA}),
        unpaired_tools_taken=frozenset({OLLAMA}),
    ),
    realism=Realism(
        response=realism.response_problems, block=realism.block_problems, rules=realism.RULES
    ),
    dialects=(DEEPSEEK, OPENROUTER, GEMINI, KIMI, OLLAMA),
    plain_dialect="openai",
    models={
        "": "gpt-4.1",
        DEEPSEEK: "deepseek-chat",
        OPENROUTER: "anthropic/claude-sonnet-4.5",
        GEMINI: "gemini-3-flash-preview",
        KIMI: "kimi-k2.5",
        OLLAMA: "qwen3:8b",
    },
)
