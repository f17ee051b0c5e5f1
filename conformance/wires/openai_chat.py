"""The OpenAI Chat Completions wire, ``POST /v1/chat/completions``, in three flavours:
OpenAI itself (no dialect), ``deepseek`` (DeepSeek's ``reasoning_content``) and
``openrouter`` (OpenRouter's ``reasoning`` and ``reasoning_details``).

Four jobs, as for every wire: render a scripted turn as the provider sends it
(data-only SSE chunks ending in ``data: [DONE]``, or one JSON completion), parse a
request body into the neutral view, validate it with the rules of
``reference/wire-rules.md`` section C, answering with the provider's real error texts in
its own envelope, and read a recorded answer back into a scripted turn.  The dialect
comes from the context (``RenderContext.dialect``, ``ValidationContext.dialect``; an
argument when reading).  Plain OpenAI ignores reasoning fields it does not know: they are
left out of the neutral view and never rejected.

Decisions the rules leave open:

- Rule 33 has no provider side here.  Neither OpenAI nor DeepSeek is known to reject an
  assistant tool call whose ``function.arguments`` is not valid JSON (the public 400s
  for that come from vLLM, SGLang, Cloudflare Workers AI and other compatible servers:
  local-inference-lab/vllm#684, sgl-project/sglang PR#28035, sinameraji/kimiflare
  PR#52), so no rejection is invented; the invariant ``truncated-call-not-run`` judges
  what a client does with such a call.
- Rule 35 (DeepSeek thinking mode): every assistant message with tool calls carries the
  key ``reasoning_content`` as a string; ``""`` passes (rule 36, Kimi's placeholder),
  ``null`` counts as missing.  The value is not compared with what was minted: DeepSeek
  cannot verify it, and it is visible text, not an opaque replay token, so the ledger
  does not cover it either.  Thinking mode is ``thinking.type == "enabled"`` or a
  ``reasoner`` model.  DeepSeek V4 documents thinking as on by default, but a request
  without either switch cannot be told from a V3.2 ``deepseek-chat`` request, so it is
  not assumed (no false positive).  Drift F1: the V3.2-era text is used (it names the
  message); V4 answers "The `reasoning_content` in the thinking mode must be passed back
  to the API." with no index (qwersyk/Newelle#404, AgentiLoop/Agent#22); the R1-era
  400 for *sending* ``reasoning_content`` (F1a) is not enforced.
- Rule 37 (OpenRouter): the upstream is read from the model name: ``google/…`` is
  Gemini, anything else is taken to be Anthropic (whose ``anthropic-claude-v1`` format
  WIRES.md renders).  Upstream errors pass through OpenRouter's envelope ``{"error":
  {"message": "Provider returned error", "code": 400, "metadata": {"raw", …}}}``.
  Anthropic checks every signature it is sent (§A8) and rejects a thinking block whose
  signature was dropped (OpenRouterTeam/ai-sdk-provider#423); Gemini checks thought
  signatures (§D46) and, for the current turn's latest call, that one came back
  (§D40).  A changed ``reasoning.encrypted`` blob on an Anthropic route has no known
  text, so only the ledger judges it.  Where the upstream index of a message is needed
  (``messages.{i}.content.{j}``, Gemini's ``position``), it is inferred: system
  messages leave the list and consecutive user/tool messages become one.
- Rule 32 on OpenRouter uses OpenAI's texts and envelope: OpenRouter's own answer to an
  unpaired tool message is not documented.  Provider-level errors (malformed body,
  request beyond the script) use OpenAI's envelope on every dialect.
- Ledger hints are the defaults.  A signed Reasoning's companion is its text: right for
  Anthropic, whose signature covers the thinking text.  Gemini's signature does not cover
  the summary text OpenRouter relays with it (Gemini validates only that the signature is
  present and genuine), so on a ``google/…`` route an edited summary under a kept
  signature is reported by the ledger although Gemini would accept it; ``companion``
  cannot see the model, and OpenRouter tells clients to send ``reasoning_details`` back
  unmodified, so the stricter reading stands.
- The neutral view puts an assistant message's reasoning first (WIRES.md): this wire has
  no place for an episode between two calls, so where interleaved episodes sat relative
  to the calls is lost on the way back, and the provider accepts that.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from conformance.cases.schema import Case, Noise, ScriptedResponse
from conformance.http import HttpRequest, HttpResponse, json_response
from conformance.model import (
    Block,
    ContentBlock,
    Media,
    Message,
    Reasoning,
    Role,
    Text,
    ThinkingConfig,
    ToolCall,
    ToolResult,
    opaque_fields,
)
from conformance.wires import values
from conformance.wires.anthropic_messages import SIGNATURE_VALID as ANTHROPIC_SIGNATURE_VALID
from conformance.wires.base import (
    RenderContext,
    RequestParseError,
    RequestView,
    ResponseReadError,
    Rule,
    RuleViolation,
    ValidationContext,
    Wire,
)
from conformance.wires.reading import call_arguments, neutral_response, read_json_body, required
from conformance.wires.sse import DONE, format_comment, format_event, fragments, read_events

ENDPOINT = "/v1/chat/completions"
#: The paths real clients post to: an OpenAI base URL ending in ``/v1``, DeepSeek's base
#: URL without it (pydantic-ai) and DeepSeek's beta base (litellm ``deepseek/``).
ENDPOINTS = frozenset({ENDPOINT, "/chat/completions", "/beta/chat/completions"})

DEEPSEEK = "deepseek"
OPENROUTER = "openrouter"
Upstream = Literal["anthropic", "google"]

#: ``created`` of every rendered completion: fixed, so renders are byte-stable.
CREATED = 1_700_000_000

#: The neutral stop, as ``finish_reason`` spells it.  ``pause`` is no Chat shape (a
#: realism problem); it renders as the plain stop it most resembles.
FINISH_REASONS: dict[str, str] = {
    "end": "stop",
    "tool_calls": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
    "pause": "stop",
}
#: Stops that cut the stream: no finish chunk, no ``[DONE]``.  ``cancelled`` is no Chat
#: shape (a realism problem); it renders as the cut it most resembles.
CUT_STOPS = frozenset({"no_finish", "cancelled"})
#: Stops under which a response may end inside a reasoning episode.
TRUNCATED_STOPS = frozenset({"max_tokens", "no_finish"})
#: Stops under which a call's arguments may be cut text: the output limit, a cut stream,
#: and ``tool_calls`` (rule 33: routers and vLLM parsers report it for truncated calls).
RAW_ARGUMENT_STOPS = TRUNCATED_STOPS | {"tool_calls"}

#: OpenRouter's ``format`` of a reasoning detail, by upstream.
DETAIL_FORMATS: dict[Upstream, str] = {
    "anthropic": "anthropic-claude-v1",
    "google": "google-gemini-v1",
}
#: Keep-alive comments a stream may carry between chunks, by dialect.
KEEP_ALIVE: dict[str | None, str] = {
    None: "keep-alive",
    DEEPSEEK: "keep-alive",
    OPENROUTER: "OPENROUTER PROCESSING",
}
SYSTEM_ROLES = frozenset({"system", "developer"})

NOT_JSON = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
    "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
    "sent was not valid JSON. If you have trouble figuring out how to fix this, please "
    "contact us through our help center at help.openai.com.)"
)
SERVER_ERROR = (
    "The server had an error processing your request. Sorry about that! You can retry your "
    "request, or contact us through our help center at help.openai.com if you keep seeing "
    "this error. (Please include the request ID {request_id} in your email.)"
)


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

# ---------------------------------------------------------------- rules, in check order

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

#: The OpenAI ``param`` of a rule: the field of the message its violation points at.
PARAM_FIELDS: dict[str, str] = {
    TOOL_MESSAGE_ANSWERS.id: "role",
    TOOL_CALLS_ANSWERED.id: "role",
}
DEEPSEEK_RULES = frozenset(
    r.id
    for r in (
        DEEPSEEK_TOOL_MESSAGE_ANSWERS,
        DEEPSEEK_TOOL_CALLS_ANSWERED,
        DEEPSEEK_REASONING_CONTENT,
    )
)
#: Rules whose error OpenRouter passes through from an upstream, with that upstream's name.
UPSTREAM_PROVIDERS: dict[str, str] = {
    OPENROUTER_ANTHROPIC_SIGNATURE.id: "Anthropic",
    OPENROUTER_GEMINI_SIGNATURE.id: "Google AI Studio",
    OPENROUTER_GEMINI_DETAILS.id: "Google AI Studio",
}


# ---------------------------------------------------------------- small helpers


def upstream(model: str | None) -> Upstream:
    """The provider behind an OpenRouter model name (see the module docstring)."""
    return "google" if model is not None and model.startswith("google/") else "anthropic"


# ---------------------------------------------------------------- rendering


def _size(block: ContentBlock) -> int:
    """A block's output characters, for a plausible, deterministic token count."""
    if isinstance(block, Reasoning):
        return len(block.text) + len(block.data or "")
    if isinstance(block, Text):
        return len(block.text)
    if isinstance(block, ToolCall):
        return len(values.argument_text(block))
    return 0


def _details(block: Reasoning, index: int, fmt: str, *, streamed: bool) -> list[dict[str, Any]]:
    """A reasoning episode as OpenRouter ``reasoning_details`` entries.

    Streamed: one ``reasoning.text`` entry per text fragment, then the signature alone in
    a last entry (rule 37).  Not streamed: one entry holding the whole text and signature.
    """
    tag = {"index": index, "format": fmt}
    if block.redacted:
        return [{"type": "reasoning.encrypted", "data": block.data or "", **tag}]
    found = [{"type": "reasoning.summary", "summary": s, **tag} for s in block.summary or ()]
    if streamed:
        found += [
            {"type": "reasoning.text", "text": piece, **tag}
            for piece in fragments(block.text, block.chunks)
        ]
        if block.signature:
            found.append({"type": "reasoning.text", "signature": block.signature, **tag})
    elif block.text or block.signature:
        whole: dict[str, Any] = {"type": "reasoning.text", "text": block.text}
        if block.signature:
            whole["signature"] = block.signature
        found.append({**whole, **tag})
    return found


@dataclass(frozen=True)
class _Render:
    """One response being rendered: its ids, its dialect and its usage numbers."""

    response: ScriptedResponse
    context: RenderContext
    completion_id: str
    request_id: str
    prompt_tokens: int
    completion_tokens: int

    @classmethod
    def of(cls, response: ScriptedResponse, context: RenderContext) -> _Render:
        seed = values.digest(context.case_id, context.index)
        digest = values.digest("completion", seed)
        if context.dialect == DEEPSEEK:
            ident = f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"
        elif context.dialect == OPENROUTER:
            ident = f"gen-{CREATED}-{digest[:20]}"
        else:
            ident = f"chatcmpl-{digest[:29]}"
        size = sum(_size(b) for b in response.blocks)
        return cls(
            response,
            context,
            ident,
            "req_" + values.digest("request", seed)[:32],
            100 + int(values.digest("input", seed)[:6], 16) % 900,
            max(1, size // 4),
        )

    @property
    def dialect(self) -> str | None:
        return self.context.dialect

    @property
    def detail_format(self) -> str:
        return DETAIL_FORMATS[upstream(self.context.model)]

    @property
    def usage(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }

    def chunk(
        self, delta: dict[str, Any], finish: str | None = None, **extra: Any
    ) -> dict[str, Any]:
        return {
            "id": self.completion_id,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": self.context.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }

    def deltas(self) -> list[list[dict[str, Any]]]:
        """The ``delta`` objects of each renderable block, block by block."""
        found: list[list[dict[str, Any]]] = []
        calls = episodes = 0
        for block in self.response.blocks:
            if isinstance(block, Text):
                found.append([{"content": p} for p in fragments(block.text, block.chunks)])
            elif isinstance(block, ToolCall):
                opening = {
                    "index": calls,
                    "id": block.id,
                    "type": "function",
                    "function": {"name": block.name, "arguments": ""},
                }
                pieces = fragments(values.argument_text(block), block.chunks)
                found.append(
                    [{"tool_calls": [opening]}]
                    + [
                        {"tool_calls": [{"index": calls, "function": {"arguments": p}}]}
                        for p in pieces
                    ]
                )
                calls += 1
            elif isinstance(block, Reasoning) and self.dialect == DEEPSEEK:
                pieces = fragments(block.text, block.chunks)
                found.append([{"reasoning_content": p} for p in pieces])
            elif isinstance(block, Reasoning) and self.dialect == OPENROUTER:
                found.append(
                    [
                        {"reasoning": d["text"], "reasoning_details": [d]}
                        if "text" in d
                        else {"reasoning_details": [d]}
                        for d in _details(block, episodes, self.detail_format, streamed=True)
                    ]
                )
                episodes += 1
        return found

    def noise(self, noise: Noise) -> bytes:
        """A keep-alive comment, or a chunk with no choices (OpenAI's usage chunk and
        Azure's content-filter chunk have that shape): what a client must skip."""
        if noise == "ping":
            return format_comment(KEEP_ALIVE.get(self.dialect, "keep-alive"))
        return format_event(None, {**self.chunk({}), "choices": []})

    def stream(self) -> list[bytes]:
        """Every flush of the stream: an opening chunk with the role, one chunk per
        delta, the finish chunk (with usage), ``[DONE]``; a cut ends on the last delta.
        Noise goes round-robin into the gaps between blocks."""
        blocks = [d for d in self.deltas() if d]
        gaps = max(len(blocks) - 1, 0)
        noise_after: dict[int, list[bytes]] = {}
        for k, noise in enumerate(self.response.noise):
            noise_after.setdefault(k % gaps if gaps else -1, []).append(self.noise(noise))
        flushes = [format_event(None, self.chunk({"role": "assistant", "content": ""}))]
        flushes += noise_after.get(-1, [])
        for b, deltas in enumerate(blocks):
            flushes += [format_event(None, self.chunk(d)) for d in deltas]
            flushes += noise_after.get(b, [])
        if self.response.stop in CUT_STOPS:
            return flushes
        finish = FINISH_REASONS[self.response.stop]
        flushes.append(format_event(None, self.chunk({}, finish, usage=self.usage)))
        flushes.append(DONE)
        return flushes

    def message(self) -> dict[str, Any]:
        """The ``choices[0].message`` of a non-streamed completion."""
        blocks = self.response.blocks
        texts = [b.text for b in blocks if isinstance(b, Text)]
        reasoning = [b for b in blocks if isinstance(b, Reasoning)]
        calls = [b for b in blocks if isinstance(b, ToolCall)]
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(texts) if texts else None,
        }
        if reasoning and self.dialect == DEEPSEEK:
            message["reasoning_content"] = "".join(r.text for r in reasoning)
        if reasoning and self.dialect == OPENROUTER:
            message["reasoning"] = "".join(r.text for r in reasoning) or None
            message["reasoning_details"] = [
                d
                for k, r in enumerate(reasoning)
                for d in _details(r, k, self.detail_format, streamed=False)
            ]
        if calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": values.argument_text(c)},
                }
                for c in calls
            ]
        return message

    def completion(self) -> HttpResponse:
        """The JSON completion.  A cut has no JSON form: the nearest thing a
        non-streaming client meets is OpenAI's internal-error answer (500 server_error)."""
        headers = {"x-request-id": self.request_id}
        if self.response.stop in CUT_STOPS:
            error = {
                "message": SERVER_ERROR.format(request_id=self.request_id),
                "type": "server_error",
                "param": None,
                "code": None,
            }
            return json_response(500, {"error": error}, headers)
        body = {
            "id": self.completion_id,
            "object": "chat.completion",
            "created": CREATED,
            "model": self.context.model,
            "choices": [
                {
                    "index": 0,
                    "message": self.message(),
                    "finish_reason": FINISH_REASONS[self.response.stop],
                }
            ],
            "usage": self.usage,
        }
        return json_response(200, body, headers)


# ---------------------------------------------------------------- parsing

#: The group key of an encrypted detail: equal to no ``index``, so it never merges.
_ENCRYPTED = object()


def reasoning_episodes(details: object) -> list[tuple[int, Reasoning]]:
    """OpenRouter ``reasoning_details`` as episodes, each with the position of its first
    entry: consecutive ``reasoning.text``/``reasoning.summary`` entries with the same
    ``index`` merge into one Reasoning (texts joined, the signature kept); each
    ``reasoning.encrypted`` entry is one redacted Reasoning; unknown types are left out."""
    groups: list[tuple[int, object, list[dict[str, Any]]]] = []
    for k, item in enumerate(details if isinstance(details, list) else ()):
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "reasoning.encrypted":
            groups.append((k, _ENCRYPTED, [item]))
        elif kind in ("reasoning.text", "reasoning.summary"):
            key = item.get("index")
            if groups and groups[-1][1] is not _ENCRYPTED and groups[-1][1] == key:
                groups[-1][2].append(item)
            else:
                groups.append((k, key, [item]))
    return [(k, _episode(items)) for k, _, items in groups]


def _episode(items: Sequence[dict[str, Any]]) -> Reasoning:
    if items[0].get("type") == "reasoning.encrypted":
        return Reasoning(redacted=True, data=values.optional_text(items[0].get("data")))
    texts = [i for i in items if i.get("type") == "reasoning.text"]
    signatures = [s for i in texts if isinstance(s := i.get("signature"), str) and s]
    summaries = tuple(
        values.text(i.get("summary")) for i in items if i.get("type") == "reasoning.summary"
    )
    return Reasoning(
        text="".join(values.text(i.get("text")) for i in texts),
        signature=signatures[-1] if signatures else None,
        summary=summaries or None,
    )


def _reasoning(raw: dict[str, Any], at: str, dialect: str | None) -> list[tuple[Block, str]]:
    """An assistant message's reasoning, as the dialect's provider reads it."""
    if dialect == DEEPSEEK:
        value = raw.get("reasoning_content")
        return (
            [(Reasoning(text=value), f"{at}.reasoning_content")] if isinstance(value, str) else []
        )
    if dialect != OPENROUTER:
        return []
    episodes = reasoning_episodes(raw.get("reasoning_details"))
    if episodes:
        return [(r, f"{at}.reasoning_details.{k}") for k, r in episodes]
    text = raw.get("reasoning")
    return [(Reasoning(text=text), f"{at}.reasoning")] if isinstance(text, str) and text else []


def _parts(content: object, at: str) -> list[tuple[ContentBlock, str]]:
    """Message content (a string, or a list of parts) as neutral blocks: text and refusal
    parts become Text, ``data:`` image URLs become Media; empty text is left out."""
    if isinstance(content, str):
        return [(Text(text=content), f"{at}.content")] if content else []
    found: list[tuple[ContentBlock, str]] = []
    for k, part in enumerate(content if isinstance(content, list) else ()):
        if not isinstance(part, dict):
            continue
        where = f"{at}.content.{k}"
        kind = part.get("type")
        text = values.text(part.get("text") if kind == "text" else part.get("refusal"))
        if kind in ("text", "refusal") and text:
            found.append((Text(text=text), where))
        elif kind == "image_url":
            image = part.get("image_url")
            url = values.text(image.get("url")) if isinstance(image, dict) else ""
            match = re.fullmatch(r"data:([^;,]+);base64,(.*)", url, re.DOTALL)
            if match:
                found.append((Media(mime=match[1], data=match[2]), where))
    return found


def _tool_call(item: object) -> ToolCall:
    call = item if isinstance(item, dict) else {}
    function = call.get("function")
    function = function if isinstance(function, dict) else {}
    raw = function.get("arguments")
    arguments: dict[str, Any] | str = raw if isinstance(raw, dict) else values.text(raw)
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            arguments = parsed
    return ToolCall(
        id=values.text(call.get("id")), name=values.text(function.get("name")), arguments=arguments
    )


def _tool_result(raw: dict[str, Any]) -> ToolResult:
    content = raw.get("content")
    parsed: str | tuple[ContentBlock, ...] = ""
    if isinstance(content, str):
        parsed = content
    elif isinstance(content, list):
        parsed = tuple(block for block, _ in _parts(content, ""))
    return ToolResult(call_id=values.text(raw.get("tool_call_id")), content=parsed)


def _neutral_messages(
    raw_messages: Sequence[object], dialect: str | None
) -> tuple[list[Message], list[tuple[str, tuple[str, ...]]], str | None]:
    """Neutral messages, their locations and the system text.  System and developer
    messages become the system text; consecutive tool messages become one tool message."""
    messages: list[Message] = []
    locations: list[tuple[str, tuple[str, ...]]] = []
    system: list[str] = []
    for i, raw in enumerate(raw_messages):
        if not isinstance(raw, dict):
            continue
        role, at = raw.get("role"), f"messages.{i}"
        if role in SYSTEM_ROLES:
            system += [b.text for b, _ in _parts(raw.get("content"), at) if isinstance(b, Text)]
            continue
        if role == "tool":
            if messages and messages[-1].role == "tool":
                joined = Message(role="tool", blocks=(*messages[-1].blocks, _tool_result(raw)))
                messages[-1] = joined
                locations[-1] = (locations[-1][0], (*locations[-1][1], at))
            else:
                messages.append(Message(role="tool", blocks=(_tool_result(raw),)))
                locations.append((at, (at,)))
            continue
        if role not in ("user", "assistant"):
            continue
        placed: list[tuple[Block, str]] = []
        if role == "assistant":
            placed += _reasoning(raw, at, dialect)
        placed += _parts(raw.get("content"), at)
        if role == "assistant":
            calls = raw.get("tool_calls")
            placed += [
                (_tool_call(c), f"{at}.tool_calls.{k}")
                for k, c in enumerate(calls if isinstance(calls, list) else ())
            ]
        neutral_role: Role = "assistant" if role == "assistant" else "user"
        messages.append(Message(role=neutral_role, blocks=tuple(b for b, _ in placed)))
        locations.append((at, tuple(w for _, w in placed)))
    return messages, locations, "\n\n".join(system) if system else None


def deepseek_thinking(body: dict[str, Any]) -> bool:
    """Whether a DeepSeek request runs in thinking mode (see the module docstring)."""
    thinking = body.get("thinking")
    model = body.get("model")
    enabled = isinstance(thinking, dict) and thinking.get("type") == "enabled"
    return enabled or (isinstance(model, str) and "reasoner" in model)


def _thinking(body: dict[str, Any], dialect: str | None) -> ThinkingConfig:
    """The reasoning switch of each dialect in neutral form: DeepSeek's thinking mode and
    OpenAI's ``reasoning_effort`` are adaptive; OpenRouter's ``reasoning`` is manual with
    ``max_tokens``, adaptive otherwise, off when disabled."""
    if dialect == DEEPSEEK:
        return ThinkingConfig(mode="adaptive" if deepseek_thinking(body) else "off")
    if dialect == OPENROUTER:
        reasoning = body.get("reasoning")
        if not isinstance(reasoning, dict):
            on = body.get("include_reasoning") is True
            return ThinkingConfig(mode="adaptive" if on else "off")
        if reasoning.get("enabled") is False or reasoning.get("effort") == "none":
            return ThinkingConfig()
        budget = values.integer(reasoning.get("max_tokens"))
        if budget is not None and budget > 0:
            return ThinkingConfig(mode="manual", budget_tokens=budget)
        return ThinkingConfig(mode="adaptive")
    effort = body.get("reasoning_effort")
    on = isinstance(effort, str) and effort != "none"
    return ThinkingConfig(mode="adaptive" if on else "off")


def _json_type(value: object) -> str:
    """A JSON value's type the way OpenAI's ``Invalid type`` errors name it."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "an object"
    return "null"


# ---------------------------------------------------------------- validation


@dataclass(frozen=True)
class _Entry:
    """One entry of the body's ``messages``, read leniently (garbage reads as empty)."""

    index: int
    role: object
    body: dict[str, Any]

    @classmethod
    def of(cls, index: int, raw: object) -> _Entry:
        body = raw if isinstance(raw, dict) else {}
        return cls(index, body.get("role"), body)

    @property
    def calls(self) -> list[dict[str, Any]]:
        """The tool calls of an assistant message (none for any other role)."""
        calls = self.body.get("tool_calls") if self.role == "assistant" else None
        return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []

    @property
    def call_ids(self) -> list[str]:
        return [c["id"] for c in self.calls if isinstance(c.get("id"), str)]

    @property
    def first_call_name(self) -> str:
        function = self.calls[0].get("function") if self.calls else None
        return values.text(function.get("name")) if isinstance(function, dict) else ""

    def episodes(self) -> list[tuple[int, Reasoning]]:
        return reasoning_episodes(self.body.get("reasoning_details"))


@dataclass(frozen=True)
class _Check:
    """One request under validation, with what the provider remembers of the session."""

    view: RequestView
    context: ValidationContext
    entries: tuple[_Entry, ...]

    @property
    def dialect(self) -> str | None:
        return self.context.dialect

    def originals(self) -> list[tuple[Block, ...]]:
        """Every assistant turn the provider produced: the saved history's assistant
        messages and the served responses, oldest first (blocks minted elsewhere left out)."""
        turns = [m.blocks for m in self.context.history if m.role == "assistant"]
        turns += [tuple(r.blocks) for r in self.context.served]
        return [tuple(b for b in turn if getattr(b, "origin", None) is None) for turn in turns]

    def minted(self) -> set[str]:
        """Every reasoning signature and encrypted blob this route produced."""
        return {
            payload
            for turn in self.originals()
            for block in turn
            if isinstance(block, Reasoning)
            for payload in opaque_fields(block).values()
        }

    def origin(self, entry: _Entry) -> tuple[Block, ...] | None:
        """The turn an assistant message was built from, matched by its call ids."""
        ids = set(entry.call_ids)
        matches = [
            t for t in self.originals() if ids & {b.id for b in t if isinstance(b, ToolCall)}
        ]
        return matches[-1] if matches else None

    def tool_run(self, entry: _Entry) -> list[_Entry]:
        """The tool messages right after an entry."""
        run: list[_Entry] = []
        for after in self.entries[entry.index + 1 :]:
            if after.role != "tool":
                break
            run.append(after)
        return run

    def answered(self, entry: _Entry) -> _Entry | None:
        """The message a tool message answers: the first one before it that is not a tool
        message."""
        before = (e for e in reversed(self.entries[: entry.index]) if e.role != "tool")
        return next(before, None)

    def upstream_index(self, entry: _Entry) -> int:
        """Where a message lands in the upstream's own list (0-based): system messages
        leave it, and consecutive user/tool messages become one (roles alternate)."""
        position, side = -1, None
        for other in self.entries[: entry.index + 1]:
            if other.role in SYSTEM_ROLES:
                continue
            if (other.role == "assistant") != side:
                position, side = position + 1, other.role == "assistant"
        return position


def _violation(rule: Rule, location: str | None = None, **fields: object) -> RuleViolation:
    """The rule broken at ``location``, its error text filled in with ``fields``."""
    return RuleViolation(rule, rule.error.format(**fields), location)


def _tool_pairing(check: _Check) -> Iterator[RuleViolation]:
    """Rule 32, message by message.  An assistant message that ends the request has no
    answers yet, and nothing is asked of it."""
    deepseek = check.dialect == DEEPSEEK
    last = len(check.entries) - 1
    for entry in check.entries:
        at = f"messages.{entry.index}"
        if entry.role == "tool":
            answered = check.answered(entry)
            call_id = entry.body.get("tool_call_id")
            if answered is None or not answered.calls:
                yield _violation(
                    DEEPSEEK_TOOL_MESSAGE_ANSWERS if deepseek else TOOL_MESSAGE_ANSWERS, at
                )
            elif not deepseek and isinstance(call_id, str) and call_id not in answered.call_ids:
                yield _violation(TOOL_CALL_ID_FOUND, at, call_id=call_id)
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
            yield _violation(DEEPSEEK_TOOL_CALLS_ANSWERED, where)
        else:
            yield _violation(TOOL_CALLS_ANSWERED, where, ids=", ".join(missing))


def _deepseek_reasoning_content(check: _Check) -> Iterator[RuleViolation]:
    """Rules 35 and 36: the key, as a string, on every tool-call message."""
    if check.dialect != DEEPSEEK or not deepseek_thinking(check.view.raw):
        return
    for entry in check.entries:
        if entry.calls and not isinstance(entry.body.get("reasoning_content"), str):
            at = f"messages.{entry.index}.reasoning_content"
            yield _violation(DEEPSEEK_REASONING_CONTENT, at, i=entry.index)


def _openrouter_signatures(check: _Check) -> Iterator[RuleViolation]:
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
                yield _violation(OPENROUTER_GEMINI_SIGNATURE, at)
            else:
                i = check.upstream_index(entry)
                yield _violation(OPENROUTER_ANTHROPIC_SIGNATURE, at, i=i, j=j)


def _openrouter_preserved(check: _Check) -> Iterator[RuleViolation]:
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
            yield _violation(
                OPENROUTER_GEMINI_DETAILS, at, name=latest.first_call_name, position=position
            )
        return
    if not any(isinstance(b, Reasoning) and b.signature for b in origin):
        return
    for j, (k, episode) in enumerate(episodes):
        if not episode.redacted and episode.signature is None and episode.summary is None:
            at = f"messages.{latest.index}.reasoning_details.{k}"
            i = check.upstream_index(latest)
            yield _violation(OPENROUTER_ANTHROPIC_SIGNATURE, at, i=i, j=j)


CHECKS = (
    _tool_pairing,
    _deepseek_reasoning_content,
    _openrouter_signatures,
    _openrouter_preserved,
)


# ---------------------------------------------------------------- error answers


def _openai_error(violation: RuleViolation) -> dict[str, Any]:
    rule = violation.rule
    param: str | None = violation.at
    field_name = PARAM_FIELDS.get(rule.id)
    match = re.match(r"messages\.(\d+)", violation.at or "")
    if field_name is not None and match:
        param = f"messages.[{match[1]}].{field_name}"
    elif rule in RULES:
        param = None
    return {"message": violation.message, "type": rule.error_type, "param": param, "code": None}


def _error_body(violation: RuleViolation, request_id: str) -> dict[str, Any]:
    """The provider's error body: OpenAI's, DeepSeek's (``param`` null, ``code`` the
    type), or OpenRouter's pass-through of an upstream error (``metadata.raw``)."""
    rule = violation.rule
    provider = UPSTREAM_PROVIDERS.get(rule.id)
    if provider == "Anthropic":
        error = {"type": rule.error_type, "message": violation.message}
        raw = values.compact({"type": "error", "error": error, "request_id": request_id})
    elif provider is not None:
        raw = violation.message
    else:
        if rule.id in DEEPSEEK_RULES:
            kind = rule.error_type
            return {
                "error": {"message": violation.message, "type": kind, "param": None, "code": kind}
            }
        return {"error": _openai_error(violation)}
    metadata = {"raw": raw, "provider_name": provider, "is_byok": False}
    return {
        "error": {"message": "Provider returned error", "code": rule.status, "metadata": metadata}
    }


# ---------------------------------------------------------------- realism


def _block_problems(
    block: Block, dialect: str | None, model: str, *, scripted: bool, stop: str | None, last: bool
) -> list[str]:
    """Why this wire (in this dialect) never sends this block (``scripted``: in a served
    response that stopped with ``stop``)."""
    problems: list[str] = []
    if isinstance(block, Text | ToolCall) and block.signature is not None:
        problems.append(
            f"a {block.kind} block carries a signature; Chat Completions signs no text or call"
        )
    if isinstance(block, Media) and scripted:
        problems.append("Chat Completions responses carry no media blocks")
    raw_arguments = isinstance(block, ToolCall) and isinstance(block.arguments, str)
    if raw_arguments and scripted and stop not in RAW_ARGUMENT_STOPS:
        problems.append(
            "a tool call with unparsed arguments outside a cut response (stop max_tokens, "
            "no_finish, or tool_calls as a router reports a cut call, rule 33)"
        )
    if not isinstance(block, Reasoning):
        return problems
    if block.id is not None:
        problems.append("reasoning with an item id (an OpenAI Responses shape)")
    if dialect == DEEPSEEK:
        if block.signature is not None or block.redacted or block.data or block.summary:
            problems.append(
                "DeepSeek's reasoning_content is plain text: no signature, redacted data or summary"
            )
        elif scripted and not block.text:
            problems.append("an empty reasoning episode; DeepSeek streams reasoning_content text")
        return problems
    if dialect != OPENROUTER:
        problems.append(
            "OpenAI Chat Completions returns no reasoning (use the deepseek or openrouter dialect)"
        )
        return problems
    if block.redacted:
        if not block.data:
            problems.append("a reasoning.encrypted detail without data")
        if block.text or block.signature is not None or block.summary:
            problems.append(
                "a reasoning.encrypted detail carries text or a signature; it has only data"
            )
        return problems
    if scripted and block.signature_chunks is not None and len(block.signature_chunks) > 1:
        problems.append(
            "a signature over several details; OpenRouter sends it in one final "
            "signature-only reasoning.text detail"
        )
    unsigned = block.signature is None and block.summary is None
    cut = stop in TRUNCATED_STOPS and last
    if scripted and unsigned and upstream(model) == "anthropic" and not cut:
        problems.append(
            "an unsigned reasoning episode; OpenRouter relays Anthropic's signature on every "
            "thinking block unless the response is cut inside it (its last block, stop "
            "max_tokens or no_finish)"
        )
    return problems


# ---------------------------------------------------------------- reading recorded responses

#: ``finish_reason`` back to the neutral stop: the render table inverted (``stop`` reads
#: as ``end``, the first stop rendered so), plus the deprecated ``function_call``.
READ_FINISH: dict[str, str] = {
    **{reason: stop for stop, reason in reversed(FINISH_REASONS.items())},
    "function_call": "tool_calls",
}


def _finish(reason: object, at: str) -> str:
    if not isinstance(reason, str) or reason not in READ_FINISH:
        raise ResponseReadError(f"unknown finish_reason {reason!r}", at)
    return READ_FINISH[reason]


def _provider_error(error: object, at: str) -> ResponseReadError:
    """An ``{"error": {...}}`` body or chunk: OpenAI's and OpenRouter's mid-stream error
    shape (OpenRouter's streaming doc: errors mid-generation arrive as data events with
    an ``error`` field)."""
    error = error if isinstance(error, dict) else {"message": error}
    code = error.get("code") or error.get("type")
    return ResponseReadError(f"provider error {code}: {error.get('message')}", at)


def _read_call(item: object, at: str) -> ToolCall:
    """One ``tool_calls`` entry of a completion message."""
    if not isinstance(item, dict):
        raise ResponseReadError("the tool call is not an object", at)
    function = required(item, "function", dict, at)
    raw = function.get("arguments", "")
    arguments = raw if isinstance(raw, dict) else call_arguments(values.text(raw), complete=True)
    name = required(function, "name", str, at)
    return ToolCall(id=required(item, "id", str, at), name=name, arguments=arguments)


def _choice(choices: list[Any]) -> dict[str, Any] | None:
    """Choice 0, the one a single-answer request gets (``index`` defaults to it)."""
    return next((c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), None)


@dataclass
class _Segment:
    """A run of deltas of one kind, in stream order: text, reasoning (DeepSeek's text or
    OpenRouter's details) or one tool call (its id, name and argument text)."""

    kind: Literal["text", "reasoning", "call"]
    text: str = ""
    details: list[dict[str, Any]] = field(default_factory=list)
    call: tuple[str, str] = ("", "")

    def blocks(self, dialect: str | None, finished: bool) -> list[ContentBlock]:
        if self.kind == "text":
            return [Text(text=self.text)]
        if self.kind == "call":
            arguments = call_arguments(self.text, complete=finished)
            return [ToolCall(id=self.call[0], name=self.call[1], arguments=arguments)]
        if dialect == OPENROUTER:
            return [episode for _, episode in reasoning_episodes(self.details)]
        return [Reasoning(text=self.text)]


@dataclass
class _Stream:
    """What a Chat stream has said so far: segments in order, the open call per
    ``tool_calls`` index, and the finish_reason once it comes."""

    dialect: str | None
    segments: list[_Segment] = field(default_factory=list)
    calls: dict[int, _Segment] = field(default_factory=dict)
    stop: str = "no_finish"

    def run(self, kind: Literal["text", "reasoning"]) -> _Segment:
        """The segment a delta of ``kind`` extends: the last one, or a new one."""
        if not self.segments or self.segments[-1].kind != kind:
            self.segments.append(_Segment(kind))
        return self.segments[-1]

    def delta(self, delta: dict[str, Any], at: str) -> None:
        reasoning = delta.get("reasoning_content") if self.dialect == DEEPSEEK else None
        if isinstance(reasoning, str) and reasoning:
            self.run("reasoning").text += reasoning
        details = delta.get("reasoning_details") if self.dialect == OPENROUTER else None
        text = delta.get("reasoning") if self.dialect == OPENROUTER else None
        if isinstance(details, list) and details:
            self.run("reasoning").details += [d for d in details if isinstance(d, dict)]
        elif isinstance(text, str) and text:
            self.run("reasoning").details.append({"type": "reasoning.text", "text": text})
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.run("text").text += content
        calls = delta.get("tool_calls")
        for entry in calls if isinstance(calls, list) else ():
            self.call(entry, at)

    def call(self, entry: object, at: str) -> None:
        """Rule 31: fragments join by ``index``; the first carries the id and name, and a
        new id at an index already seen starts a new call (Ollama-style servers)."""
        if not isinstance(entry, dict):
            raise ResponseReadError("a tool_calls entry is not an object", at)
        index = required(entry, "index", int, at)
        function = entry.get("function")
        function = function if isinstance(function, dict) else {}
        call_id = entry.get("id")
        if (
            isinstance(call_id, str)
            and call_id
            and (index not in self.calls or self.calls[index].call[0] != call_id)
        ):
            name = required(function, "name", str, at)
            self.calls[index] = _Segment("call", call=(call_id, name))
            self.segments.append(self.calls[index])
        elif index not in self.calls:
            raise ResponseReadError(f"tool call {index} was never started (no id)", at)
        self.calls[index].text += values.text(function.get("arguments"))

    def blocks(self) -> list[ContentBlock]:
        finished = self.stop != "no_finish"
        return [b for s in self.segments for b in s.blocks(self.dialect, finished)]


def _read_stream(body: bytes, dialect: str | None) -> ScriptedResponse:
    """Chunks in order until ``[DONE]``; the stop is the finish_reason, and a stream that
    never gave one was cut (``no_finish``).  Chunks without a choice 0 (the usage chunk
    ``stream_options.include_usage`` adds, with ``choices: []``; Azure's filter results)
    and keep-alive comments (OpenRouter's streaming doc: ignore them, per the SSE spec)
    carry nothing and are skipped; a chunk whose ``object`` is no completion chunk is a
    kind this reader does not know: skipped too.  Reasoning is read as the dialect's
    provider sends it; plain OpenAI sends none."""
    stream = _Stream(dialect)
    at = "byte 0"
    for event in read_events(body):
        at = event.at()
        if event.data.strip() == "[DONE]":
            break
        chunk = event.object()
        if "error" in chunk:
            raise _provider_error(chunk["error"], at)
        kind = chunk.get("object")
        if "choices" not in chunk and kind not in (None, "chat.completion.chunk"):
            continue
        choice = _choice(required(chunk, "choices", list, at))
        if choice is None:
            continue
        delta = choice.get("delta", {})
        if not isinstance(delta, dict):
            raise ResponseReadError("`delta` is not an object", at)
        stream.delta(delta, at)
        if choice.get("finish_reason") is not None:
            stream.stop = _finish(choice["finish_reason"], at)
    return neutral_response(stream.stop, stream.blocks(), at)


def _read_completion(body: bytes, dialect: str | None) -> ScriptedResponse:
    """A completion's message in the order the request side reads one (reasoning, text,
    calls: the JSON form says no more)."""
    completion = read_json_body(body)
    if "error" in completion:
        raise _provider_error(completion["error"], "body")
    choice = _choice(required(completion, "choices", list, "body"))
    if choice is None:
        raise ResponseReadError("no choice 0", "choices")
    message = required(choice, "message", dict, "choices.0")
    stop = _finish(required(choice, "finish_reason", str, "choices.0"), "choices.0")
    at = "choices.0.message"
    reasoning = [b for b, _ in _reasoning(message, at, dialect) if isinstance(b, Reasoning)]
    calls = message.get("tool_calls")
    blocks = [
        *reasoning,
        *(b for b, _ in _parts(message.get("content"), at)),
        *(
            _read_call(c, f"{at}.tool_calls.{k}")
            for k, c in enumerate(calls if isinstance(calls, list) else ())
        ),
    ]
    return neutral_response(stop, blocks, "body")


# ---------------------------------------------------------------- the wire


class OpenAIChat(Wire):
    """OpenAI Chat Completions and its DeepSeek and OpenRouter dialects."""

    name: ClassVar[str] = "openai-chat"
    dialects: ClassVar[tuple[str, ...]] = (DEEPSEEK, OPENROUTER)
    reasoning_between_calls: ClassVar[bool] = False
    rules: ClassVar[tuple[Rule, ...]] = RULES

    # ------------------------------------------------------------ serving

    def serves(self, request: HttpRequest) -> bool:
        return request.method.upper() == "POST" and request.path in ENDPOINTS

    def endpoint(self, model: str, stream: bool) -> str:
        """One path for every model; streaming is asked for in the body (``stream``)."""
        return ENDPOINT

    def wants_stream(self, request: HttpRequest, view: RequestView) -> bool:
        return view.stream

    def render(self, response: ScriptedResponse, context: RenderContext) -> HttpResponse:
        rendering = _Render.of(response, context)
        if not context.stream:
            return rendering.completion()
        chunks = tuple(rendering.stream())
        headers = (
            ("content-type", "text/event-stream; charset=utf-8"),
            ("cache-control", "no-cache"),
            ("x-request-id", rendering.request_id),
        )
        return HttpResponse(200, b"".join(chunks), headers, chunks)

    def error_response(self, violation: RuleViolation) -> HttpResponse:
        request_id = "req_" + values.digest("error", violation.rule.id, violation.message)[:32]
        body = _error_body(violation, request_id)
        return json_response(violation.rule.status, body, {"x-request-id": request_id})

    # ------------------------------------------------------------ reading responses

    def read_response(
        self, body: bytes, streaming: bool, *, dialect: str | None = None
    ) -> ScriptedResponse:
        if streaming:
            return _read_stream(body, dialect)
        return _read_completion(body, dialect)

    # ------------------------------------------------------------ parsing

    def parse(self, request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
        """The body in neutral form, read as the context's dialect reads it.  Error texts
        are OpenAI's (NextChat#4064; an OpenAI cassette in a public gateway test suite)."""
        try:
            body = json.loads(request.body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise RequestParseError(NOT_JSON) from None
        if not isinstance(body, dict):
            raise RequestParseError(NOT_JSON)
        if body.get("messages") is None:
            raise RequestParseError("Missing required parameter: 'messages'.", at="messages")
        if not isinstance(body["messages"], list):
            found = _json_type(body["messages"])
            raise RequestParseError(
                f"Invalid type for 'messages': expected an array of objects, but got {found} "
                "instead.",
                at="messages",
            )
        dialect = context.dialect if context is not None else None
        messages, locations, system = _neutral_messages(body["messages"], dialect)
        tools = body.get("tools")
        limit = body.get("max_completion_tokens", body.get("max_tokens"))
        return RequestView(
            wire=self.name,
            model=values.optional_text(body.get("model")),
            stream=body.get("stream") is True,
            system=system,
            tools=tuple(
                t["function"]["name"]
                for t in (tools if isinstance(tools, list) else ())
                if isinstance(t, dict)
                and isinstance(t.get("function"), dict)
                and isinstance(t["function"].get("name"), str)
            ),
            thinking=_thinking(body, dialect),
            max_tokens=values.integer(limit),
            messages=tuple(messages),
            locations=tuple(locations),
            raw=body,
        )

    # ------------------------------------------------------------ rules

    def validate(self, view: RequestView, context: ValidationContext) -> list[RuleViolation]:
        raw_messages = view.raw.get("messages")
        messages = raw_messages if isinstance(raw_messages, list) else []
        check = _Check(view, context, tuple(_Entry.of(i, m) for i, m in enumerate(messages)))
        return [violation for run in CHECKS for violation in run(check)]

    # ------------------------------------------------------------ realism (lint)

    def realism(self, case: Case, dialect: str | None = None) -> list[str]:
        problems: list[str] = []
        model = case.given.options.model
        for t, turn in enumerate(case.given.turns):
            for r, response in enumerate(turn.responses):
                where = f"turns.{t}.responses.{r}"
                if response.stop in ("pause", "cancelled"):
                    problems.append(
                        f"{where}: stop `{response.stop}`; Chat Completions has no such "
                        "finish_reason"
                    )
                for b, block in enumerate(response.blocks):
                    last = b == len(response.blocks) - 1
                    found = _block_problems(
                        block, dialect, model, scripted=True, stop=response.stop, last=last
                    )
                    if dialect == DEEPSEEK and isinstance(block, Reasoning) and b > 0:
                        found.append(
                            "DeepSeek sends at most one reasoning episode, first in the response"
                        )
                    problems += [f"{where}.blocks.{b}: {p}" for p in found]
        for m, message in enumerate(case.given.history):
            if message.role != "assistant":
                continue
            for b, saved in enumerate(message.blocks):
                if getattr(saved, "origin", None) is None:
                    found = _block_problems(
                        saved, dialect, model, scripted=False, stop=None, last=False
                    )
                    problems += [f"history.{m}.blocks.{b}: {p}" for p in found]
        return problems
