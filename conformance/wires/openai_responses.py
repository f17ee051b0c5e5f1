"""The OpenAI Responses wire, ``POST /v1/responses``.

Four jobs: render a scripted turn as OpenAI sends it (the semantic SSE event stream, or
the JSON response object), parse a request body into the neutral view, validate it with
the rules of ``reference/wire-rules.md`` section B, answering with OpenAI's real error
texts and error body (``{"error": {"message", "type", "param", "code"}}``), and read a
recorded answer back into a scripted turn.

The wire is stateful: with ``store`` on (OpenAI's default) a request may continue a
stored response (``previous_response_id``) or name stored items by id (``item_reference``,
a reasoning item without ``encrypted_content``).  The parse expands those references
with what the provider served before, so the neutral view and ``history_items`` are the
conversation the provider sees, not the delta the client sent.  The ids the provider
mints (``resp_``, ``rs_``, ``msg_``, ``fc_``) are derived in one place, ``_Minted``, used
by render and by the expansion alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from conformance.cases.schema import Case, ScriptedResponse
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
)
from conformance.wires import values
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
from conformance.wires.sse import format_event, fragments, read_events

ENDPOINT = "/v1/responses"
#: The ``include`` value that makes reasoning items carry their ``encrypted_content``.
ENCRYPTED_CONTENT = "reasoning.encrypted_content"
#: A fixed ``created_at``: the same script renders the same bytes.
CREATED_AT = 1_750_000_000
#: An event type no client has seen: rule 21's stream may grow new event types.
FUTURE_EVENT = "response.conformance_future_event"

#: Stops that cut the stream before its terminal event.  ``cancelled`` is no Responses
#: stop (a realism problem); it is rendered as the cut it most resembles.
CUT_STOPS = frozenset({"no_finish", "cancelled"})
#: Stops under which a response may end inside an item (an unfinished call, say).
TRUNCATED_STOPS = frozenset({"max_tokens", "no_finish"})
#: Item types the model produces (they group into one neutral assistant message).
OUTPUT_TYPES = frozenset({"reasoning", "function_call"})
ROLES = ("assistant", "system", "developer", "user")
#: The prefix OpenAI checks a replayed item's id against, by item type.
ID_PREFIXES = {"function_call": "fc", "message": "msg", "reasoning": "rs"}
#: The keys each item type cannot do without (reasoning has rules of its own).
REQUIRED_ITEM_KEYS: dict[str, tuple[str, ...]] = {
    "function_call": ("call_id", "name", "arguments"),
    "function_call_output": ("call_id", "output"),
    "item_reference": ("id",),
    "message": ("role", "content"),
}

NOT_JSON = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
    "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
    "sent was not valid JSON. If you have trouble figuring out how to fix this, please "
    "contact us through our help center at help.openai.com.)"
)
SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"


@dataclass(frozen=True)
class ResponsesRule(Rule):
    """A rule whose error body also carries OpenAI's ``code`` and ``param``.

    ``param`` is a template: ``"{at}"`` puts the violation's location there (OpenAI's
    ``input[3].role``); ``None`` writes ``null``.
    """

    code: str | None = None
    param: str | None = "input"


# ---------------------------------------------------------------- rules, in check order

FIELD_REQUIRED = ResponsesRule(
    id="openai-responses/field-required",
    ref="wire-rules §B (request shape)",
    statement=(
        "A request names its `model`, and each input item carries the keys its type needs "
        "(a reasoning item an `id` when it has no `encrypted_content`)."
    ),
    source=(
        "Responses API reference (required parameters); text and code as OpenAI answers them "
        "in openai/codex#6926 and #6725 (`Missing required parameter: 'input[42].id'.`)"
    ),
    error="Missing required parameter: '{at}'.",
    code="missing_required_parameter",
    param="{at}",
)
REASONING_SUMMARY = ResponsesRule(
    id="openai-responses/reasoning-summary-required",
    ref="wire-rules §B24",
    statement="A replayed reasoning item keeps its `summary` (`[]` when empty), each part typed.",
    source=(
        "wire-rules rule 24 (its quoted text is a Responses-spec provider's, newo-ether/Agora"
        "#141); OpenAI's own text and code: GizClaw/flowcraft PR#528 (missing `summary` is "
        "`missing_required_parameter`), 64bit/async-openai#467 (`input[1].summary[0].type`)"
    ),
    error="Missing required parameter: '{at}'.",
    code="missing_required_parameter",
    param="{at}",
)
INVALID_ROLE = ResponsesRule(
    id="openai-responses/invalid-role",
    ref="wire-rules §B28",
    statement=(
        "A message item's role is assistant, system, developer or user: Chat-style `tool` "
        "messages are function_call_output items on this wire."
    ),
    source=(
        "wire-rules rule 28: Chevey339/kelivo PR#281; anomalyco/opencode#10803 (exact text); "
        "`param`/`code` follow OpenAI's invalid-value errors (not quoted in the catalogue)"
    ),
    error=(
        "Invalid value: '{role}'. Supported values are: 'assistant', 'system', 'developer', "
        "and 'user'."
    ),
    code="invalid_value",
    param="{at}",
)
CHAT_TOOL_CALLS = ResponsesRule(
    id="openai-responses/chat-tool-calls",
    ref="wire-rules §B28",
    statement="A message item has no Chat-style `tool_calls`: calls are function_call items.",
    source=(
        "wire-rules rule 28 (Chat-style history must be converted); the text is OpenAI's "
        "unknown-parameter form as openai/openai-go#392 shows it (not quoted in the catalogue)"
    ),
    error="Unknown parameter: '{at}'.",
    code="unknown_parameter",
    param="{at}",
)
ITEM_ID_PREFIX = ResponsesRule(
    id="openai-responses/item-id-prefix",
    ref="wire-rules §B28",
    statement=(
        "An input item's id has its type's prefix: `fc` for function_call (never the "
        "`call_` id or a `msg_` id), `msg` for message, `rs` for reasoning."
    ),
    source=(
        "wire-rules rule 28: continuedev/continue PR#11785; full text in nodetool-ai/nodetool "
        "PR#4252 and jlcodes99/cockpit-tools#2090; an empty id is tolerated (stacklok/mecatl"
        "#406); `code` inferred, not quoted"
    ),
    error="Invalid '{at}': '{id}'. Expected an ID that begins with '{prefix}'.",
    code="invalid_value",
    param="{at}",
)
PREVIOUS_RESPONSE_NOT_FOUND = ResponsesRule(
    id="openai-responses/previous-response-not-found",
    ref="wire-rules §B25",
    statement="`previous_response_id` names a response this provider stored (`store` on).",
    source=(
        "maximhq/bifrost#2441 (text and code `previous_response_not_found`, with `store` "
        "off); not quoted in the catalogue"
    ),
    error="Previous response with id '{id}' not found.",
    status=404,
    code="previous_response_not_found",
    param="previous_response_id",
)
ITEM_NOT_FOUND = ResponsesRule(
    id="openai-responses/item-not-found",
    ref="wire-rules §B25",
    statement=(
        "An item sent by id only (an item_reference, or a reasoning item without "
        "`encrypted_content`) names an item the provider stored; with `store: false` none is."
    ),
    source=(
        "wire-rules rule 25: anomalyco/opencode#7724, #8987, PR#2480; can1357/oh-my-pi#41; "
        "router-for-me/CLIProxyAPI#2381 (status, param and code)"
    ),
    error=(
        "Item with id '{id}' not found. Items are not persisted when `store` is set to false. "
        "Try again with `store` set to true, or remove this item from your input."
    ),
    status=404,
)
ENCRYPTED_CONTENT_VALID = ResponsesRule(
    id="openai-responses/encrypted-content-valid",
    ref="wire-rules §B22, §B30",
    statement=(
        "A reasoning item's `encrypted_content` is one this provider minted, byte for byte: "
        "not the incomplete value of `output_item.added`, not joined, not foreign."
    ),
    source=(
        "wire-rules rules 22 and 30: Wei-Shaw/sub2api#3138, #2863; pydantic/pydantic-ai#4608; "
        "edison7009/EchoBird#255; openai/codex#8145 (param and code)"
    ),
    error=(
        "The encrypted content {abbreviated} could not be verified. Reason: Encrypted content "
        "could not be decrypted or parsed."
    ),
    code="invalid_encrypted_content",
    param=None,
)
REASONING_FOLLOWED = ResponsesRule(
    id="openai-responses/reasoning-followed",
    ref="wire-rules §B26",
    statement=(
        "A reasoning item is immediately followed by the item it produced (a message or "
        "function_call; the very one the provider minted after it, when that carries its "
        "id), or by further reasoning items whose run ends in one (seed §108)."
    ),
    source=(
        "wire-rules rule 26: openai/codex#1227; vercel/ai#7099; continuedev/continue#8933 "
        "(param and code); openclaw/openclaw#1158"
    ),
    error="Item '{id}' of type 'reasoning' was provided without its required following item.",
)
REASONING_REQUIRED = ResponsesRule(
    id="openai-responses/reasoning-required",
    ref="wire-rules §B26, §B27",
    statement=(
        "A message or function_call carrying the id the provider minted travels right after "
        "the reasoning item that produced it."
    ),
    source=(
        "wire-rules rules 26 and 27: openai/codex#33044; cline/cline#12242, mastra-ai/mastra"
        "#8738, continuedev/continue#10018 (the function_call text, param and code)"
    ),
    error=(
        "Item '{id}' of type '{type}' was provided without its required 'reasoning' item: "
        "'{reasoning}'."
    ),
)
CALL_FOR_OUTPUT = ResponsesRule(
    id="openai-responses/call-for-output",
    ref="wire-rules §B28",
    statement="Every function_call_output answers a function_call earlier in the input.",
    source=(
        "wire-rules rule 28: continuedev/continue#10092 (text, param and code); "
        "leookun/cursor-byok#307; microsoft/vscode#320060"
    ),
    error="No tool call found for function call output with call_id {call_id}.",
)
OUTPUT_FOR_CALL = ResponsesRule(
    id="openai-responses/output-for-call",
    ref="wire-rules §B28 (the converse)",
    statement="Every function_call in the input is answered by a later function_call_output.",
    source=(
        "not quoted in the catalogue: smallmain/vscode-unify-chat-provider#40 (`400 No tool "
        "output found for function call call_eM9v….`), jlcodes99/cockpit-tools#1234; param "
        "and code assumed as for rule 28"
    ),
    error="No tool output found for function call {call_id}.",
)

RULES: tuple[Rule, ...] = (
    FIELD_REQUIRED,
    REASONING_SUMMARY,
    INVALID_ROLE,
    CHAT_TOOL_CALLS,
    ITEM_ID_PREFIX,
    PREVIOUS_RESPONSE_NOT_FOUND,
    ITEM_NOT_FOUND,
    ENCRYPTED_CONTENT_VALID,
    REASONING_FOLLOWED,
    REASONING_REQUIRED,
    CALL_FOR_OUTPUT,
    OUTPUT_FOR_CALL,
)


class ResponsesRequestView(RequestView):
    """The neutral view plus what a Responses request says about state.

    ``items`` is the conversation as the provider sees it: the stored conversation a
    ``previous_response_id`` continues, then the body's ``input`` with every resolvable
    ``item_reference`` replaced by the stored item.
    """

    include: tuple[str, ...] = ()
    store: bool = True
    previous_response_id: str | None = None
    items: tuple[Any, ...] = ()

    @property
    def encrypted(self) -> bool:
        """Whether reasoning items of the answer carry their ``encrypted_content``."""
        return ENCRYPTED_CONTENT in self.include


# ---------------------------------------------------------------- small helpers


def _id(value: object) -> str | None:
    """An item id; an empty one counts as none (OpenAI tolerates ``"id": ""``)."""
    return value if isinstance(value, str) and value else None


def _item_type(item: dict[str, Any]) -> str | None:
    """An input item's type; a bare ``{"role", "content"}`` is a message."""
    kind = item.get("type")
    if isinstance(kind, str):
        return kind
    return "message" if "role" in item else None


def _abbreviated(content: str) -> str:
    """Encrypted content the way OpenAI's error names it: head and tail only."""
    return f"{content[:4]}...{content[-4:]}"


# ---------------------------------------------------------------- what the provider mints


@dataclass(frozen=True)
class _Minted:
    """The ids and output items of one scripted response, as the provider mints them.

    Render and the expansion of references both read ids from here, so a stored id
    always names the item that was served under it.
    """

    index: int
    response: ScriptedResponse
    seed: str  # what every id and usage figure of this response derives from
    response_id: str
    item_ids: tuple[str | None, ...]  # per block; None for a block with no item

    @classmethod
    def of(cls, response: ScriptedResponse, index: int) -> _Minted:
        seed = values.digest(index, response.model_dump_json())
        ids: list[str | None] = []
        for b, block in enumerate(response.blocks):
            if isinstance(block, Reasoning):
                ids.append(block.id or "rs_" + values.digest("reasoning", seed, b)[:48])
            elif isinstance(block, Text):
                ids.append("msg_" + values.digest("message", seed, b)[:48])
            elif isinstance(block, ToolCall):
                ids.append("fc_" + values.digest("function_call", seed, block.id)[:48])
            else:
                ids.append(None)
        return cls(
            index, response, seed, "resp_" + values.digest("response", seed)[:48], tuple(ids)
        )

    def items(self) -> list[tuple[int, str, ContentBlock]]:
        """``(block index, item id, block)`` of every block that becomes an item."""
        return [
            (b, item_id, block)
            for b, (item_id, block) in enumerate(
                zip(self.item_ids, self.response.blocks, strict=True)
            )
            if item_id is not None
        ]

    def done_items(self, encrypted: bool) -> list[dict[str, Any]]:
        """Every output item in its complete (``output_item.done``) form."""
        last = len(self.items()) - 1
        incomplete = self.response.stop == "max_tokens"
        return [
            _done_item(
                block,
                item_id,
                encrypted=encrypted,
                refusal=self.response.stop == "refusal",
                incomplete=incomplete and k == last,
            )
            for k, (_, item_id, block) in enumerate(self.items())
        ]


def _done_item(
    block: ContentBlock, item_id: str, *, encrypted: bool, refusal: bool, incomplete: bool
) -> dict[str, Any]:
    status = "incomplete" if incomplete else "completed"
    if isinstance(block, Reasoning):
        return {
            "type": "reasoning",
            "id": item_id,
            "summary": [{"type": "summary_text", "text": s} for s in block.summary or ()],
            "encrypted_content": block.signature if encrypted else None,
        }
    if isinstance(block, Text):
        return {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": status,
            "content": [_content_part(block.text, refusal)],
        }
    if isinstance(block, ToolCall):
        return {
            "type": "function_call",
            "id": item_id,
            "call_id": block.id,
            "name": block.name,
            "arguments": values.argument_text(block),
            "status": status,
        }
    raise ValueError(f"a {block.kind} block has no Responses output item")


def _content_part(text: str, refusal: bool) -> dict[str, Any]:
    if refusal:
        return {"type": "refusal", "refusal": text}
    return {"type": "output_text", "text": text, "annotations": []}


def _added_item(block: ContentBlock, item_id: str, encrypted: bool) -> dict[str, Any]:
    """An item as ``output_item.added`` announces it: nothing streamed yet, and a
    reasoning item's ``encrypted_content`` incomplete (its first signature chunk)."""
    if isinstance(block, Reasoning):
        first = fragments(block.signature or "", block.signature_chunks)[:1]
        content = first[0] if encrypted and first and block.signature_chunks else None
        return {"type": "reasoning", "id": item_id, "summary": [], "encrypted_content": content}
    if isinstance(block, Text):
        return {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
    if isinstance(block, ToolCall):
        return {
            "type": "function_call",
            "id": item_id,
            "call_id": block.id,
            "name": block.name,
            "arguments": "",
            "status": "in_progress",
        }
    raise ValueError(f"a {block.kind} block has no Responses output item")


# ---------------------------------------------------------------- rendering

#: One event before numbering: its type, its fields, and whether it is a delta.
_Event = tuple[str, dict[str, Any], bool]


def _item_events(
    block: ContentBlock, item_id: str, index: int, done: dict[str, Any], added: dict[str, Any]
) -> list[_Event]:
    """Every event of one output item, ``output_item.added`` to ``output_item.done``."""
    at = {"item_id": item_id, "output_index": index}
    events: list[_Event] = [
        ("response.output_item.added", {"output_index": index, "item": added}, False)
    ]
    if isinstance(block, Reasoning):
        for k, summary in enumerate(block.summary or ()):
            part = {**at, "summary_index": k}
            empty = {"type": "summary_text", "text": ""}
            events.append(("response.reasoning_summary_part.added", {**part, "part": empty}, False))
            events += [
                ("response.reasoning_summary_text.delta", {**part, "delta": piece}, True)
                for piece in fragments(summary, block.chunks)
            ]
            full = {"type": "summary_text", "text": summary}
            events.append(
                ("response.reasoning_summary_text.done", {**part, "text": summary}, False)
            )
            events.append(("response.reasoning_summary_part.done", {**part, "part": full}, False))
    elif isinstance(block, Text):
        part = {**at, "content_index": 0}
        refusal = done["content"][0]["type"] == "refusal"
        kind = "refusal" if refusal else "output_text"
        extra: dict[str, Any] = {} if refusal else {"logprobs": []}
        events.append(
            ("response.content_part.added", {**part, "part": _content_part("", refusal)}, False)
        )
        events += [
            (f"response.{kind}.delta", {**part, "delta": piece, **extra}, True)
            for piece in fragments(block.text, block.chunks)
        ]
        field = "refusal" if refusal else "text"
        events.append((f"response.{kind}.done", {**part, field: block.text, **extra}, False))
        events.append(("response.content_part.done", {**part, "part": done["content"][0]}, False))
    elif isinstance(block, ToolCall):
        events += [
            ("response.function_call_arguments.delta", {**at, "delta": piece}, True)
            for piece in fragments(values.argument_text(block), block.chunks)
        ]
        events.append(
            ("response.function_call_arguments.done", {**at, "arguments": done["arguments"]}, False)
        )
    events.append(("response.output_item.done", {"output_index": index, "item": done}, False))
    return events


def _cut(events: list[_Event]) -> list[_Event]:
    """An item's events up to its last delta (or its announcement when it has none)."""
    last = max((k for k, (_, _, delta) in enumerate(events) if delta), default=0)
    return events[: last + 1]


def _output_tokens(blocks: Sequence[ContentBlock]) -> tuple[int, int]:
    """Plausible deterministic (output, reasoning) token counts: four characters a token."""
    visible = reasoning = 0
    for block in blocks:
        if isinstance(block, Reasoning):
            reasoning += len("".join(block.summary or ())) + len(block.signature or "")
        elif isinstance(block, Text):
            visible += len(block.text)
        elif isinstance(block, ToolCall):
            visible += len(values.argument_text(block))
    return max(1, (visible + reasoning) // 4), reasoning // 4


def _response_object(
    minted: _Minted, model: str, status: str, output: list[dict[str, Any]], final: bool
) -> dict[str, Any]:
    """The response object the created, in-progress and terminal events (and the JSON
    answer) carry; ``final`` adds usage and the incomplete details."""
    incomplete = final and status == "incomplete"
    usage: dict[str, Any] | None = None
    if final:
        input_tokens = 100 + int(values.digest("input", minted.seed)[:6], 16) % 900
        output_tokens, reasoning_tokens = _output_tokens(minted.response.blocks)
        usage = {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
            "total_tokens": input_tokens + output_tokens,
        }
    return {
        "id": minted.response_id,
        "object": "response",
        "created_at": CREATED_AT,
        "status": status,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "model": model,
        "output": output,
        "usage": usage,
    }


def _final_status(response: ScriptedResponse) -> str:
    return "incomplete" if response.stop == "max_tokens" else "completed"


def _stream_events(
    minted: _Minted, context: RenderContext, encrypted: bool
) -> list[tuple[str, dict[str, Any]]]:
    """Every SSE event of a streamed response, numbered from 0.

    Unknown-event noise goes round-robin into the gaps between items (right after
    ``response.in_progress`` when there is no gap); Responses streams have no pings.
    """
    response = minted.response
    items = minted.items()
    done = minted.done_items(encrypted)
    gaps = max(len(items) - 1, 0)
    noise_after: dict[int, list[_Event]] = {}
    for k in range(response.noise.count("unknown-event")):
        noise_after.setdefault(k % gaps if gaps else -1, []).append((FUTURE_EVENT, {}, False))
    opening = _response_object(minted, context.model, "in_progress", [], final=False)
    events: list[_Event] = [
        ("response.created", {"response": opening}, False),
        ("response.in_progress", {"response": opening}, False),
        *noise_after.get(-1, []),
    ]
    cut = response.stop in CUT_STOPS
    for k, (_, item_id, block) in enumerate(items):
        added = _added_item(block, item_id, encrypted)
        item = _item_events(block, item_id, k, done[k], added)
        if cut and k == len(items) - 1:
            events += _cut(item)
            break
        events += item
        events += noise_after.get(k, [])
    if not cut:
        status = _final_status(response)
        terminal = _response_object(minted, context.model, status, done, final=True)
        events.append((f"response.{status}", {"response": terminal}, False))
    return [
        (kind, {"type": kind, "sequence_number": n, **fields})
        for n, (kind, fields, _) in enumerate(events)
    ]


# ---------------------------------------------------------------- what the provider knows


@dataclass(frozen=True)
class _Output:
    """One output item the provider minted, with what rule 26 pairs it with."""

    id: str
    block: ContentBlock
    item: dict[str, Any]  # its complete form, as the provider stores it
    stored: bool
    follower: str | None  # a reasoning item: the id of the item minted right after it
    producer: str | None  # a message or call: the reasoning item minted right before it


@dataclass(frozen=True)
class _Book:
    """What the provider remembers before a request: every item it minted (by id), the
    responses it stored, and the encrypted contents it issued."""

    outputs: dict[str, _Output]
    responses: dict[str, tuple[ResponsesRequestView, _Minted]]
    minted: frozenset[str]

    @classmethod
    def of(cls, context: ValidationContext) -> _Book:
        views = {index: view for view, index in context.answered}
        outputs: dict[str, _Output] = {}
        responses: dict[str, tuple[ResponsesRequestView, _Minted]] = {}
        signatures: set[str] = set()
        for index, response in enumerate(context.served):
            minted = _Minted.of(response, index)
            view = views.get(index)
            requested = view if isinstance(view, ResponsesRequestView) else None
            stored = requested is not None and requested.store
            if requested is not None and stored:
                responses[minted.response_id] = (requested, minted)
            items = minted.items()
            done = minted.done_items(requested is not None and requested.encrypted)
            for k, (_, item_id, block) in enumerate(items):
                previous = items[k - 1] if k > 0 else None
                if isinstance(block, Reasoning):
                    follower = items[k + 1][1] if k + 1 < len(items) else None
                    outputs[item_id] = _Output(item_id, block, done[k], stored, follower, None)
                    if block.signature is not None:
                        signatures.add(block.signature)
                    continue
                produced = previous is not None and isinstance(previous[2], Reasoning)
                producer = previous[1] if previous is not None and produced else None
                outputs[item_id] = _Output(item_id, block, done[k], stored, None, producer)
        history_stored = context.options.store is not False
        for message in context.history:
            if message.role != "assistant":
                continue
            for saved in message.blocks:
                if not isinstance(saved, Reasoning) or saved.origin is not None:
                    continue
                if saved.signature is not None:
                    signatures.add(saved.signature)
                if saved.id is not None:
                    item = _done_item(
                        saved, saved.id, encrypted=True, refusal=False, incomplete=False
                    )
                    outputs[saved.id] = _Output(saved.id, saved, item, history_stored, None, None)
        return cls(outputs, responses, frozenset(signatures))

    def stored(self, item_id: str | None) -> _Output | None:
        found = self.outputs.get(item_id or "")
        return found if found is not None and found.stored else None

    def by_signature(self, content: str) -> _Output | None:
        return next(
            (
                o
                for o in self.outputs.values()
                if isinstance(o.block, Reasoning) and o.block.signature == content
            ),
            None,
        )


EMPTY_BOOK = _Book({}, {}, frozenset())


@dataclass(frozen=True)
class _Entry:
    """One item of the conversation the provider sees, and where it came from:
    ``index`` is its position in the body's ``input`` (None: expanded from
    ``previous_response_id``)."""

    raw: Any
    at: str
    index: int | None

    @property
    def item(self) -> dict[str, Any]:
        return self.raw if isinstance(self.raw, dict) else {}

    @property
    def kind(self) -> str | None:
        return _item_type(self.item)


@dataclass(frozen=True)
class _Conversation:
    """A body's input, expanded with what the provider stored."""

    entries: tuple[_Entry, ...]
    store: bool
    book: _Book
    previous_found: bool

    @classmethod
    def of(cls, body: dict[str, Any], context: ValidationContext | None) -> _Conversation:
        book = _Book.of(context) if context is not None else EMPTY_BOOK
        store = body.get("store") is not False
        entries: list[_Entry] = []
        previous = _id(body.get("previous_response_id"))
        found = book.responses.get(previous or "")
        if found is not None:
            earlier, minted = found
            entries += [_Entry(item, "previous_response_id", None) for item in earlier.items]
            entries += [
                _Entry(item, "previous_response_id", None)
                for item in minted.done_items(earlier.encrypted)
            ]
        raw_input = body.get("input", [])
        if isinstance(raw_input, str):
            entries.append(_Entry({"role": "user", "content": raw_input}, "input", 0))
        elif isinstance(raw_input, list):
            for i, item in enumerate(raw_input):
                stored = book.stored(_id(item.get("id"))) if _is_reference(item) else None
                raw = stored.item if stored is not None and store else item
                entries.append(_Entry(raw, f"input[{i}]", i))
        return cls(tuple(entries), store, book, previous is None or found is not None)

    @property
    def sent(self) -> list[_Entry]:
        """The entries the body's ``input`` itself holds (references resolved)."""
        return [e for e in self.entries if e.index is not None]

    def reasoning_id(self, item: dict[str, Any]) -> str | None:
        """A reasoning item's id; one sent without (OpenAI tolerates it) is known by its
        encrypted content, which the provider decrypts."""
        own = _id(item.get("id"))
        content = item.get("encrypted_content")
        if own is None and isinstance(content, str):
            found = self.book.by_signature(content)
            return found.id if found is not None else None
        return own

    def signature(self, item: dict[str, Any]) -> str | None:
        """A reasoning item's encrypted content, or the stored one its id names."""
        content = item.get("encrypted_content")
        if isinstance(content, str):
            return content
        stored = self.book.stored(_id(item.get("id"))) if self.store else None
        return stored.block.signature if stored and isinstance(stored.block, Reasoning) else None


def _is_reference(item: object) -> bool:
    return isinstance(item, dict) and item.get("type") == "item_reference"


# ---------------------------------------------------------------- parsing


def _message_blocks(content: object, at: str) -> list[tuple[ContentBlock, str]]:
    """A message item's content in neutral form, each block with its location."""
    if isinstance(content, str):
        return [(Text(text=content), f"{at}.content")] if content else []
    found: list[tuple[ContentBlock, str]] = []
    for j, part in enumerate(content if isinstance(content, list) else []):
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        where = f"{at}.content[{j}]"
        if kind in ("input_text", "output_text", "text"):
            found.append((Text(text=values.text(part.get("text"))), where))
        elif kind == "refusal":
            found.append((Text(text=values.text(part.get("refusal"))), where))
        elif kind == "input_image":
            media = _data_url(part.get("image_url"))
            if media is not None:
                found.append((media, where))
    return found


def _data_url(value: object) -> Media | None:
    """An inline ``data:<mime>;base64,<data>`` image as a media block."""
    if not isinstance(value, str) or not value.startswith("data:"):
        return None
    head, _, data = value[len("data:") :].partition(",")
    mime, _, encoding = head.partition(";")
    return Media(mime=mime, data=data) if encoding == "base64" else None


def _output_content(output: object) -> str | tuple[ContentBlock, ...]:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return tuple(b for b, _ in _message_blocks(output, ""))
    return values.compact(output) if output is not None else ""


def _item_block(entry: _Entry, conversation: _Conversation) -> Block | None:
    """An output-side or tool item in neutral form (None: no such neutral block)."""
    item, kind = entry.item, entry.kind
    if kind == "reasoning":
        summary = item.get("summary")
        texts = (
            tuple(values.text(s.get("text")) for s in summary if isinstance(s, dict))
            if isinstance(summary, list)
            else ()
        )
        content = item.get("content")
        text = (
            "".join(values.text(c.get("text")) for c in content if isinstance(c, dict))
            if isinstance(content, list)
            else ""
        )
        return Reasoning(
            text=text,
            signature=conversation.signature(item),
            id=conversation.reasoning_id(item),
            summary=texts or None,
        )
    if kind == "function_call":
        raw = values.text(item.get("arguments"))
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        arguments: dict[str, Any] | str = parsed if isinstance(parsed, dict) else raw
        return ToolCall(
            id=values.text(item.get("call_id")),
            name=values.text(item.get("name")),
            arguments=arguments,
        )
    if kind == "function_call_output":
        return ToolResult(
            call_id=values.text(item.get("call_id")), content=_output_content(item.get("output"))
        )
    return None


def _side(entry: _Entry) -> Role | None:
    """Which neutral message an item belongs to (None: it has no neutral form)."""
    kind, role = entry.kind, entry.item.get("role")
    if kind in OUTPUT_TYPES or (kind == "message" and role == "assistant"):
        return "assistant"
    if kind == "function_call_output":
        return "tool"
    if kind == "message" and role == "user":
        return "user"
    if kind == "message" and role in ("system", "developer"):
        return "system"
    return None


def _neutral_messages(
    conversation: _Conversation,
) -> tuple[list[Message], list[tuple[str, tuple[str, ...]]]]:
    """Runs of output-side items become one assistant message, runs of outputs one tool
    message; every user, system or developer message item is a message of its own."""
    messages: list[Message] = []
    locations: list[tuple[str, tuple[str, ...]]] = []
    runs: list[tuple[Role, list[Block], list[str], str]] = []
    for entry in conversation.entries:
        side = _side(entry)
        if side is None:
            continue
        placed: list[tuple[Block, str]]
        if entry.kind == "message":
            placed = list(_message_blocks(entry.item.get("content"), entry.at))
        else:
            block = _item_block(entry, conversation)
            placed = [(block, entry.at)] if block is not None else []
        if side in ("user", "system") or not runs or runs[-1][0] != side:
            runs.append((side, [], [], entry.at))
        runs[-1][1].extend(b for b, _ in placed)
        runs[-1][2].extend(at for _, at in placed)
    for role, blocks, where, at in runs:
        messages.append(Message(role=role, blocks=tuple(blocks)))
        locations.append((at, tuple(where)))
    return messages, locations


def _thinking(value: object) -> ThinkingConfig:
    """``reasoning`` present means the model reasons at its own depth: adaptive."""
    return ThinkingConfig(mode="adaptive") if isinstance(value, dict) else ThinkingConfig()


# ---------------------------------------------------------------- validation


def _violation(rule: Rule, location: str | None = None, **fields: object) -> RuleViolation:
    """The rule broken at ``location``, its error text filled in with ``fields``."""
    return RuleViolation(rule, rule.error.format(**fields), location)


def _required(check: _Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    if "model" not in body:
        yield _violation(FIELD_REQUIRED, "model", at="model")
    for entry in check.sent:
        item, kind = entry.item, entry.kind
        missing = [key for key in REQUIRED_ITEM_KEYS.get(kind or "", ()) if key not in item]
        anonymous = _id(item.get("id")) is None
        if kind == "reasoning" and anonymous and not isinstance(item.get("encrypted_content"), str):
            missing.append("id")
        for key in missing:
            yield _violation(FIELD_REQUIRED, f"{entry.at}.{key}", at=f"{entry.at}.{key}")


def _summary(check: _Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    for entry in check.sent:
        if entry.kind != "reasoning":
            continue
        summary = entry.item.get("summary")
        if not isinstance(summary, list):
            at = f"{entry.at}.summary"
            yield _violation(REASONING_SUMMARY, at, at=at)
            continue
        for k, part in enumerate(summary):
            if isinstance(part, dict) and "type" not in part:
                at = f"{entry.at}.summary[{k}].type"
                yield _violation(REASONING_SUMMARY, at, at=at)


def _chat_shapes(check: _Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    for entry in check.sent:
        if entry.kind != "message":
            continue
        role = entry.item.get("role")
        if isinstance(role, str) and role not in ROLES:
            at = f"{entry.at}.role"
            yield _violation(INVALID_ROLE, at, at=at, role=role)
    for entry in check.sent:
        if entry.kind == "message" and "tool_calls" in entry.item:
            at = f"{entry.at}.tool_calls"
            yield _violation(CHAT_TOOL_CALLS, at, at=at)


def _id_prefix(check: _Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    for entry in check.sent:
        prefix = ID_PREFIXES.get(entry.kind or "")
        item_id = _id(entry.item.get("id"))
        if prefix is not None and item_id is not None and not item_id.startswith(prefix):
            at = f"{entry.at}.id"
            yield _violation(ITEM_ID_PREFIX, at, at=at, id=item_id, prefix=prefix)


def _references(check: _Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    """Rule 25: what is sent by id alone must be stored, and with ``store`` off nothing is."""
    if not check.previous_found:
        previous = body.get("previous_response_id")
        yield _violation(PREVIOUS_RESPONSE_NOT_FOUND, "previous_response_id", id=previous)
    for entry in check.sent:
        item, kind = entry.item, entry.kind
        by_id = kind == "item_reference" or (
            kind == "reasoning" and not isinstance(item.get("encrypted_content"), str)
        )
        item_id = _id(item.get("id"))
        if (
            by_id
            and item_id is not None
            and (not check.store or check.book.stored(item_id) is None)
        ):
            yield _violation(ITEM_NOT_FOUND, entry.at, id=item_id)


def _encrypted_content(check: _Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    for entry in check.sent:
        content = entry.item.get("encrypted_content")
        if (
            entry.kind == "reasoning"
            and isinstance(content, str)
            and content not in check.book.minted
        ):
            at = f"{entry.at}.encrypted_content"
            yield _violation(ENCRYPTED_CONTENT_VALID, at, abbreviated=_abbreviated(content))


def _produced_by(entry: _Entry | None) -> bool:
    """Whether an item can be what a reasoning item produced."""
    return entry is not None and entry.kind != "reasoning" and _side(entry) == "assistant"


def _reasoning_pairs(check: _Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    """Rule 26, both ways, on the items the client sent (stored ones are the provider's
    own business).  An item is paired by the ids the provider minted; an item without
    its original id pairs with whatever output item sits next to it."""
    entries = check.entries
    for k, entry in enumerate(entries):
        if entry.index is None or entry.kind != "reasoning":
            continue
        after = entries[k + 1] if k + 1 < len(entries) else None
        # Several reasoning items may precede one output item (seed §108: a live response
        # carried [reasoning, reasoning, function_call]); the run must end in one.
        ending = next((e for e in entries[k + 1 :] if e.kind != "reasoning"), None)
        reasoning_id = check.reasoning_id(entry.item)
        minted = check.book.outputs.get(reasoning_id or "")
        next_id = _id(after.item.get("id")) if after is not None else None
        wrong = (
            minted is not None
            and minted.follower is not None
            and next_id in check.book.outputs
            and next_id != minted.follower
        )
        chained = after is not None and after.kind == "reasoning"
        if not (_produced_by(after) or (chained and _produced_by(ending))) or wrong:
            shown = reasoning_id or entry.at
            yield _violation(REASONING_FOLLOWED, entry.at, id=shown)
    for k, entry in enumerate(entries):
        item_id = _id(entry.item.get("id"))
        minted = check.book.outputs.get(item_id or "")
        if entry.index is None or minted is None or minted.producer is None:
            continue
        before = entries[k - 1] if k > 0 else None
        paired = (
            before is not None
            and before.kind == "reasoning"
            and check.reasoning_id(before.item) == minted.producer
        )
        if not paired:
            yield _violation(
                REASONING_REQUIRED, entry.at, id=item_id, type=entry.kind, reasoning=minted.producer
            )


def _tool_pairing(check: _Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    """Rule 28 and its converse, over the whole conversation the provider sees."""
    calls = [(k, e) for k, e in enumerate(check.entries) if e.kind == "function_call"]
    outputs = [(k, e) for k, e in enumerate(check.entries) if e.kind == "function_call_output"]
    for k, entry in outputs:
        call_id = entry.item.get("call_id")
        if not any(c.item.get("call_id") == call_id for j, c in calls if j < k):
            yield _violation(CALL_FOR_OUTPUT, entry.at, call_id=call_id)
    for k, entry in calls:
        call_id = entry.item.get("call_id")
        if not any(o.item.get("call_id") == call_id for j, o in outputs if j > k):
            yield _violation(OUTPUT_FOR_CALL, entry.at, call_id=call_id)


CHECKS = (
    _required,
    _summary,
    _chat_shapes,
    _id_prefix,
    _references,
    _encrypted_content,
    _reasoning_pairs,
    _tool_pairing,
)


# ---------------------------------------------------------------- realism


def _block_problems(
    block: Block, *, scripted: bool, truncated: bool, last: bool, followed_by: Block | None
) -> list[str]:
    """Why OpenAI never sends this block (``scripted``: in a served response)."""
    problems: list[str] = []
    if isinstance(block, Text | ToolCall) and block.signature is not None:
        problems.append(
            f"a {block.kind} block carries a signature; Responses signs only reasoning "
            "(encrypted_content)"
        )
    if isinstance(block, Media) and scripted:
        problems.append("Responses output items carry no media")
    unparsed = isinstance(block, ToolCall) and isinstance(block.arguments, str)
    if unparsed and scripted and not (truncated and last):
        problems.append(
            "a function_call with unparsed arguments that is not the last item of a "
            "truncated response (stop max_tokens or no_finish); only an unfinished call "
            "has them"
        )
    if not isinstance(block, Reasoning):
        return problems
    if block.redacted:
        problems.append("a redacted reasoning block; Responses has no redacted_thinking shape")
    if block.text:
        problems.append("reasoning with text; Responses shows no raw reasoning text (use summary)")
    if block.id is not None and not block.id.startswith("rs_"):
        problems.append(f"a reasoning id {block.id!r}; OpenAI's reasoning item ids begin `rs_`")
    if not scripted:
        return problems
    if block.signature_chunks is not None and len(block.signature_chunks) > 2:
        problems.append(
            "encrypted_content in more than 2 pieces; it arrives whole in output_item.done "
            "(output_item.added may carry an incomplete first piece)"
        )
    if block.signature is None and not block.redacted and not (truncated and last):
        problems.append(
            "a reasoning item without encrypted_content (signature); OpenAI encrypts every "
            "reasoning item unless the response is cut inside it"
        )
    if followed_by is None and not truncated:
        problems.append(
            "a reasoning item not followed by the item it produced; only a truncated response "
            "(stop max_tokens or no_finish) ends on reasoning"
        )
    return problems


def _response_problems(response: ScriptedResponse) -> list[str]:
    problems: list[str] = []
    if response.stop == "pause":
        problems.append("stop `pause`; Responses has no paused turn")
    if response.stop == "cancelled":
        problems.append("stop `cancelled`; a Responses stream ends completed, incomplete or failed")
    if "ping" in response.noise:
        problems.append("noise `ping`; Responses streams send no ping events")
    return problems


# ---------------------------------------------------------------- reading recorded responses

#: ``incomplete_details.reason`` back to the neutral stop: the two reasons OpenAI
#: documents for ``status: incomplete``.
INCOMPLETE_STOPS: dict[str, str] = {"max_output_tokens": "max_tokens", "content_filter": "refusal"}
#: Delta events, by the part of an item they extend.
TEXT_DELTAS = frozenset({"response.output_text.delta", "response.refusal.delta"})
ARGUMENT_DELTA = "response.function_call_arguments.delta"
SUMMARY_DELTA = "response.reasoning_summary_text.delta"


def _read_item(item: object, at: str) -> list[ContentBlock]:
    """A complete output item in neutral form (nothing for item types with no neutral
    form, such as hosted tool calls).  Refusal parts read as text; the stop says refusal."""
    if not isinstance(item, dict):
        raise ResponseReadError("the output item is not an object", at)
    kind = item.get("type")
    if kind == "reasoning":
        summary = required(item, "summary", list, at)
        texts = tuple(required(s, "text", str, at) for s in summary if isinstance(s, dict))
        content = item.get("encrypted_content")
        signature = content if isinstance(content, str) and content else None
        return [Reasoning(id=_id(item.get("id")), summary=texts or None, signature=signature)]
    if kind == "message":
        return [b for b, _ in _message_blocks(required(item, "content", list, at), at)]
    if kind == "function_call":
        arguments = call_arguments(required(item, "arguments", str, at), complete=True)
        return [
            ToolCall(
                id=required(item, "call_id", str, at),
                name=required(item, "name", str, at),
                arguments=arguments,
            )
        ]
    return []


def _final_stop(status: str, response: dict[str, Any], items: Sequence[object], at: str) -> str:
    """The neutral stop of a finished response (its ``status``): a completed response
    with a refusal part refused, one with a function call asks for tool calls."""
    if status == "failed":
        raise _provider_error(response.get("error") or {"message": "the response failed"}, at)
    if status == "incomplete":
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        if reason not in INCOMPLETE_STOPS:
            raise ResponseReadError(f"incomplete for an unknown reason {reason!r}", at)
        return INCOMPLETE_STOPS[reason]
    if status == "cancelled":
        return "cancelled"
    if status != "completed":
        raise ResponseReadError(f"status {status!r} is not a finished response", at)
    found = [i for i in items if isinstance(i, dict)]
    parts = [p for i in found if i.get("type") == "message" for p in i.get("content") or ()]
    if any(isinstance(p, dict) and p.get("type") == "refusal" for p in parts):
        return "refusal"
    return "tool_calls" if any(i.get("type") == "function_call" for i in found) else "end"


def _provider_error(error: object, at: str) -> ResponseReadError:
    """OpenAI's error object (``{code, message}``) as a read error."""
    error = error if isinstance(error, dict) else {}
    code = error.get("code") or error.get("type")
    return ResponseReadError(f"provider error {code}: {error.get('message')}", at)


@dataclass
class _Streamed:
    """An output item being read from a stream: announced by ``output_item.added``,
    extended by deltas, replaced by its complete form at ``output_item.done``."""

    item: dict[str, Any]
    at: str
    done: bool = False
    parts: dict[int, str] = field(default_factory=dict)  # content_index -> text so far
    summary: dict[int, str] = field(default_factory=dict)  # summary_index -> text so far
    arguments: str = ""

    def blocks(self) -> list[ContentBlock]:
        """The item in neutral form; a partial one (the stream was cut inside it) has
        what its deltas brought and no encrypted_content: ``.added`` carries at most a
        piece of it (rule 22)."""
        if self.done:
            return _read_item(self.item, self.at)
        kind = self.item.get("type")
        if kind == "reasoning":
            summary = tuple(text for _, text in sorted(self.summary.items()))
            return [Reasoning(id=_id(self.item.get("id")), summary=summary or None)]
        if kind == "message":
            return [Text(text=text) for _, text in sorted(self.parts.items())]
        if kind == "function_call":
            call = _read_item({**self.item, "arguments": ""}, self.at)[0]
            arguments = call_arguments(self.arguments, complete=False)
            return [call.model_copy(update={"arguments": arguments})]
        return []


def _read_stream(body: bytes) -> ScriptedResponse:
    """Rules 21-23: items assembled from their own events (never from the terminal
    event's ``output``), the stop from the one terminal event.  Lifecycle events, the
    ``.done`` echoes and event types this reader does not know are skipped: the
    streaming guide has clients listen for the events they care about
    (developers.openai.com/docs/guides/streaming-responses), and the event list keeps
    growing.  Without a terminal event the stream was cut: ``no_finish``."""
    items: dict[int, _Streamed] = {}
    stop = "no_finish"
    at = "byte 0"
    for event in read_events(body):
        data = event.object()
        kind = data.get("type") if isinstance(data.get("type"), str) else event.name
        at = event.at(kind)
        if kind == "error":
            raise _provider_error(data, at)
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            response = required(data, "response", dict, at)
            status = kind.removeprefix("response.")
            stop = _final_stop(status, response, [s.item for s in items.values()], at)
            break
        if kind == "response.output_item.added":
            items[required(data, "output_index", int, at)] = _Streamed(
                dict(required(data, "item", dict, at)), at
            )
            continue
        if kind not in (
            "response.output_item.done",
            "response.content_part.added",
            "response.reasoning_summary_part.added",
            ARGUMENT_DELTA,
            SUMMARY_DELTA,
            *TEXT_DELTAS,
        ):
            continue
        index = required(data, "output_index", int, at)
        if index not in items:
            raise ResponseReadError(f"output item {index} was never added", at)
        _extend(items[index], kind, data, at)
    found = [b for _, streamed in sorted(items.items()) for b in streamed.blocks()]
    return neutral_response(stop, found, at)


def _extend(streamed: _Streamed, kind: str, data: dict[str, Any], at: str) -> None:
    """One event that completes or extends an item."""
    if kind == "response.output_item.done":
        streamed.item, streamed.at, streamed.done = required(data, "item", dict, at), at, True
    elif kind == "response.content_part.added" or kind in TEXT_DELTAS:
        part = required(data, "content_index", int, at)
        piece = required(data, "delta", str, at) if kind in TEXT_DELTAS else ""
        streamed.parts[part] = streamed.parts.get(part, "") + piece
    elif kind == ARGUMENT_DELTA:
        streamed.arguments += required(data, "delta", str, at)
    else:
        part = required(data, "summary_index", int, at)
        piece = required(data, "delta", str, at) if kind == SUMMARY_DELTA else ""
        streamed.summary[part] = streamed.summary.get(part, "") + piece


def _read_json(body: bytes) -> ScriptedResponse:
    response = read_json_body(body)
    if isinstance(response.get("error"), dict):
        raise _provider_error(response["error"], "body")
    output = required(response, "output", list, "body")
    stop = _final_stop(required(response, "status", str, "body"), response, output, "body")
    found = [b for k, item in enumerate(output) for b in _read_item(item, f"output[{k}]")]
    return neutral_response(stop, found, "body")


# ---------------------------------------------------------------- the wire


class OpenAIResponses(Wire):
    """OpenAI's Responses API: ``POST /v1/responses``, streamed or not."""

    name: ClassVar[str] = "openai-responses"
    rules: ClassVar[tuple[Rule, ...]] = RULES

    # ------------------------------------------------------------ serving

    def serves(self, request: HttpRequest) -> bool:
        return request.method.upper() == "POST" and request.path == ENDPOINT

    def endpoint(self, model: str, stream: bool) -> str:
        """One path for every model; streaming is asked for in the body (``stream``)."""
        return ENDPOINT

    def wants_stream(self, request: HttpRequest, view: RequestView) -> bool:
        return view.stream

    def render(self, response: ScriptedResponse, context: RenderContext) -> HttpResponse:
        minted = _Minted.of(response, context.index)
        request = context.request
        encrypted = isinstance(request, ResponsesRequestView) and request.encrypted
        request_id = "req_" + values.digest("request", minted.seed)[:32]
        if not context.stream:
            return self._render_json(minted, context, encrypted, request_id)
        chunks = tuple(
            format_event(kind, data) for kind, data in _stream_events(minted, context, encrypted)
        )
        headers = (
            ("content-type", "text/event-stream; charset=utf-8"),
            ("cache-control", "no-cache"),
            ("x-request-id", request_id),
        )
        return HttpResponse(200, b"".join(chunks), headers, chunks)

    def _render_json(
        self, minted: _Minted, context: RenderContext, encrypted: bool, request_id: str
    ) -> HttpResponse:
        """The response object.  A cut (``no_finish``) has no JSON form: the nearest thing a
        non-streaming client meets is OpenAI's 500 server error."""
        headers = {"x-request-id": request_id}
        if minted.response.stop in CUT_STOPS:
            error = {"message": SERVER_ERROR, "type": "server_error", "param": None, "code": None}
            return json_response(500, {"error": error}, headers)
        status = _final_status(minted.response)
        output = minted.done_items(encrypted)
        body = _response_object(minted, context.model, status, output, final=True)
        return json_response(200, body, headers)

    def error_response(self, violation: RuleViolation) -> HttpResponse:
        rule = violation.rule
        if isinstance(rule, ResponsesRule):
            param = None if rule.param is None else rule.param.format(at=violation.at)
            code = rule.code
        else:
            param, code = violation.at, None
        error = {
            "message": violation.message,
            "type": rule.error_type,
            "param": param,
            "code": code,
        }
        request_id = "req_" + values.digest("error", rule.id, violation.message)[:32]
        return json_response(rule.status, {"error": error}, {"x-request-id": request_id})

    # ------------------------------------------------------------ reading responses

    def read_response(
        self, body: bytes, streaming: bool, *, dialect: str | None = None
    ) -> ScriptedResponse:
        return _read_stream(body) if streaming else _read_json(body)

    # ------------------------------------------------------------ parsing

    def parse(self, request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
        """The body in neutral form, references expanded with what ``context`` says the
        provider stored.  Error texts: OpenAI's own for a body that is not JSON (quoted
        in public reports, e.g. ChatGPTNextWeb/NextChat#4064) and for an ``input`` of the
        wrong type (jicaiinc/golemancy#5)."""
        try:
            body = json.loads(request.body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise RequestParseError(NOT_JSON) from None
        if not isinstance(body, dict):
            raise RequestParseError(NOT_JSON)
        if not isinstance(body.get("input", []), str | list):
            raise RequestParseError("Invalid type for 'input'.", at="input")
        conversation = _Conversation.of(body, context)
        messages, locations = _neutral_messages(conversation)
        tools = body.get("tools")
        include = body.get("include")
        return ResponsesRequestView(
            wire=self.name,
            model=values.optional_text(body.get("model")),
            stream=body.get("stream") is True,
            system=values.optional_text(body.get("instructions")),
            tools=tuple(
                t["name"]
                for t in (tools if isinstance(tools, list) else ())
                if isinstance(t, dict) and isinstance(t.get("name"), str)
            ),
            thinking=_thinking(body.get("reasoning")),
            max_tokens=values.integer(body.get("max_output_tokens")),
            messages=tuple(messages),
            locations=tuple(locations),
            raw=body,
            include=tuple(
                i for i in (include if isinstance(include, list) else ()) if isinstance(i, str)
            ),
            store=conversation.store,
            previous_response_id=_id(body.get("previous_response_id")),
            items=tuple(e.raw for e in conversation.entries),
        )

    def history_items(self, view: RequestView) -> list[Any]:
        """The expanded conversation: a client continuing by ``previous_response_id``
        still appends to what the provider holds, so the invariant compares that."""
        if isinstance(view, ResponsesRequestView):
            return list(view.items)
        raw_input = view.raw.get("input")
        return list(raw_input) if isinstance(raw_input, list) else []

    # ------------------------------------------------------------ rules

    def validate(self, view: RequestView, context: ValidationContext) -> list[RuleViolation]:
        conversation = _Conversation.of(view.raw, context)
        return [v for run in CHECKS for v in run(conversation, view.raw)]

    # ------------------------------------------------------------ ledger hints

    def companion(self, block: Block) -> str | None:
        """A reasoning item's encrypted content comes back under its own ``rs_`` id.  A
        script that leaves the id to the provider (derived at render) names none, and
        neither does a client that drops it (OpenAI tolerates that): any reasoning
        item then pairs."""
        if isinstance(block, Reasoning):
            return block.id
        return super().companion(block)

    # ------------------------------------------------------------ realism (lint)

    def realism(self, case: Case, dialect: str | None = None) -> list[str]:
        problems: list[str] = []
        for t, turn in enumerate(case.given.turns):
            for r, response in enumerate(turn.responses):
                where = f"turns.{t}.responses.{r}"
                problems += [f"{where}: {p}" for p in _response_problems(response)]
                truncated = response.stop in TRUNCATED_STOPS
                blocks = response.blocks
                for b, block in enumerate(blocks):
                    problems += [
                        f"{where}.blocks.{b}: {p}"
                        for p in _block_problems(
                            block,
                            scripted=True,
                            truncated=truncated,
                            last=b == len(blocks) - 1,
                            followed_by=blocks[b + 1] if b + 1 < len(blocks) else None,
                        )
                    ]
        for m, message in enumerate(case.given.history):
            if message.role != "assistant":
                continue
            for b, saved in enumerate(message.blocks):
                if getattr(saved, "origin", None) is None:
                    problems += [
                        f"history.{m}.blocks.{b}: {p}"
                        for p in _block_problems(
                            saved, scripted=False, truncated=False, last=False, followed_by=None
                        )
                    ]
        return problems
