"""The validation that applies the rules: one check per rule or pair of rules, run in
``RULES`` order over the conversation the provider sees (``state.Conversation``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from conformance.wires.base import RequestView, Rule, RuleViolation, ValidationContext
from conformance.wires.openai_responses.ids import nonempty_id
from conformance.wires.openai_responses.rules import (
    CALL_FOR_OUTPUT,
    CHAT_TOOL_CALLS,
    ENCRYPTED_CONTENT_VALID,
    FIELD_REQUIRED,
    INVALID_ROLE,
    ITEM_ID_PREFIX,
    ITEM_NOT_FOUND,
    OUTPUT_FOR_CALL,
    PREVIOUS_RESPONSE_NOT_FOUND,
    REASONING_FOLLOWED,
    REASONING_REQUIRED,
    REASONING_SUMMARY,
)
from conformance.wires.openai_responses.state import Conversation, Entry, side_of

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


def violations(view: RequestView, context: ValidationContext) -> list[RuleViolation]:
    """Every violation in the request, in check order."""
    conversation = Conversation.of(view.raw, context)
    return [v for run in CHECKS for v in run(conversation, view.raw)]


def _abbreviated(content: str) -> str:
    """Encrypted content the way OpenAI's error names it: head and tail only."""
    return f"{content[:4]}...{content[-4:]}"


def _violation(rule: Rule, location: str | None = None, **fields: object) -> RuleViolation:
    """The rule broken at ``location``, its error text filled in with ``fields``."""
    return RuleViolation(rule, rule.error.format(**fields), location)


def _required(check: Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    if "model" not in body:
        yield _violation(FIELD_REQUIRED, "model", at="model")
    for entry in check.sent:
        item, kind = entry.item, entry.kind
        missing = [key for key in REQUIRED_ITEM_KEYS.get(kind or "", ()) if key not in item]
        anonymous = nonempty_id(item.get("id")) is None
        if kind == "reasoning" and anonymous and not isinstance(item.get("encrypted_content"), str):
            missing.append("id")
        for key in missing:
            yield _violation(FIELD_REQUIRED, f"{entry.at}.{key}", at=f"{entry.at}.{key}")


def _summary(check: Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
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


def _chat_shapes(check: Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
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


def _id_prefix(check: Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    for entry in check.sent:
        prefix = ID_PREFIXES.get(entry.kind or "")
        item_id = nonempty_id(entry.item.get("id"))
        if prefix is not None and item_id is not None and not item_id.startswith(prefix):
            at = f"{entry.at}.id"
            yield _violation(ITEM_ID_PREFIX, at, at=at, id=item_id, prefix=prefix)


def _references(check: Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    """Rule 25: what is sent by id alone must be stored, and with ``store`` off nothing is."""
    if not check.previous_found:
        previous = body.get("previous_response_id")
        yield _violation(PREVIOUS_RESPONSE_NOT_FOUND, "previous_response_id", id=previous)
    for entry in check.sent:
        item, kind = entry.item, entry.kind
        by_id = kind == "item_reference" or (
            kind == "reasoning" and not isinstance(item.get("encrypted_content"), str)
        )
        item_id = nonempty_id(item.get("id"))
        if (
            by_id
            and item_id is not None
            and (not check.store or check.book.stored(item_id) is None)
        ):
            yield _violation(ITEM_NOT_FOUND, entry.at, id=item_id)


def _encrypted_content(check: Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
    for entry in check.sent:
        content = entry.item.get("encrypted_content")
        if (
            entry.kind == "reasoning"
            and isinstance(content, str)
            and content not in check.book.minted
        ):
            at = f"{entry.at}.encrypted_content"
            yield _violation(ENCRYPTED_CONTENT_VALID, at, abbreviated=_abbreviated(content))


def _produced_by(entry: Entry | None) -> bool:
    """Whether an item can be what a reasoning item produced."""
    return entry is not None and entry.kind != "reasoning" and side_of(entry) == "assistant"


def _reasoning_pairs(check: Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
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
        next_id = nonempty_id(after.item.get("id")) if after is not None else None
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
        item_id = nonempty_id(entry.item.get("id"))
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


def _tool_pairing(check: Conversation, body: dict[str, Any]) -> Iterator[RuleViolation]:
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
