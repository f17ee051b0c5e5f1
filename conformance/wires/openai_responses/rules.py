"""The Responses rules (the rule catalogue (``docs/rules.md``) section B), in check order, and the
error body OpenAI answers a broken one with:
``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

from collections.abc import Iterator

from conformance.wires.base import Rule, RuleViolation
from conformance.wires.openai_responses._ids import conversation_id, nonempty_id
from conformance.wires.openai_responses._rule import ResponsesRule
from conformance.wires.openai_responses._state import Entry, ExpandedInput, side_of
from conformance.wires.openai_responses._view import NAME
from conformance.wires.rulebook import RuleBook

FIELD_REQUIRED = ResponsesRule(
    id="openai-responses/field-required",
    ref="rules §B (request shape)",
    statement=(
        "A request names its `model` unless it uses a stored `prompt` (which names one), "
        "and each input item carries the keys its type needs (a reasoning item an `id` when "
        "it has no `encrypted_content`)."
    ),
    source=(
        "Responses API reference (required parameters); text and code as OpenAI answers them "
        "in openai/codex#6926 and #6725 (`Missing required parameter: 'input[42].id'.`); "
        "a body of `prompt` alone answered 200 (DataDog/dd-trace-py's "
        "tests/contrib/openai/cassettes/v1/response_with_prompt.yaml)"
    ),
    error="Missing required parameter: '{at}'.",
    code="missing_required_parameter",
    param="{at}",
)
REASONING_SUMMARY = ResponsesRule(
    id="openai-responses/reasoning-summary-required",
    ref="rule B24",
    statement="A replayed reasoning item keeps its `summary` (`[]` when empty), each part typed.",
    source=(
        "rule 24 (its quoted text is a Responses-spec provider's, newo-ether/Agora"
        "#141); OpenAI's own text and code: GizClaw/flowcraft PR#528 (missing `summary` is "
        "`missing_required_parameter`), 64bit/async-openai#467 (`input[1].summary[0].type`)"
    ),
    error="Missing required parameter: '{at}'.",
    code="missing_required_parameter",
    param="{at}",
)
INVALID_ROLE = ResponsesRule(
    id="openai-responses/invalid-role",
    ref="rule B28",
    statement=(
        "A message item's role is assistant, system, developer or user: Chat-style `tool` "
        "messages are function_call_output items on this wire."
    ),
    source=(
        "rule 28: Chevey339/kelivo PR#281; anomalyco/opencode#10803 (exact text); "
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
    ref="rule B28",
    statement="A message item has no Chat-style `tool_calls`: calls are function_call items.",
    source=(
        "rule 28 (Chat-style history must be converted); the text is OpenAI's "
        "unknown-parameter form as openai/openai-go#392 shows it (not quoted in the catalogue)"
    ),
    error="Unknown parameter: '{at}'.",
    code="unknown_parameter",
    param="{at}",
)
ITEM_ID_PREFIX = ResponsesRule(
    id="openai-responses/item-id-prefix",
    ref="rule B28",
    statement=(
        "An input item's id has its type's prefix: `fc` for function_call (never the "
        "`call_` id or a `msg_` id), `msg` for message, `rs` for reasoning."
    ),
    source=(
        "rule 28: continuedev/continue PR#11785; full text in nodetool-ai/nodetool "
        "PR#4252 and jlcodes99/cockpit-tools#2090; an empty id is tolerated (stacklok/mecatl"
        "#406); `code` inferred, not quoted"
    ),
    error="Invalid '{at}': '{id}'. Expected an ID that begins with '{prefix}'.",
    code="invalid_value",
    param="{at}",
)
PREVIOUS_RESPONSE_NOT_FOUND = ResponsesRule(
    id="openai-responses/previous-response-not-found",
    ref="rule B60",
    statement=(
        "`previous_response_id` names a response this provider stored: one answered with "
        "`store` on.  A response answered with `store: false` was never kept, so chaining on "
        "it is refused like an unknown or expired id; such a client resends the whole input."
    ),
    source=(
        "rule 60: the text, status 400, `type`, `param` and `code` as OpenAI answers them in "
        "Soju06/codex-lb#853 and bigduu/Bamboo-agent#513 (`store: false` then "
        "`previous_response_id`: 400 `previous_response_not_found`, confirmed again in "
        "bigduu/Bamboo-agent#64); maximhq/bifrost#2441 (`store` off, status 400)"
    ),
    error="Previous response with id '{id}' not found.",
    code="previous_response_not_found",
    param="previous_response_id",
)
PREVIOUS_WITH_CONVERSATION = ResponsesRule(
    id="openai-responses/previous-response-with-conversation",
    ref="rule B62",
    statement=(
        "A request continues either a stored response (`previous_response_id`) or a "
        "conversation object (`conversation`), never both."
    ),
    source=(
        'rule 62: the Responses API reference (`previous_response_id`: "Cannot be used in '
        "conjunction with `conversation`\"), as typehub.cloud's copy of OpenAI's spec and "
        "docs.rs openai-openapi-types show it; no rejection text is published, so the "
        "text is the suite's own in OpenAI's style"
    ),
    error="'previous_response_id' cannot be used together with 'conversation'.",
    evidence="documented",
    param=None,
)
ITEM_NOT_FOUND = ResponsesRule(
    id="openai-responses/item-not-found",
    ref="rule B25",
    statement=(
        "An item sent by id only (an item_reference, or a reasoning item without "
        "`encrypted_content`) names an item the provider stored; with `store: false` none is."
    ),
    source=(
        "rule 25: anomalyco/opencode#7724, #8987, PR#2480; can1357/oh-my-pi#41; "
        "router-for-me/CLIProxyAPI#2381 (status, param and code)"
    ),
    error=(
        "Item with id '{id}' not found. Items are not persisted when `store` is set to false. "
        "Try again with `store` set to true, or remove this item from your input."
    ),
    status=404,
)
DUPLICATE_ITEM = ResponsesRule(
    id="openai-responses/duplicate-item",
    ref="rule B61",
    statement=(
        "No two items of the conversation the provider sees share an id: an item a "
        "`previous_response_id` or a `conversation` already holds is not sent again (whole "
        "or as an `item_reference`), and one input holds each id once."
    ),
    source=(
        "rule 61: openai/openai-agents-python#1789 (a `conversation` with an `fc_` item sent "
        "again: text, status 400, `param` `input`, `code` null); vercel/ai#15492 "
        "(`previous_response_id` with `item_reference`s of the items it holds); "
        "earendil-works/pi#5147 (two items with one `msg_` id in one input)"
    ),
    error=(
        "Duplicate item found with id {id}. Remove duplicate items from your input and try again."
    ),
)
ENCRYPTED_CONTENT_VALID = ResponsesRule(
    id="openai-responses/encrypted-content-valid",
    ref="rule B22, §B30",
    statement=(
        "A reasoning item's `encrypted_content` is one this provider issued, byte for byte: "
        "not cut (a prefix of the final value), not joined, not foreign.  The whole interim "
        "token `output_item.added` announces is OpenAI's own and no report shows it refused, "
        "so it passes here; the opaque-payload ledger asks for the final one (rule 22)."
    ),
    source=(
        "rule 22 and 30: Wei-Shaw/sub2api#3138, #2863; pydantic/pydantic-ai#4608; "
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
    ref="rule B26",
    statement=(
        "A reasoning item is immediately followed by the item it produced (any item of the "
        "model's side: a message, a function_call or a hosted tool's call; the very one the "
        "provider minted after it, when that carries its id), or by further reasoning items "
        "whose run ends in one (seed §108)."
    ),
    source=(
        "rule 26: openai/codex#1227; vercel/ai#7099; continuedev/continue#8933 "
        "(param and code); openclaw/openclaw#1158; a hosted tool's call after reasoning "
        "answered 200: pydantic/pydantic-ai tests/models/cassettes/test_openai_responses/"
        "test_openai_responses_model_web_search_tool.yaml"
    ),
    error="Item '{id}' of type 'reasoning' was provided without its required following item.",
)
REASONING_REQUIRED = ResponsesRule(
    id="openai-responses/reasoning-required",
    ref="rule B26, §B27",
    statement=(
        "A message or function_call carrying the id the provider minted travels right after "
        "the reasoning item that produced it."
    ),
    source=(
        "rule 26 and 27: openai/codex#33044; cline/cline#12242, mastra-ai/mastra"
        "#8738, continuedev/continue#10018 (the function_call text, param and code)"
    ),
    error=(
        "Item '{id}' of type '{type}' was provided without its required 'reasoning' item: "
        "'{reasoning}'."
    ),
)
CALL_FOR_OUTPUT = ResponsesRule(
    id="openai-responses/call-for-output",
    ref="rule B28",
    statement="Every function_call_output answers a function_call earlier in the input.",
    source=(
        "rule 28: continuedev/continue#10092 (text, param and code); "
        "leookun/cursor-byok#307; microsoft/vscode#320060"
    ),
    error="No tool call found for function call output with call_id {call_id}.",
)
OUTPUT_FOR_CALL = ResponsesRule(
    id="openai-responses/output-for-call",
    ref="rule B28 (the converse)",
    statement="Every function_call in the input is answered by a later function_call_output.",
    source=(
        "not quoted in the catalogue: smallmain/vscode-unify-chat-provider#40 (`400 No tool "
        "output found for function call call_eM9v….`), jlcodes99/cockpit-tools#1234; param "
        "and code assumed as for rule 28"
    ),
    error="No tool output found for function call {call_id}.",
)

_ROLES = ("assistant", "system", "developer", "user")
#: The prefix OpenAI checks a replayed item's id against, by item type.
_ID_PREFIXES = {"function_call": "fc", "message": "msg", "reasoning": "rs"}
#: The keys each item type cannot do without (reasoning has rules of its own).
_REQUIRED_ITEM_KEYS: dict[str, tuple[str, ...]] = {
    "function_call": ("call_id", "name", "arguments"),
    "function_call_output": ("call_id", "output"),
    "item_reference": ("id",),
    "message": ("role", "content"),
}

BOOK: RuleBook[ExpandedInput] = RuleBook(NAME)


def _abbreviated(content: str) -> str:
    """Encrypted content the way OpenAI's error names it: head and tail only."""
    return f"{content[:4]}...{content[-4:]}"


@BOOK.checks(FIELD_REQUIRED)
def _required(check: ExpandedInput) -> Iterator[RuleViolation]:
    if "model" not in check.body and not isinstance(check.body.get("prompt"), dict):
        yield FIELD_REQUIRED.violated("model", at="model")
    for entry in check.sent:
        item, kind = entry.item, entry.kind
        missing = [key for key in _REQUIRED_ITEM_KEYS.get(kind or "", ()) if key not in item]
        anonymous = nonempty_id(item.get("id")) is None
        if kind == "reasoning" and anonymous and not isinstance(item.get("encrypted_content"), str):
            missing.append("id")
        for key in missing:
            yield FIELD_REQUIRED.violated(f"{entry.at}.{key}", at=f"{entry.at}.{key}")


@BOOK.checks(REASONING_SUMMARY)
def _summary(check: ExpandedInput) -> Iterator[RuleViolation]:
    for entry in check.sent:
        if entry.kind != "reasoning":
            continue
        summary = entry.item.get("summary")
        if not isinstance(summary, list):
            at = f"{entry.at}.summary"
            yield REASONING_SUMMARY.violated(at, at=at)
            continue
        for k, part in enumerate(summary):
            if isinstance(part, dict) and "type" not in part:
                at = f"{entry.at}.summary[{k}].type"
                yield REASONING_SUMMARY.violated(at, at=at)


@BOOK.checks(INVALID_ROLE, CHAT_TOOL_CALLS)
def _chat_shapes(check: ExpandedInput) -> Iterator[RuleViolation]:
    for entry in check.sent:
        if entry.kind != "message":
            continue
        role = entry.item.get("role")
        if isinstance(role, str) and role not in _ROLES:
            at = f"{entry.at}.role"
            yield INVALID_ROLE.violated(at, at=at, role=role)
    for entry in check.sent:
        if entry.kind == "message" and "tool_calls" in entry.item:
            at = f"{entry.at}.tool_calls"
            yield CHAT_TOOL_CALLS.violated(at, at=at)


@BOOK.checks(ITEM_ID_PREFIX)
def _id_prefix(check: ExpandedInput) -> Iterator[RuleViolation]:
    for entry in check.sent:
        prefix = _ID_PREFIXES.get(entry.kind or "")
        item_id = nonempty_id(entry.item.get("id"))
        if prefix is not None and item_id is not None and not item_id.startswith(prefix):
            at = f"{entry.at}.id"
            yield ITEM_ID_PREFIX.violated(at, at=at, id=item_id, prefix=prefix)


@BOOK.checks(PREVIOUS_WITH_CONVERSATION)
def _one_state(check: ExpandedInput) -> Iterator[RuleViolation]:
    """Rule 62: a stored response or a conversation object, not both."""
    previous = nonempty_id(check.body.get("previous_response_id"))
    if previous is not None and conversation_id(check.body.get("conversation")) is not None:
        yield PREVIOUS_WITH_CONVERSATION.violated("previous_response_id")


@BOOK.checks(PREVIOUS_RESPONSE_NOT_FOUND, ITEM_NOT_FOUND)
def _references(check: ExpandedInput) -> Iterator[RuleViolation]:
    """Rule 25: what is sent by id alone must be stored, and with ``store`` off nothing is."""
    if not check.previous_found:
        previous = check.body.get("previous_response_id")
        yield PREVIOUS_RESPONSE_NOT_FOUND.violated("previous_response_id", id=previous)
    for entry in check.sent:
        item, kind = entry.item, entry.kind
        by_id = kind == "item_reference" or (
            kind == "reasoning" and not isinstance(item.get("encrypted_content"), str)
        )
        item_id = nonempty_id(item.get("id"))
        if (
            by_id
            and item_id is not None
            and (not check.store or check.stored.stored(item_id) is None)
        ):
            # An item of the saved history this provider minted may be stored from its
            # earlier session (store is on by default): the run cannot see that state,
            # so the 404 rests on inference and the provider serves the request.
            unseen = check.store and item_id in check.saved_ids
            yield ITEM_NOT_FOUND.violated(
                entry.at, evidence="inferred" if unseen else None, id=item_id
            )


@BOOK.checks(DUPLICATE_ITEM)
def _duplicates(check: ExpandedInput) -> Iterator[RuleViolation]:
    """Rule 61: each id once in the conversation the provider sees, what it holds (from
    ``previous_response_id`` or ``conversation``) and what the input sends (an
    ``item_reference`` resolved to the item it names).  A reference that resolves to
    nothing is rule 25's business, and an item without an id (a user message, a
    function_call_output, an empty id) can never be a duplicate."""
    seen: set[str] = set()
    for entry in check.entries:
        item_id = nonempty_id(entry.item.get("id"))
        if item_id is None or entry.kind == "item_reference":
            continue
        if item_id in seen and entry.index is not None:
            yield DUPLICATE_ITEM.violated(entry.at, id=item_id)
        seen.add(item_id)


@BOOK.checks(ENCRYPTED_CONTENT_VALID)
def _encrypted_content(check: ExpandedInput) -> Iterator[RuleViolation]:
    for entry in check.sent:
        content = entry.item.get("encrypted_content")
        if (
            entry.kind == "reasoning"
            and isinstance(content, str)
            and content not in check.stored.minted
        ):
            at = f"{entry.at}.encrypted_content"
            yield ENCRYPTED_CONTENT_VALID.violated(at, abbreviated=_abbreviated(content))


def _produced_by(entry: Entry | None) -> bool:
    """Whether an item can be what a reasoning item produced: any item of the model's
    side but reasoning (``_kinds.MODEL_ITEMS``, an assistant message)."""
    return entry is not None and entry.kind != "reasoning" and side_of(entry) == "assistant"


@BOOK.checks(REASONING_FOLLOWED, REASONING_REQUIRED)
def _reasoning_pairs(check: ExpandedInput) -> Iterator[RuleViolation]:
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
        minted = check.stored.outputs.get(reasoning_id or "")
        next_id = nonempty_id(after.item.get("id")) if after is not None else None
        wrong = (
            minted is not None
            and minted.followers
            and next_id in check.stored.outputs
            and next_id not in minted.followers
        )
        chained = after is not None and after.kind == "reasoning"
        if not (_produced_by(after) or (chained and _produced_by(ending))) or wrong:
            shown = reasoning_id or entry.at
            yield REASONING_FOLLOWED.violated(entry.at, id=shown)
    for k, entry in enumerate(entries):
        item_id = nonempty_id(entry.item.get("id"))
        minted = check.stored.outputs.get(item_id or "")
        if entry.index is None or minted is None or minted.producer is None:
            continue
        before = entries[k - 1] if k > 0 else None
        paired = (
            before is not None
            and before.kind == "reasoning"
            and check.reasoning_id(before.item) == minted.producer
        )
        if not paired:
            yield REASONING_REQUIRED.violated(
                entry.at, id=item_id, type=entry.kind, reasoning=minted.producer
            )


@BOOK.checks(CALL_FOR_OUTPUT, OUTPUT_FOR_CALL)
def _tool_pairing(check: ExpandedInput) -> Iterator[RuleViolation]:
    """Rule 28 and its converse, over the whole conversation the provider sees."""
    calls = [(k, e) for k, e in enumerate(check.entries) if e.kind == "function_call"]
    outputs = [(k, e) for k, e in enumerate(check.entries) if e.kind == "function_call_output"]
    for k, entry in outputs:
        call_id = entry.item.get("call_id")
        if not any(c.item.get("call_id") == call_id for j, c in calls if j < k):
            yield CALL_FOR_OUTPUT.violated(entry.at, call_id=call_id)
    for k, entry in calls:
        call_id = entry.item.get("call_id")
        if not any(o.item.get("call_id") == call_id for j, o in outputs if j > k):
            yield OUTPUT_FOR_CALL.violated(entry.at, call_id=call_id)


RULES: tuple[Rule, ...] = BOOK.rules
