"""The Responses rules (the rule catalogue (``docs/rules.md``) section B), in check order, and the
error body OpenAI answers a broken one with:
``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

from collections.abc import Iterator

from conformance.catalogue.book import Predicate, RuleBook
from conformance.verdict import Rule, Violation
from conformance.wires._openai_responses._ids import conversation_id, nonempty_id
from conformance.wires._openai_responses._state import Entry, ExpandedInput, side_of
from conformance.wires._openai_responses._view import NAME

BOOK: RuleBook[Predicate[ExpandedInput]] = RuleBook(NAME, __name__)
FIELD_REQUIRED = BOOK.rule("openai-responses/field-required")
REASONING_SUMMARY = BOOK.rule("openai-responses/reasoning-summary-required")
INVALID_ROLE = BOOK.rule("openai-responses/invalid-role")
CHAT_TOOL_CALLS = BOOK.rule("openai-responses/chat-tool-calls")
ITEM_ID_PREFIX = BOOK.rule("openai-responses/item-id-prefix")
PREVIOUS_RESPONSE_NOT_FOUND = BOOK.rule("openai-responses/previous-response-not-found")
PREVIOUS_WITH_CONVERSATION = BOOK.rule("openai-responses/previous-response-with-conversation")
ITEM_NOT_FOUND = BOOK.rule("openai-responses/item-not-found")
DUPLICATE_ITEM = BOOK.rule("openai-responses/duplicate-item")
ENCRYPTED_CONTENT_VALID = BOOK.rule("openai-responses/encrypted-content-valid")
REASONING_FOLLOWED = BOOK.rule("openai-responses/reasoning-followed")
REASONING_REQUIRED = BOOK.rule("openai-responses/reasoning-required")
CALL_FOR_OUTPUT = BOOK.rule("openai-responses/call-for-output")
OUTPUT_FOR_CALL = BOOK.rule("openai-responses/output-for-call")

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


def _abbreviated(content: str) -> str:
    """Encrypted content the way OpenAI's error names it: head and tail only."""
    return f"{content[:4]}...{content[-4:]}"


@BOOK.checks(FIELD_REQUIRED)
def _required(check: ExpandedInput) -> Iterator[Violation]:
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
def _summary(check: ExpandedInput) -> Iterator[Violation]:
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
def _chat_shapes(check: ExpandedInput) -> Iterator[Violation]:
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
def _id_prefix(check: ExpandedInput) -> Iterator[Violation]:
    for entry in check.sent:
        prefix = _ID_PREFIXES.get(entry.kind or "")
        item_id = nonempty_id(entry.item.get("id"))
        if prefix is not None and item_id is not None and not item_id.startswith(prefix):
            at = f"{entry.at}.id"
            yield ITEM_ID_PREFIX.violated(at, at=at, id=item_id, prefix=prefix)


@BOOK.checks(PREVIOUS_WITH_CONVERSATION)
def _one_state(check: ExpandedInput) -> Iterator[Violation]:
    """Rule 62: a stored response or a conversation object, not both."""
    previous = nonempty_id(check.body.get("previous_response_id"))
    if previous is not None and conversation_id(check.body.get("conversation")) is not None:
        yield PREVIOUS_WITH_CONVERSATION.violated("previous_response_id")


@BOOK.checks(PREVIOUS_RESPONSE_NOT_FOUND, ITEM_NOT_FOUND)
def _references(check: ExpandedInput) -> Iterator[Violation]:
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
def _duplicates(check: ExpandedInput) -> Iterator[Violation]:
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
def _encrypted_content(check: ExpandedInput) -> Iterator[Violation]:
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
def _reasoning_pairs(check: ExpandedInput) -> Iterator[Violation]:
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
def _tool_pairing(check: ExpandedInput) -> Iterator[Violation]:
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
