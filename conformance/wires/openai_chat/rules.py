"""The provider rules of the rule catalogue (``docs/rules.md``) section C this wire enforces, each
with its stable id, statement, source and the provider's exact error text, and the check
that applies each, registered in ``BOOK`` in check order (``RULES`` is derived from it;
the package docstring gives the decisions they rest on)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from conformance.model import Reasoning, ToolCall, opaque_fields
from conformance.wires.base import Rule, RuleViolation
from conformance.wires.openai_chat._checked import CheckedRequest
from conformance.wires.openai_chat._dialects import (
    DEEPSEEK,
    GEMINI,
    KIMI,
    NAME,
    OPENROUTER,
    upstream,
)
from conformance.wires.openai_chat._messages import call_signature, deepseek_thinking, kimi_thinking
from conformance.wires.relayed_errors import (
    ANTHROPIC_INVALID_SIGNATURE,
    GEMINI_CALL_SIGNATURE_MISSING,
    GEMINI_SIGNATURE_CORRUPTED,
)
from conformance.wires.rulebook import RuleBook
from conformance.wires.thought_signatures import canonical, is_sentinel


def _google_error(message: str) -> str:
    """Google's error body as OpenRouter relays it in ``metadata.raw`` (two-space JSON and
    a final newline), as a format template in which ``message`` keeps its placeholders."""
    body = {"error": {"code": 400, "message": "\x00", "status": "INVALID_ARGUMENT"}}
    text = json.dumps(body, indent=2) + "\n"
    return text.replace("{", "{{").replace("}", "}}").replace('"\\u0000"', f'"{message}"')


#: The dialects whose answer to an unpaired tool message is known (see ``_tool_pairing``).
_PAIRING_DIALECTS: frozenset[str | None] = frozenset({None, DEEPSEEK, OPENROUTER})

TOOL_MESSAGE_ANSWERS = Rule(
    id="openai-chat/tool-message-follows-tool-calls",
    ref="rule C32",
    statement=(
        "A tool message follows (directly, or after other tool messages) an assistant "
        "message with tool_calls."
    ),
    source=(
        "rule 32 (the older OpenAI text; param `messages.[N].role`): "
        "smarter-sh/smarter#264, miurla/morphic#136, sdcb/chats PR#132"
    ),
    error=(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'."
    ),
)
TOOL_CALL_ID_FOUND = Rule(
    id="openai-chat/tool-call-id-found",
    ref="rule C32",
    statement="A tool message answers one of the tool_calls of the assistant message before it.",
    source=(
        "rule 32 (pairing); OpenAI's text from dapr/dapr-agents#145 (not "
        "in the rule catalogue; its param is not reported, so none is given)"
    ),
    error=(
        "Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' of "
        "previous message."
    ),
)
TOOL_CALLS_ANSWERED = Rule(
    id="openai-chat/tool-calls-answered",
    ref="rule C32",
    statement=(
        "An assistant message with tool_calls is followed by tool messages answering each of "
        "its ids (an assistant message that ends the request is not asked for answers yet)."
    ),
    source=(
        "rule 32: microsoft/promptflow PR#3130; the full text and envelope "
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
    ref="rule C32",
    statement="DeepSeek: a tool message follows an assistant message with tool_calls.",
    source=(
        "rule 32 (the newer text); DeepSeek's text and envelope (param null, "
        "code invalid_request_error) from itmisx/deepx-code#94"
    ),
    error="Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
)
DEEPSEEK_TOOL_CALLS_ANSWERED = Rule(
    id="openai-chat/deepseek-tool-calls-answered",
    ref="rule C32",
    statement=(
        "DeepSeek: an assistant message with tool_calls is followed by tool messages "
        "answering each of its ids."
    ),
    source=("rule 32; DeepSeek's text and envelope from TurixAI/TuriX-CUA#15 (deepseek-chat)"),
    error=(
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. (insufficient tool messages following tool_calls message)"
    ),
)
DEEPSEEK_REASONING_CONTENT = Rule(
    id="openai-chat/deepseek-reasoning-content-replayed",
    ref="rule C35, §C36, F1",
    statement=(
        "DeepSeek thinking mode: every assistant message with tool_calls carries "
        '`reasoning_content` (any string, "" included); its value is not compared.'
    ),
    source=(
        "rule 35 and 36: V3.2-era text from anomalyco/opencode#9397 and "
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
    ref="rule C37, §A3, §A8",
    statement=(
        "OpenRouter to Anthropic: every reasoning.text signature is one the route minted, "
        "and the latest assistant message with tool_calls keeps the signature of its "
        "signed reasoning (Anthropic's error passes through)."
    ),
    source=(
        "rule 37: OpenRouterTeam/ai-sdk-provider#423 (signature-only delta "
        "dropped, text kept); envelope from linanwx/nagobot#21; Anthropic text as in "
        "anthropic-messages/signature-valid"
    ),
    error=ANTHROPIC_INVALID_SIGNATURE,
)
OPENROUTER_GEMINI_SIGNATURE = Rule(
    id="openai-chat/openrouter-gemini-signature-valid",
    ref="rule C38, §D46",
    statement=(
        "OpenRouter to Gemini: every signature or encrypted detail sent back is one the route "
        "minted, byte for byte."
    ),
    source=(
        "rule 38 and 46: mastra-ai/mastra#23433; raw text and envelope from "
        "OpenRouterTeam/ai-sdk-provider#418 and massgen/MassGen#665"
    ),
    error=_google_error(GEMINI_SIGNATURE_CORRUPTED),
)
OPENROUTER_GEMINI_DETAILS = Rule(
    id="openai-chat/openrouter-gemini-details-preserved",
    ref="rule C37, §D40, §D41",
    statement=(
        "OpenRouter to Gemini: the latest assistant message with tool_calls of the current "
        "turn carries back the reasoning details (thought signature) it was minted with."
    ),
    source=(
        "rule 37 and 40: LibreChat-AI/agents#37, Kochava-Studios/witsy#490; "
        "full text (docs URL of late 2025) and envelope from microsoft/agent-framework#2947 "
        "and massgen/MassGen#624 (the catalogue quotes the older use-cases URL)"
    ),
    error=(
        "Gemini models require OpenRouter reasoning details to be preserved in each request. "
        "Please refer to our docs: https://openrouter.ai/docs/guides/best-practices/"
        "reasoning-tokens#preserving-reasoning-blocks. Upstream error: "
        + _google_error(GEMINI_CALL_SIGNATURE_MISSING)
    ),
)
KIMI_REASONING_CONTENT = Rule(
    id="openai-chat/kimi-reasoning-content-replayed",
    ref="rule C36",
    statement=(
        "Kimi with thinking on: every assistant message with tool_calls carries "
        '`reasoning_content` (any string, "" included); its value is not compared.'
    ),
    source=(
        "rule 36: mastra-ai/mastra#12592 (moonshotai kimi-k2.5, index 2), "
        "cloudwego/eino-ext#700 (`thinking: {type: enabled}`, index 2), "
        "MoonshotAI/kimi-agent-sdk#169; envelope (`type` invalid_request_error) from "
        'VicBilibily/GCMP#162; Lapis0x0/obsidian-yolo PR#243 ("" passes)'
    ),
    error=(
        "thinking is enabled but reasoning_content is missing in assistant tool call "
        "message at index {i}"
    ),
)
GEMINI_COMPAT_SIGNATURE = Rule(
    id="openai-chat/gemini-call-signature",
    ref="rule D47, §D40, §D41, §D45",
    statement=(
        "Gemini's OpenAI-compatible endpoint: in the current turn (the messages after the "
        "last user message), the first tool call of each assistant message the provider "
        "signed carries `extra_content.google.thought_signature` (or one of the two "
        "documented dummy signatures)."
    ),
    source=(
        "rule 47 and 40: manthanabc/paws#103 (the 400 through /v1beta/openai/chat/"
        "completions, body a one-element JSON array, position 2 for the first call), "
        "Gitlawb/openclaude#67, HKUDS/DeepTutor#1181; text as in "
        "gemini/function-call-signature"
    ),
    error=GEMINI_CALL_SIGNATURE_MISSING,
    error_type="INVALID_ARGUMENT",
)
GEMINI_COMPAT_SIGNATURE_MINTED = Rule(
    id="openai-chat/gemini-signature-corrupted",
    ref="rule D47, §D46",
    statement=(
        "Gemini's OpenAI-compatible endpoint: a tool call's thought_signature decodes to "
        "the bytes of one this provider minted (either base64 alphabet, padded or not; the "
        "two documented dummy signatures aside)."
    ),
    source=(
        "rule 46 and 47: the signature is Gemini's `bytes` field behind the compatibility "
        "layer; text as in gemini/signature-corrupted (anomalyco/opencode#4832)"
    ),
    error=GEMINI_SIGNATURE_CORRUPTED,
    error_type="INVALID_ARGUMENT",
)
ASSISTANT_CONTENT_PRESENT = Rule(
    id="openai-chat/assistant-content-present",
    ref="rule C54",
    statement=(
        'An assistant message without tool_calls carries `content`: "" is taken, null or '
        "no content is refused."
    ),
    source=(
        'rule 54: vercel/ai#14950 (verified live: content "" answered, null refused), '
        "vercel/ai#13744; the text and param `messages.[N].content` from "
        "songquanpeng/one-api#784"
    ),
    error="Invalid value for 'content': expected a string, got null.",
)


BOOK: RuleBook[CheckedRequest] = RuleBook(NAME)


@BOOK.checks(
    TOOL_MESSAGE_ANSWERS,
    TOOL_CALL_ID_FOUND,
    TOOL_CALLS_ANSWERED,
    DEEPSEEK_TOOL_MESSAGE_ANSWERS,
    DEEPSEEK_TOOL_CALLS_ANSWERED,
)
def _tool_pairing(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rule 32, message by message.  An assistant message that ends the request has no
    answers yet, and nothing is asked of it.  Only the dialects whose texts are known
    (OpenAI's, DeepSeek's, OpenRouter's relay of OpenAI's) apply it (see the package
    docstring)."""
    if check.dialect not in _PAIRING_DIALECTS:
        return
    deepseek = check.dialect == DEEPSEEK
    last = len(check.entries) - 1
    for entry in check.entries:
        at = f"messages.{entry.index}"
        if entry.role == "tool":
            answered = check.answered(entry)
            call_id = entry.body.get("tool_call_id")
            if answered is None or not answered.calls:
                rule = DEEPSEEK_TOOL_MESSAGE_ANSWERS if deepseek else TOOL_MESSAGE_ANSWERS
                yield rule.violated(at)
            elif not deepseek and isinstance(call_id, str) and call_id not in answered.call_ids:
                yield TOOL_CALL_ID_FOUND.violated(at, call_id=call_id)
            continue
        if not entry.calls or entry.index == last:
            continue
        run = check.tool_run(entry)
        answers = {r.body.get("tool_call_id") for r in run}
        missing = [i for i in entry.call_ids if i not in answers]
        if not missing:
            continue
        where = f"messages.{min(entry.index + 1 + len(run), last)}"
        if deepseek:
            yield DEEPSEEK_TOOL_CALLS_ANSWERED.violated(where)
        else:
            yield TOOL_CALLS_ANSWERED.violated(where, ids=", ".join(missing))


@BOOK.checks(ASSISTANT_CONTENT_PRESENT)
def _assistant_content_present(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rule 54, on OpenAI's own endpoint (no dialect): the other endpoints' answer to a
    null content is not known, so nothing is asked of them.  A message that carries a
    legacy ``function_call`` or a ``refusal`` instead is not asked either (the former is
    documented, the latter's answer is not known)."""
    if check.dialect is not None:
        return
    for entry in check.entries:
        if entry.role != "assistant" or entry.calls or entry.body.get("content") is not None:
            continue
        if entry.body.get("function_call") is None and entry.body.get("refusal") is None:
            yield ASSISTANT_CONTENT_PRESENT.violated(f"messages.{entry.index}.content")


@BOOK.checks(DEEPSEEK_REASONING_CONTENT)
def _deepseek_reasoning_content(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rules 35 and 36: the key, as a string, on every tool-call message."""
    if check.dialect != DEEPSEEK or not deepseek_thinking(check.view.raw):
        return
    for entry in check.entries:
        if entry.calls and not isinstance(entry.body.get("reasoning_content"), str):
            at = f"messages.{entry.index}.reasoning_content"
            yield DEEPSEEK_REASONING_CONTENT.violated(at, i=entry.index)


@BOOK.checks(KIMI_REASONING_CONTENT)
def _kimi_reasoning_content(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rule 36: the key, as a string, on every tool-call message (Kimi's placeholder
    ``""`` included)."""
    if check.dialect != KIMI or not kimi_thinking(check.view.raw):
        return
    for entry in check.entries:
        if entry.calls and not isinstance(entry.body.get("reasoning_content"), str):
            at = f"messages.{entry.index}.reasoning_content"
            yield KIMI_REASONING_CONTENT.violated(at, i=entry.index)


@BOOK.checks(GEMINI_COMPAT_SIGNATURE)
def _gemini_call_signature(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rules 47, 40, 41: the current turn only, the first call of each message the
    provider signed; a message whose calls were never signed is not asked for one."""
    if check.dialect != GEMINI:
        return
    users = [e.index for e in check.entries if e.role == "user"]
    current = check.entries[users[-1] + 1 :] if users else check.entries
    for entry in current:
        origin = check.origin(entry) if entry.calls else None
        signed = origin is not None and any(isinstance(b, ToolCall) and b.signature for b in origin)
        if signed and call_signature(entry.calls[0]) is None:
            position = check.upstream_index(entry) + 1
            at = f"messages.{entry.index}.tool_calls.0.extra_content"
            yield GEMINI_COMPAT_SIGNATURE.violated(
                at, name=entry.first_call_name, position=position
            )


@BOOK.checks(GEMINI_COMPAT_SIGNATURE_MINTED)
def _gemini_signature_minted(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rule 46 through the compatibility layer: compared as bytes."""
    if check.dialect != GEMINI:
        return
    minted = {
        canonical(b.signature)
        for turn in check.originals()
        for b in turn
        if isinstance(b, ToolCall) and b.signature
    }
    for entry in check.entries:
        for k, call in enumerate(entry.calls):
            value = call_signature(call)
            if value is not None and not is_sentinel(value) and value not in minted:
                yield GEMINI_COMPAT_SIGNATURE_MINTED.violated(
                    f"messages.{entry.index}.tool_calls.{k}.extra_content"
                )


@BOOK.checks(OPENROUTER_ANTHROPIC_SIGNATURE, OPENROUTER_GEMINI_SIGNATURE)
def _openrouter_signatures(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rule 37 (and 38): every signed entry sent back was minted by this route.
    Anthropic checks thinking signatures; Gemini checks signatures and encrypted blobs,
    both of which carry its thought signatures."""
    if check.dialect != OPENROUTER:
        return
    google = upstream(check.view.model) == "google"
    minted = check.minted()
    for entry in check.entries:
        if entry.role != "assistant":
            continue
        for j, (k, episode) in enumerate(entry.episodes()):
            sent = opaque_fields(episode)
            checked = sent.values() if google else [sent.get("signature", "")]
            if all(payload in minted for payload in checked if payload):
                continue
            at = f"messages.{entry.index}.reasoning_details.{k}"
            if google:
                yield OPENROUTER_GEMINI_SIGNATURE.violated(at)
            else:
                i = check.upstream_index(entry)
                yield OPENROUTER_ANTHROPIC_SIGNATURE.violated(at, i=i, j=j)


@BOOK.checks(OPENROUTER_ANTHROPIC_SIGNATURE, OPENROUTER_GEMINI_DETAILS)
def _openrouter_preserved(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rule 37 on the latest assistant message with tool calls.  Anthropic: a reasoning
    text sent without the signature its episode was minted with (ai-sdk-provider#423).
    Gemini, within the current turn only (§D41): it was minted with a thought signature
    and carries none (a wrong one is the corrupted-signature rule's business)."""
    if check.dialect != OPENROUTER:
        return
    latest = next((e for e in reversed(check.entries) if e.calls), None)
    origin = check.origin(latest) if latest is not None else None
    if latest is None or origin is None:
        return
    episodes = latest.episodes()
    if upstream(check.view.model) == "google":
        later_user = any(e.role == "user" for e in check.entries[latest.index + 1 :])
        owed = {p for b in origin if isinstance(b, Reasoning) for p in opaque_fields(b).values()}
        sent = any(opaque_fields(r) for _, r in episodes)
        if owed and not later_user and not sent:
            position = check.upstream_index(latest) + 1
            at = f"messages.{latest.index}"
            yield OPENROUTER_GEMINI_DETAILS.violated(
                at, name=latest.first_call_name, position=position
            )
        return
    if not any(isinstance(b, Reasoning) and b.signature for b in origin):
        return
    for j, (k, episode) in enumerate(episodes):
        if not episode.redacted and episode.signature is None and episode.summary is None:
            at = f"messages.{latest.index}.reasoning_details.{k}"
            i = check.upstream_index(latest)
            yield OPENROUTER_ANTHROPIC_SIGNATURE.violated(at, i=i, j=j)


RULES: tuple[Rule, ...] = BOOK.rules
