"""The provider rules of ``reference/wire-rules.md`` section C this wire enforces, in
check order: each with its stable id, statement, source and the provider's exact error
text (``validate`` applies them; the package docstring gives the decisions they rest on)."""

from __future__ import annotations

import json

from conformance.wires.anthropic_messages import SIGNATURE_VALID as ANTHROPIC_SIGNATURE_VALID
from conformance.wires.base import Rule


def _google_error(message: str) -> str:
    """Google's error body as OpenRouter relays it in ``metadata.raw`` (two-space JSON and
    a final newline), as a format template in which ``message`` keeps its placeholders."""
    body = {"error": {"code": 400, "message": "\x00", "status": "INVALID_ARGUMENT"}}
    text = json.dumps(body, indent=2) + "\n"
    return text.replace("{", "{{").replace("}", "}}").replace('"\\u0000"', f'"{message}"')


GEMINI_SIGNATURE_MISSING = (
    "Function call is missing a thought_signature in functionCall parts. This is required "
    "for tools to work correctly, and missing thought_signature may lead to degraded model "
    "performance. Additional data, function call `default_api:{name}` , position "
    "{position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures "
    "for more details."
)

TOOL_MESSAGE_ANSWERS = Rule(
    id="openai-chat/tool-message-follows-tool-calls",
    ref="wire-rules §C32",
    statement=(
        "A tool message follows (directly, or after other tool messages) an assistant "
        "message with tool_calls."
    ),
    source=(
        "wire-rules rule 32 (the older OpenAI text; param `messages.[N].role`): "
        "smarter-sh/smarter#264, miurla/morphic#136, sdcb/chats PR#132"
    ),
    error=(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'."
    ),
)
TOOL_CALL_ID_FOUND = Rule(
    id="openai-chat/tool-call-id-found",
    ref="wire-rules §C32",
    statement="A tool message answers one of the tool_calls of the assistant message before it.",
    source=(
        "wire-rules rule 32 (pairing); OpenAI's text from dapr/dapr-agents#145 (not "
        "catalogued in wire-rules.md; its param is not reported, so none is given)"
    ),
    error=(
        "Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' of "
        "previous message."
    ),
)
TOOL_CALLS_ANSWERED = Rule(
    id="openai-chat/tool-calls-answered",
    ref="wire-rules §C32",
    statement=(
        "An assistant message with tool_calls is followed by tool messages answering each of "
        "its ids (an assistant message that ends the request is not asked for answers yet)."
    ),
    source=(
        "wire-rules rule 32: microsoft/promptflow PR#3130; the full text and envelope "
        "(param `messages.[N].role`) from RamiAwar/dataline#172, sdcb/chats PR#132, "
        "router-for-me/CLIProxyAPI#2798; DashScope's variant (QwenLM/qwen-code#315) is "
        "the same rule"
    ),
    error=(
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response "
        "messages: {ids}"
    ),
)
DEEPSEEK_TOOL_MESSAGE_ANSWERS = Rule(
    id="openai-chat/deepseek-tool-message-follows-tool-calls",
    ref="wire-rules §C32",
    statement="DeepSeek: a tool message follows an assistant message with tool_calls.",
    source=(
        "wire-rules rule 32 (the newer text); DeepSeek's text and envelope (param null, "
        "code invalid_request_error) from itmisx/deepx-code#94"
    ),
    error="Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
)
DEEPSEEK_TOOL_CALLS_ANSWERED = Rule(
    id="openai-chat/deepseek-tool-calls-answered",
    ref="wire-rules §C32",
    statement=(
        "DeepSeek: an assistant message with tool_calls is followed by tool messages "
        "answering each of its ids."
    ),
    source=(
        "wire-rules rule 32; DeepSeek's text and envelope from TurixAI/TuriX-CUA#15 (deepseek-chat)"
    ),
    error=(
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. (insufficient tool messages following tool_calls message)"
    ),
)
DEEPSEEK_REASONING_CONTENT = Rule(
    id="openai-chat/deepseek-reasoning-content-replayed",
    ref="wire-rules §C35, §C36, F1",
    statement=(
        "DeepSeek thinking mode: every assistant message with tool_calls carries "
        '`reasoning_content` (any string, "" included); its value is not compared.'
    ),
    source=(
        "wire-rules rules 35 and 36: V3.2-era text from anomalyco/opencode#9397 and "
        "Sylinko/Everywhere#287; thinking-mode doc (api-docs.deepseek.com/guides/"
        "thinking_mode: required on tool-call turns in all later requests); drift F1 in "
        "the module docstring"
    ),
    error=(
        "Missing `reasoning_content` field in the assistant message at message index {i}. "
        "For more information, please refer to "
        "https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"
    ),
)
OPENROUTER_ANTHROPIC_SIGNATURE = Rule(
    id="openai-chat/openrouter-anthropic-signature",
    ref="wire-rules §C37, §A3, §A8",
    statement=(
        "OpenRouter to Anthropic: every reasoning.text signature is one the route minted, "
        "and the latest assistant message with tool_calls keeps the signature of its "
        "signed reasoning (Anthropic's error passes through)."
    ),
    source=(
        "wire-rules rule 37: OpenRouterTeam/ai-sdk-provider#423 (signature-only delta "
        "dropped, text kept); envelope from linanwx/nagobot#21; Anthropic text as in "
        "anthropic-messages/signature-valid"
    ),
    error=ANTHROPIC_SIGNATURE_VALID.error,
)
OPENROUTER_GEMINI_SIGNATURE = Rule(
    id="openai-chat/openrouter-gemini-signature-valid",
    ref="wire-rules §C38, §D46",
    statement=(
        "OpenRouter to Gemini: every signature or encrypted detail sent back is one the route "
        "minted, byte for byte."
    ),
    source=(
        "wire-rules rules 38 and 46: mastra-ai/mastra#23433; raw text and envelope from "
        "OpenRouterTeam/ai-sdk-provider#418 and massgen/MassGen#665"
    ),
    error=_google_error("Corrupted thought signature."),
)
OPENROUTER_GEMINI_DETAILS = Rule(
    id="openai-chat/openrouter-gemini-details-preserved",
    ref="wire-rules §C37, §D40, §D41",
    statement=(
        "OpenRouter to Gemini: the latest assistant message with tool_calls of the current "
        "turn carries back the reasoning details (thought signature) it was minted with."
    ),
    source=(
        "wire-rules rules 37 and 40: LibreChat-AI/agents#37, Kochava-Studios/witsy#490; "
        "full text (docs URL of late 2025) and envelope from microsoft/agent-framework#2947 "
        "and massgen/MassGen#624 (wire-rules quotes the older use-cases URL)"
    ),
    error=(
        "Gemini models require OpenRouter reasoning details to be preserved in each request. "
        "Please refer to our docs: https://openrouter.ai/docs/guides/best-practices/"
        "reasoning-tokens#preserving-reasoning-blocks. Upstream error: "
        + _google_error(GEMINI_SIGNATURE_MISSING)
    ),
)

RULES: tuple[Rule, ...] = (
    TOOL_MESSAGE_ANSWERS,
    TOOL_CALL_ID_FOUND,
    TOOL_CALLS_ANSWERED,
    DEEPSEEK_TOOL_MESSAGE_ANSWERS,
    DEEPSEEK_TOOL_CALLS_ANSWERED,
    DEEPSEEK_REASONING_CONTENT,
    OPENROUTER_ANTHROPIC_SIGNATURE,
    OPENROUTER_GEMINI_SIGNATURE,
    OPENROUTER_GEMINI_DETAILS,
)
