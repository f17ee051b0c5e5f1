"""The Gemini wire: ``POST /v1beta/models/<model>:streamGenerateContent`` and
``:generateContent``.

Four jobs: render a scripted turn as the Gemini API sends it (``data:`` chunks with
``alt=sse``, a JSON array stream without it, or one JSON response), parse a request body
into the neutral view, validate it with the rules of ``reference/wire-rules.md``
section D, answering with Google's real error texts, and read a recorded answer back
into a scripted turn.

Rules read the raw ``contents``: Gemini's errors name contents by index, and the
signature rules turn on where a ``thoughtSignature`` sits (a part-level sibling of
``functionCall``, or nested inside it), which the neutral view cannot tell apart.
The API reads every field under its JSON name or its proto name (``thoughtSignature`` or
``thought_signature``), so this module does too.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import parse_qs, unquote

from conformance.cases.schema import Case, ScriptedResponse
from conformance.http import HttpRequest, HttpResponse, json_response
from conformance.model import (
    Block,
    Chunks,
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
from conformance.wires.base import (
    RenderContext,
    RequestParseError,
    RequestView,
    ResponseReadError,
    Rule,
    RuleViolation,
    Strength,
    ValidationContext,
    Wire,
)
from conformance.wires.reading import neutral_response, read_json_body, required, response_text
from conformance.wires.sse import format_event, fragments, read_events

#: The paths the API serves, for every API version a client may be configured with.
ROUTE = re.compile(
    r"^/(?:v1beta|v1|v1alpha)/models/(?P<model>[^/:]+)"
    r":(?P<method>streamGenerateContent|generateContent)$"
)
STREAM_METHOD = "streamGenerateContent"

#: The placeholder the thought-signatures doc allows when a real signature is unavailable.
SENTINEL = "skip_thought_signature_validator"

#: The neutral stop, as Gemini's ``finishReason`` spells it.  ``pause`` is no Gemini stop
#: (a realism problem) and is rendered as the plain stop it resembles.
FINISH_REASONS: dict[str, str] = {
    "end": "STOP",
    "tool_calls": "STOP",
    "max_tokens": "MAX_TOKENS",
    "refusal": "SAFETY",
    "pause": "STOP",
}
#: Stops that cut the stream before any finishReason.  Gemini has no ``cancelled``
#: finish reason (a realism problem), so it is rendered as the cut it most resembles.
CUT_STOPS = frozenset({"no_finish", "cancelled"})

#: google.rpc canonical codes, as the error body's ``status`` names them.
STATUS_NAMES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
INTERNAL_ERROR = (
    "An internal error has occurred. Please retry or report in "
    "https://developers.generativeai.google/guide/troubleshooting"
)
INVALID_JSON = "Invalid JSON payload received. Unexpected token."
NOT_A_MESSAGE = 'Invalid JSON payload received. Unknown name "": Root element must be a message.'

# ---------------------------------------------------------------- rules, in check order

CONTENTS_REQUIRED = Rule(
    id="gemini/contents-required",
    ref="wire-rules §D (request shape)",
    statement="A request carries a non-empty `contents` list.",
    source=(
        "GenerateContentRequest reference (contents is required); the text as the API "
        "answers it in langchain-ai/langchain-google#1393 and other public reports"
    ),
    error="* GenerateContentRequest.contents: contents is not specified\n",
    error_type="INVALID_ARGUMENT",
)
PARTS_REQUIRED = Rule(
    id="gemini/parts-required",
    ref="wire-rules §D (request shape)",
    statement="Every content has at least one part.",
    source=(
        "Content reference (parts); the text as the API answers it in public reports of "
        "history converters that emit empty contents (not catalogued in wire-rules.md)"
    ),
    error="* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty.\n",
    error_type="INVALID_ARGUMENT",
)
VALID_ROLE = Rule(
    id="gemini/valid-role",
    ref="wire-rules §D (request shape)",
    statement="A content's role, when given, is `user` or `model`.",
    source=(
        "Content reference ('Must be either user or model'); songquanpeng/one-api#1385, "
        "the-open-agent/openagent#1666"
    ),
    error="Please use a valid role: user, model.",
    error_type="INVALID_ARGUMENT",
)
SIGNATURE_NOT_NESTED = Rule(
    id="gemini/signature-not-nested",
    ref="wire-rules §D40",
    statement=(
        "A thoughtSignature is a part-level sibling of functionCall, never a field inside it."
    ),
    source=(
        "wire-rules rule 40: TanStack/ai PR#459 (nested placement); FunctionCall has no such "
        "field, so the body is refused before validation: text from flachesis/gemini-rust "
        "PR#70 and farion1231/cc-switch PR#6690"
    ),
    error=(
        'Invalid JSON payload received. Unknown name "{name}" at '
        "'contents[{i}].parts[{j}].function_call': Cannot find field."
    ),
    error_type="INVALID_ARGUMENT",
)
SIGNATURE_BASE64 = Rule(
    id="gemini/signature-base64",
    ref="wire-rules §D40, §D44 (replay exactly as received)",
    statement="A thoughtSignature decodes as base64: the field holds bytes.",
    source=(
        "Part reference (thoughtSignature is bytes); reference/real-targets-howto.md "
        "(google-genai decodes it); the text as public reports quote it for cut or "
        "re-encoded signatures (not catalogued in wire-rules.md)"
    ),
    error=(
        "Invalid value at 'contents[{i}].parts[{j}].thought_signature' (TYPE_BYTES), "
        'Base64 decoding failed for "{value}"'
    ),
    error_type="INVALID_ARGUMENT",
)
CALL_TURN_PLACED = Rule(
    id="gemini/call-turn-placement",
    ref="wire-rules §D42",
    statement=(
        "A model content with function calls comes right after a user content or a "
        "function-response content."
    ),
    source="wire-rules rule 42: google-gemini/gemini-cli#26486, #26956; lobehub/lobehub#7298",
    error=(
        "Please ensure that function call turn comes immediately after a user turn or after "
        "a function response turn."
    ),
    error_type="INVALID_ARGUMENT",
)
RESPONSE_TURN_PLACED = Rule(
    id="gemini/response-turn-placement",
    ref="wire-rules §D42",
    statement=(
        "A content with function responses comes right after a model content with function "
        "calls (no orphan or consecutive responses)."
    ),
    source=(
        "wire-rules rule 42 (orphan and consecutive responses); the text, which wire-rules.md "
        "does not quote, from google-gemini/gemini-cli#14183, BerriAI/litellm#26755 and "
        "lobehub/lobehub#7298"
    ),
    error="Please ensure that function response turn comes immediately after a function call turn.",
    error_type="INVALID_ARGUMENT",
)
RESPONSE_COUNT = Rule(
    id="gemini/response-count",
    ref="wire-rules §D41, §D42",
    statement=(
        "The content after a function-call turn has as many functionResponse parts as the "
        "turn has functionCall parts (a cancelled call still gets one)."
    ),
    source=(
        "wire-rules rule 42: google-gemini/gemini-cli#2347, #4217, #5443, #16543, #17208; "
        "microsoft/vscode#299295 (calls left unanswered)"
    ),
    error=(
        "Please ensure that the number of function response parts is equal to the number of "
        "function call parts of the function call turn."
    ),
    error_type="INVALID_ARGUMENT",
)
SIGNATURE_REQUIRED = Rule(
    id="gemini/function-call-signature",
    ref="wire-rules §D40, §D41, §D45",
    statement=(
        "In the current turn (the contents after the last user content that is not only "
        "function responses), the first functionCall part of each model content the provider "
        "signed carries a part-level thoughtSignature, or the documented sentinel."
    ),
    source=(
        "wire-rules rules 40, 41, 45: thought-signatures doc (only the current turn is "
        "validated, first functionCall of each step); spring-projects/spring-ai PR#4977. "
        "`position` is the 1-based index of the model content in `contents`: the first call "
        "of a conversation is reported at position 2 (manthanabc/paws#103, "
        "codedogQBY/ReadAny#225), and Vertex's variant names the same content 'the 2. content "
        "block' (junjiem/dify-plugin-agent-mcp_sse#143)"
    ),
    error=(
        "Function call is missing a thought_signature in functionCall parts. This is required "
        "for tools to work correctly, and missing thought_signature may lead to degraded model "
        "performance. Additional data, function call `default_api:{name}` , position "
        "{position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures "
        "for more details."
    ),
    error_type="INVALID_ARGUMENT",
)
SIGNATURE_MINTED = Rule(
    id="gemini/signature-corrupted",
    ref="wire-rules §D46, §C38, F7",
    statement=(
        "A thoughtSignature on a functionCall part is one this provider minted, byte for byte "
        "(the sentinel aside).  Signatures on text and thought parts are not enforced (F7)."
    ),
    source=(
        "wire-rules rules 38, 46 and F7: anomalyco/opencode#4832, mastra-ai/mastra#23433, "
        "google-gemini/gemini-cli#13467"
    ),
    error="Corrupted thought signature.",
    error_type="INVALID_ARGUMENT",
)

RULES: tuple[Rule, ...] = (
    CONTENTS_REQUIRED,
    PARTS_REQUIRED,
    VALID_ROLE,
    SIGNATURE_NOT_NESTED,
    SIGNATURE_BASE64,
    CALL_TURN_PLACED,
    RESPONSE_TURN_PLACED,
    RESPONSE_COUNT,
    SIGNATURE_REQUIRED,
    SIGNATURE_MINTED,
)


class GeminiRequestView(RequestView):
    """The neutral view plus how a streamed answer is framed: ``alt=sse`` asks for
    server-sent events, its absence for one JSON array written piece by piece."""

    sse: bool = True


# ---------------------------------------------------------------- small helpers

_CAPITAL = re.compile(r"([A-Z])")


def _get(item: Mapping[str, Any], name: str) -> Any:
    """A field by its JSON name, else by its proto name (the API accepts both)."""
    if name in item:
        return item[name]
    return item.get(_CAPITAL.sub(r"_\1", name).lower())


def _object(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _nonempty_text(value: object) -> str | None:
    """A non-empty string, else None (an empty bytes or id field is an unset one)."""
    return value if isinstance(value, str) and value else None


def _signature(part: Mapping[str, Any]) -> str | None:
    """The part-level thoughtSignature of a part (never one nested in functionCall)."""
    return _nonempty_text(_get(part, "thoughtSignature"))


def _decodes(value: str) -> bool:
    """Whether the API's bytes decoding accepts ``value``: the standard or the URL-safe
    alphabet, padded or not.  Lenient on purpose: only a value no base64 reader can
    decode (a cut signature, a stray character) is refused."""
    body = value.rstrip("=")
    if len(value) - len(body) > 2 or len(body) % 4 == 1:
        return False
    return re.fullmatch(r"[A-Za-z0-9+/_-]*", body) is not None


def _standard_base64(value: str) -> bool:
    """Whether ``value`` is canonical standard base64, the form Gemini mints."""
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return bool(value) and base64.b64encode(decoded).decode() == value


def _route(request: HttpRequest) -> re.Match[str] | None:
    if request.method.upper() != "POST":
        return None
    return ROUTE.match(unquote(request.path))


# ---------------------------------------------------------------- rendering


def _pieces(text: str, sizes: Chunks | None) -> list[str]:
    """A block's text parts: one per chunk, and one empty part for an empty text."""
    return fragments(text, sizes) or [""]


def _parts(block: ContentBlock, stream: bool) -> list[dict[str, Any]]:
    """The parts a block is sent as; the block's signature rides on the last of them.

    A redacted episode has no Gemini form, and a call with unparsed arguments is never
    sent (a MAX_TOKENS cut drops it): both render as nothing.
    """
    if isinstance(block, Reasoning | Text):
        if isinstance(block, Reasoning) and block.redacted:
            return []
        thought = {"thought": True} if isinstance(block, Reasoning) else {}
        sizes = block.chunks if stream else None
        parts: list[dict[str, Any]] = [{"text": p, **thought} for p in _pieces(block.text, sizes)]
        if block.signature is not None:
            parts[-1]["thoughtSignature"] = block.signature
        return parts
    if isinstance(block, ToolCall):
        if not isinstance(block.arguments, dict):
            return []
        call = {"name": block.name, "args": block.arguments, "id": block.id}
        signed = {} if block.signature is None else {"thoughtSignature": block.signature}
        return [{"functionCall": call, **signed}]
    if isinstance(block, Media):
        return [{"inlineData": {"mimeType": block.mime, "data": block.data}}]
    return []


def _token_size(blocks: Sequence[ContentBlock]) -> tuple[int, int]:
    """Plausible, deterministic (candidates, thoughts) token counts: four characters a
    token; thoughts count only when the response has reasoning."""
    visible = thoughts = 0
    for block in blocks:
        if isinstance(block, Reasoning):
            thoughts += max(1, len(block.text) // 4)
        elif isinstance(block, Text):
            visible += len(block.text)
        elif isinstance(block, ToolCall):
            arguments = block.arguments
            visible += len(arguments if isinstance(arguments, str) else values.compact(arguments))
    return max(1, visible // 4), thoughts


@dataclass(frozen=True)
class _Identity:
    """The deterministic id and usage of one rendered response."""

    response_id: str
    usage: dict[str, int]

    @classmethod
    def of(cls, response: ScriptedResponse, context: RenderContext) -> _Identity:
        seed = values.digest(context.case_id, context.index)
        raw = bytes.fromhex(values.digest("response", seed))[:16]
        prompt = 100 + int(values.digest("input", seed)[:6], 16) % 900
        candidates, thoughts = _token_size(response.blocks)
        usage = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": candidates,
            "totalTokenCount": prompt + candidates + thoughts,
        }
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        return cls(base64.urlsafe_b64encode(raw).decode().rstrip("="), usage)


def _response(
    parts: list[dict[str, Any]], finish: str | None, model: str, identity: _Identity
) -> dict[str, Any]:
    """One GenerateContentResponse.  Without parts the content is ``{"role": "model"}``:
    the API leaves an empty repeated field out (rule 48's zero-part finish)."""
    content: dict[str, Any] = {"parts": parts, "role": "model"} if parts else {"role": "model"}
    candidate: dict[str, Any] = {"content": content}
    if finish is not None:
        candidate["finishReason"] = finish
    candidate["index"] = 0
    return {
        "candidates": [candidate],
        "usageMetadata": identity.usage,
        "modelVersion": model,
        "responseId": identity.response_id,
    }


def _stream_chunks(
    response: ScriptedResponse, model: str, identity: _Identity
) -> list[dict[str, Any]]:
    """One chunk per part; the last chunk carries the finishReason (alone when there is
    no part at all); a cut stream has no finishReason anywhere."""
    parts = [p for block in response.blocks for p in _parts(block, stream=True)]
    finish = None if response.stop in CUT_STOPS else FINISH_REASONS[response.stop]
    chunks = [_response([part], None, model, identity) for part in parts]
    if finish is not None:
        chunks[-1:] = [_response(parts[-1:], finish, model, identity)]
    return chunks


def _json_array(chunks: Sequence[dict[str, Any]], closed: bool) -> list[bytes]:
    """A stream without ``alt=sse``: one JSON array written element by element; a cut
    stream never writes the closing bracket."""
    pieces = [("[" if k == 0 else ",\r\n") + values.compact(c) for k, c in enumerate(chunks)]
    pieces = pieces or ["["]
    if closed:
        pieces.append("]")
    return [p.encode() for p in pieces]


# ---------------------------------------------------------------- parsing


@dataclass
class _Ids:
    """Ids for functionCall parts that carry none: the id of the served call with the
    same name and arguments (each served call once, and none a request names itself),
    else a deterministic one from the part's place, so every request of a conversation
    gives the same call the same id."""

    served: list[ToolCall]
    used: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, context: ValidationContext | None, contents: Sequence[object]) -> _Ids:
        served: list[ToolCall] = []
        if context is not None:
            history = (b for m in context.history if m.role == "assistant" for b in m.blocks)
            scripted = (b for r in context.served for b in r.blocks)
            served = [
                b for source in (history, scripted) for b in source if isinstance(b, ToolCall)
            ]
        named = {i for _, part in _parts_of(contents) if (i := _call_id(part)) is not None}
        return cls(served, {k for k, call in enumerate(served) if call.id in named})

    def restore(self, name: str, arguments: dict[str, Any] | str, at: str) -> str:
        for k, call in enumerate(self.served):
            if k not in self.used and call.name == name and call.arguments == arguments:
                self.used.add(k)
                return call.id
        return _synthesized(at)


def _synthesized(at: str) -> str:
    """The id of an unnamed call or response that matches nothing: from its place."""
    return "call_" + values.digest("gemini", at)[:24]


def _parts_of(contents: Sequence[object]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every part of every content, with its location."""
    for i, content in enumerate(contents):
        parts = _get(content, "parts") if isinstance(content, dict) else None
        for j, part in enumerate(parts if isinstance(parts, list) else ()):
            if isinstance(part, dict):
                yield f"contents[{i}].parts[{j}]", part


def _call_id(part: Mapping[str, Any]) -> str | None:
    call = _get(part, "functionCall")
    return _nonempty_text(_get(call, "id")) if isinstance(call, dict) else None


def _content_block(part: Mapping[str, Any], at: str, ids: _Ids) -> ContentBlock | None:
    """A part other than functionResponse in neutral form (None: no neutral form).

    Only ``thought: true`` makes a part reasoning (rule 39); a signature alone, with no
    text, is kept as an empty text so its token stays visible."""
    signature = _signature(part)
    call = _get(part, "functionCall")
    if isinstance(call, dict):
        name = values.text(_get(call, "name"))
        raw_args = _get(call, "args")
        arguments = {} if raw_args is None else raw_args
        arguments = arguments if isinstance(arguments, dict) else values.compact(arguments)
        call_id = _nonempty_text(_get(call, "id")) or ids.restore(name, arguments, at)
        return ToolCall(id=call_id, name=name, arguments=arguments, signature=signature)
    media = _get(part, "inlineData")
    if isinstance(media, dict):
        return Media(
            mime=values.text(_get(media, "mimeType")), data=values.text(_get(media, "data"))
        )
    text = _get(part, "text")
    if _get(part, "thought") is True:
        return Reasoning(text=values.text(text), signature=signature)
    if isinstance(text, str) or signature is not None:
        return Text(text=values.text(text), signature=signature)
    return None


def _tool_result(response: Mapping[str, Any], call_id: str) -> ToolResult:
    """A functionResponse: its ``result`` or ``output`` string, else its JSON text; a
    response that only reports an ``error`` is an error result."""
    payload = _object(_get(response, "response"))
    for key in ("result", "output"):
        if isinstance(payload.get(key), str):
            return ToolResult(call_id=call_id, content=payload[key])
    failed = "error" in payload and not {"result", "output"} & payload.keys()
    return ToolResult(call_id=call_id, content=values.compact(payload), is_error=failed)


def _neutral_messages(
    contents: Sequence[object], ids: _Ids
) -> tuple[list[Message], list[tuple[str, tuple[str, ...]]]]:
    """Neutral messages and their locations; functionResponse runs become ``tool``
    messages, so a user content mixing both splits in order.  A functionResponse
    without ``id`` answers the call at its position in the latest model content."""
    messages: list[Message] = []
    locations: list[tuple[str, tuple[str, ...]]] = []
    calls: list[str] = []  # the call ids of the latest model content
    for i, content in enumerate(contents):
        if not isinstance(content, dict):
            continue
        role: Role = "assistant" if _get(content, "role") == "model" else "user"
        at = f"contents[{i}]"
        runs: list[tuple[Role, list[Block], list[str]]] = []
        made: list[str] = []
        answered = 0
        parts = _get(content, "parts")
        for j, part in enumerate(parts if isinstance(parts, list) else ()):
            if not isinstance(part, dict):
                continue
            where = f"{at}.parts[{j}]"
            response = _get(part, "functionResponse")
            block: Block | None
            if isinstance(response, dict):
                fallback = calls[answered] if answered < len(calls) else None
                call_id = _nonempty_text(_get(response, "id")) or fallback
                block = _tool_result(response, call_id or _synthesized(where))
                answered += 1
            else:
                block = _content_block(part, where, ids)
                if isinstance(block, ToolCall):
                    made.append(block.id)
            if block is None:
                continue
            target: Role = "tool" if isinstance(block, ToolResult) else role
            if not runs or runs[-1][0] != target:
                runs.append((target, [], []))
            runs[-1][1].append(block)
            runs[-1][2].append(where)
        if role == "assistant":
            calls = made
        for run_role, blocks, where_blocks in runs or [(role, [], [])]:
            messages.append(Message(role=run_role, blocks=tuple(blocks)))
            locations.append((at, tuple(where_blocks)))
    return messages, locations


def _system(value: object) -> str | None:
    if not isinstance(value, dict):
        return None
    parts = _get(value, "parts")
    return "".join(
        values.text(_get(p, "text"))
        for p in (parts if isinstance(parts, list) else ())
        if isinstance(p, dict)
    )


def _tools(value: object) -> tuple[str, ...]:
    names: list[str] = []
    for tool in value if isinstance(value, list) else ():
        declarations = _get(tool, "functionDeclarations") if isinstance(tool, dict) else None
        for declaration in declarations if isinstance(declarations, list) else ():
            if isinstance(declaration, dict) and isinstance(_get(declaration, "name"), str):
                names.append(_get(declaration, "name"))
    return tuple(names)


def _thinking(value: object) -> ThinkingConfig:
    """A budget > 0 is manual; -1 (dynamic), a level or includeThoughts is adaptive; a
    budget of 0 turns thinking off."""
    if not isinstance(value, dict):
        return ThinkingConfig()
    budget = values.integer(_get(value, "thinkingBudget"))
    if budget is not None and budget > 0:
        return ThinkingConfig(mode="manual", budget_tokens=budget)
    if budget == 0:
        return ThinkingConfig()
    if budget is not None or _get(value, "thinkingLevel") is not None:
        return ThinkingConfig(mode="adaptive")
    return ThinkingConfig(mode="adaptive" if _get(value, "includeThoughts") is True else "off")


def _wants_sse(query: str) -> bool:
    values = parse_qs(query)
    return "sse" in values.get("alt", []) + values.get("$alt", [])


# ---------------------------------------------------------------- validation


@dataclass(frozen=True)
class _Content:
    """One entry of the body's ``contents``, read leniently (garbage reads as empty)."""

    index: int
    role: object
    parts: tuple[tuple[int, dict[str, Any]], ...]

    @classmethod
    def of(cls, index: int, raw: object) -> _Content:
        if not isinstance(raw, dict):
            return cls(index, None, ())
        items = _get(raw, "parts")
        parts = tuple(
            (j, p)
            for j, p in enumerate(items if isinstance(items, list) else ())
            if isinstance(p, dict)
        )
        return cls(index, _get(raw, "role"), parts)

    @property
    def model(self) -> bool:
        return self.role == "model"

    @property
    def calls(self) -> list[tuple[int, dict[str, Any]]]:
        return [(j, p) for j, p in self.parts if isinstance(_get(p, "functionCall"), dict)]

    @property
    def responses(self) -> list[tuple[int, dict[str, Any]]]:
        return [(j, p) for j, p in self.parts if isinstance(_get(p, "functionResponse"), dict)]

    @property
    def call_turn(self) -> bool:
        return self.model and bool(self.calls)

    @property
    def response_turn(self) -> bool:
        return not self.model and bool(self.responses)

    @property
    def prompt(self) -> bool:
        """A user content with standard content: where the current turn starts."""
        return not self.model and len(self.responses) < len(self.parts)


@dataclass(frozen=True)
class _Check:
    """One request under validation, with what the provider remembers of the session."""

    view: RequestView
    context: ValidationContext
    contents: tuple[_Content, ...]

    def at(self, position: int) -> _Content | None:
        return self.contents[position] if 0 <= position < len(self.contents) else None

    def originals(self) -> list[tuple[Block, ...]]:
        """Every model response this provider minted: the saved history's own assistant
        messages and the served responses."""
        history = [
            tuple(b for b in m.blocks if getattr(b, "origin", None) is None)
            for m in self.context.history
            if m.role == "assistant"
        ]
        return history + [tuple(r.blocks) for r in self.context.served]

    def minted(self) -> set[str]:
        return {
            payload
            for blocks in self.originals()
            for block in blocks
            for name, payload in opaque_fields(block).items()
            if name == "signature"
        }

    def signed_calls(self) -> set[str]:
        """The ids of every call of a response that signed one of its calls."""
        found: set[str] = set()
        for blocks in self.originals():
            calls = [b for b in blocks if isinstance(b, ToolCall)]
            if any(c.signature is not None for c in calls):
                found.update(c.id for c in calls)
        return found

    def call_ids(self, content: _Content) -> set[str]:
        """The (restored) call ids of a content, from the neutral view."""
        at = f"contents[{content.index}]"
        return {
            b.id
            for message, (where, _) in zip(self.view.messages, self.view.locations, strict=False)
            if where == at
            for b in message.blocks
            if isinstance(b, ToolCall)
        }


def _violation(rule: Rule, location: str | None = None, **fields: object) -> RuleViolation:
    """The rule broken at ``location``, its error text filled in with ``fields``."""
    return RuleViolation(rule, rule.error.format(**fields), location)


def _contents_required(check: _Check) -> Iterator[RuleViolation]:
    contents = _get(check.view.raw, "contents")
    if not isinstance(contents, list) or not contents:
        yield _violation(CONTENTS_REQUIRED, "contents")


def _parts_required(check: _Check) -> Iterator[RuleViolation]:
    raw = _get(check.view.raw, "contents")
    for i, content in enumerate(raw if isinstance(raw, list) else ()):
        parts = _get(content, "parts") if isinstance(content, dict) else None
        if not isinstance(parts, list) or not parts:
            yield _violation(PARTS_REQUIRED, f"contents[{i}].parts", i=i)


def _valid_role(check: _Check) -> Iterator[RuleViolation]:
    for content in check.contents:
        if content.role not in (None, "", "user", "model"):
            yield _violation(VALID_ROLE, f"contents[{content.index}].role")


def _nested_signature(check: _Check) -> Iterator[RuleViolation]:
    for content in check.contents:
        for j, part in content.calls:
            call = _get(part, "functionCall")
            for name in ("thoughtSignature", "thought_signature"):
                if name in call:
                    at = f"contents[{content.index}].parts[{j}].function_call"
                    yield _violation(SIGNATURE_NOT_NESTED, at, name=name, i=content.index, j=j)


def _signature_base64(check: _Check) -> Iterator[RuleViolation]:
    for content in check.contents:
        for j, part in content.parts:
            value = _signature(part)
            if value is not None and not _decodes(value):
                at = f"contents[{content.index}].parts[{j}]"
                yield _violation(SIGNATURE_BASE64, at, i=content.index, j=j, value=value)


def _call_turn_placed(check: _Check) -> Iterator[RuleViolation]:
    for position, content in enumerate(check.contents):
        before = check.at(position - 1)
        if content.call_turn and (before is None or before.model):
            yield _violation(CALL_TURN_PLACED, f"contents[{content.index}]")


def _response_turn_placed(check: _Check) -> Iterator[RuleViolation]:
    for position, content in enumerate(check.contents):
        before = check.at(position - 1)
        if content.response_turn and (before is None or not before.call_turn):
            yield _violation(RESPONSE_TURN_PLACED, f"contents[{content.index}]")


def _response_count(check: _Check) -> Iterator[RuleViolation]:
    """A call turn that ends the request has no answer yet, so nothing is asked of it."""
    for position, content in enumerate(check.contents):
        after = check.at(position + 1)
        if not content.call_turn or after is None:
            continue
        answered = len(after.responses) if after.response_turn else 0
        if answered != len(content.calls):
            yield _violation(RESPONSE_COUNT, f"contents[{after.index}]")


def _signature_required(check: _Check) -> Iterator[RuleViolation]:
    """Rules 40/41/45 on the current turn only; a step the provider did not sign (an
    unsigned script, a call it never served) is not asked for one."""
    starts = [k for k, content in enumerate(check.contents) if content.prompt]
    current = check.contents[starts[-1] + 1 :] if starts else check.contents
    signed = check.signed_calls()
    for content in current:
        if not content.call_turn or not check.call_ids(content) & signed:
            continue
        j, first = content.calls[0]
        if _signature(first) is None:
            name = values.text(_get(_get(first, "functionCall"), "name"))
            at = f"contents[{content.index}].parts[{j}]"
            yield _violation(SIGNATURE_REQUIRED, at, name=name, position=content.index + 1)


def _signature_minted(check: _Check) -> Iterator[RuleViolation]:
    minted = check.minted()
    for content in check.contents:
        for j, part in content.calls:
            value = _signature(part)
            if value is not None and value != SENTINEL and value not in minted:
                yield _violation(SIGNATURE_MINTED, f"contents[{content.index}].parts[{j}]")


CHECKS = (
    _contents_required,
    _parts_required,
    _valid_role,
    _nested_signature,
    _signature_base64,
    _call_turn_placed,
    _response_turn_placed,
    _response_count,
    _signature_required,
    _signature_minted,
)


# ---------------------------------------------------------------- realism


def _block_problems(block: Block, *, scripted: bool) -> list[str]:
    """Why Gemini never sends this block (``scripted``: in a served response)."""
    problems: list[str] = []
    if isinstance(block, Reasoning):
        if block.redacted or block.data is not None:
            problems.append(
                "redacted reasoning (an encrypted blob); Gemini sends thought parts and "
                "thoughtSignature only"
            )
        if block.id is not None or block.summary is not None:
            problems.append("reasoning with an item id or a summary (OpenAI Responses shapes)")
        if scripted and block.signature_chunks is not None:
            problems.append(
                "signature_chunks; Gemini sends each thoughtSignature whole on one part"
            )
    if isinstance(block, ToolCall) and scripted:
        if isinstance(block.arguments, str):
            problems.append(
                "a functionCall with unparsed arguments; Gemini sends complete args objects "
                "(a call cut by MAX_TOKENS is dropped, never sent)"
            )
        if block.chunks is not None:
            problems.append("argument chunks; Gemini has no argument fragments, args come whole")
    signature = getattr(block, "signature", None)
    if isinstance(signature, str) and not _standard_base64(signature):
        problems.append(
            "a thoughtSignature that is not canonical standard base64; Gemini mints base64 "
            "and clients such as google-genai decode it as bytes"
        )
    return problems


def _response_problems(response: ScriptedResponse, where: str) -> list[str]:
    problems: list[str] = []
    if response.stop in ("pause", "cancelled"):
        problems.append(f"{where}: stop `{response.stop}`; Gemini has no such finishReason")
    if response.noise:
        problems.append(f"{where}: noise events; a Gemini stream carries only response chunks")
    seen_call = False
    for b, block in enumerate(response.blocks):
        problems += [f"{where}.blocks.{b}: {p}" for p in _block_problems(block, scripted=True)]
        if isinstance(block, ToolCall):
            if seen_call and block.signature is not None:
                problems.append(
                    f"{where}.blocks.{b}: a signature on a parallel call other than the first; "
                    "Gemini signs only the first functionCall of a response (rule 41)"
                )
            seen_call = True
    return problems


# ---------------------------------------------------------------- reading recorded responses

#: ``finishReason`` back to the neutral stop: the render table inverted (``STOP`` reads as
#: ``end``, and as ``tool_calls`` when the answer holds calls), plus the other
#: content-policy reasons of the FinishReason enum, which end an answer as SAFETY does.
#: The rest (OTHER, MALFORMED_FUNCTION_CALL, …) have no neutral stop: a read error.
READ_FINISH: dict[str, str] = {
    **{reason: stop for stop, reason in reversed(FINISH_REASONS.items())},
    **dict.fromkeys(
        ("RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"), "refusal"
    ),
}


def _read_part(part: object, at: str, place: str) -> ContentBlock | None:
    """One part of the answer in neutral form, as the request side reads a model part; a
    call the API sent without an id gets one from its ``place`` in the answer.  Parts
    with no neutral form (code execution, file data, kinds added later) give None."""
    if not isinstance(part, dict):
        raise ResponseReadError("a part is not an object", at)
    call = _get(part, "functionCall")
    if call is not None:
        if not isinstance(call, dict):
            raise ResponseReadError("`functionCall` is not an object", at)
        required(call, "name", str, at)
        if not isinstance(_get(call, "args") or {}, dict):
            raise ResponseReadError("`args` is not an object", at)
    return _content_block(part, place, _Ids([]))


def _merged(blocks: list[ContentBlock], block: ContentBlock) -> None:
    """A streamed part joins the open block of its kind: streams split a block's text
    over parts and put its signature on the last one (``_parts``).  A signed block is
    closed, and an empty-text part stands alone: the signature carrier of rule 43."""
    last = blocks[-1] if blocks else None
    if (
        isinstance(last, Reasoning | Text)
        and type(block) is type(last)
        and isinstance(block, Reasoning | Text)
        and last.signature is None
        and last.text
        and block.text
    ):
        update = {"text": last.text + block.text, "signature": block.signature}
        blocks[-1] = last.model_copy(update=update)
    else:
        blocks.append(block)


def _provider_error(error: object, at: str) -> ResponseReadError:
    """Google's error object (``{code, message, status}``) as a read error."""
    error = error if isinstance(error, dict) else {"message": error}
    code = error.get("status") or error.get("code")
    return ResponseReadError(f"provider error {code}: {error.get('message')}", at)


def _array_chunks(body: bytes) -> Iterator[tuple[str, dict[str, Any]]]:
    """A stream without ``alt=sse``: one JSON array written element by element.  A cut
    one lacks its closing bracket and may end inside an element, which is dropped the way
    an SSE event cut before its blank line is."""
    text = response_text(body)
    decoder = json.JSONDecoder()
    position, number = text.index("[") + 1, 0
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        if position >= len(text) or text[position] == "]":
            return
        number += 1
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            if _cut_at(text, error):
                return
            at = f"element {number}, byte {len(text[: error.pos].encode())}"
            raise ResponseReadError(f"the element is not JSON: {error.msg}", at) from None
        if not isinstance(value, dict):
            raise ResponseReadError("the element is not a JSON object", f"element {number}")
        yield f"element {number}", value


def _cut_at(text: str, error: json.JSONDecodeError) -> bool:
    """Whether JSON stopped making sense only because the text ended: inside a string,
    between tokens, or inside a bare word (``tru``, ``12.``) running to the end."""
    rest = text[error.pos :].rstrip()
    return error.msg.startswith("Unterminated") or re.fullmatch(r"[\w.+-]*", rest) is not None


def _sse_chunks(body: bytes) -> Iterator[tuple[str, dict[str, Any]]]:
    for event in read_events(body):
        yield event.at(), event.object()


def _read_chunks(chunks: Iterable[tuple[str, dict[str, Any]]], stream: bool) -> ScriptedResponse:
    """Candidate 0 of each GenerateContentResponse, parts in order (merged into blocks
    when streamed), the stop from its finishReason; a stream without one was cut
    (``no_finish``, rule 48; the FinishReason reference: empty means the model has not
    stopped).  Chunks without a candidate (usage only) are skipped; a
    prompt blocked before any candidate is a refusal.  Unknown fields and part kinds
    are skipped, as the API's JSON mapping lets a client do."""
    blocks: list[ContentBlock] = []
    stop, at, places = "no_finish", "body", 0
    for at, chunk in chunks:
        if "error" in chunk:
            raise _provider_error(chunk["error"], at)
        candidates = _get(chunk, "candidates")
        if candidates is None:
            blocked = _object(_get(chunk, "promptFeedback")).get("blockReason")
            stop = "refusal" if blocked is not None else stop
            continue
        if not isinstance(candidates, list):
            raise ResponseReadError("`candidates` is not an array", at)
        candidate = next(
            (c for c in candidates if isinstance(c, dict) and c.get("index", 0) == 0), None
        )
        if candidate is None:
            continue
        parts = _object(candidate.get("content")).get("parts", [])
        if not isinstance(parts, list):
            raise ResponseReadError("`content.parts` is not an array", at)
        for part in parts:
            block = _read_part(part, at, f"parts[{places}]")
            places += 1
            if block is not None and stream:
                _merged(blocks, block)
            elif block is not None:
                blocks.append(block)
        reason = _get(candidate, "finishReason")
        if reason is not None:
            if reason not in READ_FINISH:
                raise ResponseReadError(f"finishReason {reason!r} has no neutral stop", at)
            stop = READ_FINISH[reason]
    if stop == "end" and any(isinstance(b, ToolCall) for b in blocks):
        stop = "tool_calls"
    return neutral_response(stop, blocks, at)


# ---------------------------------------------------------------- the wire


class Gemini(Wire):
    """The Gemini API's generateContent and streamGenerateContent."""

    name: ClassVar[str] = "gemini"
    rules: ClassVar[tuple[Rule, ...]] = RULES
    sentinels: ClassVar[frozenset[str]] = frozenset({SENTINEL})

    # ------------------------------------------------------------ serving

    def serves(self, request: HttpRequest) -> bool:
        return _route(request) is not None

    def endpoint(self, model: str, stream: bool) -> str:
        """The model is in the path; so is whether the answer streams."""
        if stream:
            return f"/v1beta/models/{model}:{STREAM_METHOD}?alt=sse"
        return f"/v1beta/models/{model}:generateContent"

    def wants_stream(self, request: HttpRequest, view: RequestView) -> bool:
        route = _route(request)
        return route is not None and route["method"] == STREAM_METHOD

    def render(self, response: ScriptedResponse, context: RenderContext) -> HttpResponse:
        identity = _Identity.of(response, context)
        if not context.stream:
            return self._render_json(response, context, identity)
        chunks = _stream_chunks(response, context.model, identity)
        request = context.request
        if isinstance(request, GeminiRequestView) and not request.sse:
            frames = tuple(_json_array(chunks, closed=response.stop not in CUT_STOPS))
            content_type = "application/json; charset=UTF-8"
        else:
            frames = tuple(format_event(None, chunk) for chunk in chunks)
            content_type = "text/event-stream"
        return HttpResponse(200, b"".join(frames), (("content-type", content_type),), frames)

    def _render_json(
        self, response: ScriptedResponse, context: RenderContext, identity: _Identity
    ) -> HttpResponse:
        """The whole response, one part per block.  A cut has no JSON form: the nearest
        thing a non-streaming client meets is the API's internal error (500)."""
        if response.stop in CUT_STOPS:
            error = {"code": 500, "message": INTERNAL_ERROR, "status": STATUS_NAMES[500]}
            return json_response(500, {"error": error})
        parts = [p for block in response.blocks for p in _parts(block, stream=False)]
        finish = FINISH_REASONS[response.stop]
        return json_response(200, _response(parts, finish, context.model, identity))

    def error_response(self, violation: RuleViolation) -> HttpResponse:
        status = violation.rule.status
        error = {
            "code": status,
            "message": violation.message,
            "status": STATUS_NAMES.get(status, "UNKNOWN"),
        }
        return json_response(status, {"error": error})

    # ------------------------------------------------------------ reading responses

    def read_response(
        self, body: bytes, streaming: bool, *, dialect: str | None = None
    ) -> ScriptedResponse:
        """A stream is SSE ``data:`` chunks, or the JSON array a request without
        ``alt=sse`` gets; the answer of ``:generateContent`` is one chunk."""
        if not streaming:
            return _read_chunks([("body", read_json_body(body))], stream=False)
        array = body.lstrip().startswith(b"[")
        return _read_chunks(_array_chunks(body) if array else _sse_chunks(body), stream=True)

    # ------------------------------------------------------------ parsing

    def parse(self, request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
        """The body in neutral form.  Error texts are Google's JSON-parsing ones: NaN and
        Infinity are not JSON to the API either."""
        try:
            body = json.loads(request.body, parse_constant=_refuse_constant)
        except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
            raise RequestParseError(INVALID_JSON) from None
        if not isinstance(body, dict):
            raise RequestParseError(NOT_A_MESSAGE)
        raw_contents = _get(body, "contents")
        contents = raw_contents if isinstance(raw_contents, list) else []
        messages, locations = _neutral_messages(contents, _Ids.of(context, contents))
        route = _route(request)
        generation = _object(_get(body, "generationConfig"))
        return GeminiRequestView(
            wire=self.name,
            model=route["model"] if route else None,
            stream=route is not None and route["method"] == STREAM_METHOD,
            system=_system(_get(body, "systemInstruction")),
            tools=_tools(_get(body, "tools")),
            thinking=_thinking(_get(generation, "thinkingConfig")),
            max_tokens=values.integer(_get(generation, "maxOutputTokens")),
            messages=tuple(messages),
            locations=tuple(locations),
            raw=body,
            sse=_wants_sse(request.query),
        )

    def history_items(self, view: RequestView) -> list[Any]:
        contents = _get(view.raw, "contents")
        return list(contents) if isinstance(contents, list) else []

    # ------------------------------------------------------------ rules

    def validate(self, view: RequestView, context: ValidationContext) -> list[RuleViolation]:
        raw = _get(view.raw, "contents")
        contents = tuple(
            _Content.of(i, c) for i, c in enumerate(raw if isinstance(raw, list) else ())
        )
        check = _Check(view, context, contents)
        return [violation for run in CHECKS for violation in run(check)]

    # ------------------------------------------------------------ ledger hints

    def token_strength(self, block: Block, field_name: str) -> Strength:
        """Signatures on functionCall parts are enforced (rules 40, 41); on text and
        thought parts they only keep reasoning continuity (rule 44, F7)."""
        return "must" if isinstance(block, ToolCall) else "should"

    def companion(self, block: Block) -> str | None:
        """A call's signature stays with its call id; a text or thought signature may come
        back on the text it concluded, merged or not (rule 43), so it has no companion."""
        if isinstance(block, Reasoning | Text):
            return None
        return super().companion(block)

    # ------------------------------------------------------------ realism (lint)

    def realism(self, case: Case, dialect: str | None = None) -> list[str]:
        problems: list[str] = []
        for t, turn in enumerate(case.given.turns):
            for r, response in enumerate(turn.responses):
                problems += _response_problems(response, f"turns.{t}.responses.{r}")
        for m, message in enumerate(case.given.history):
            if message.role != "assistant":
                continue
            for b, saved in enumerate(message.blocks):
                if getattr(saved, "origin", None) is None:
                    problems += [
                        f"history.{m}.blocks.{b}: {p}"
                        for p in _block_problems(saved, scripted=False)
                    ]
        return problems


def _refuse_constant(name: str) -> Any:
    """NaN and Infinity, which Python's reader accepts and the API does not."""
    raise ValueError(name)
