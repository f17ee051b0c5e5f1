"""Applies the rules to a request, one check per rule family in the order of ``RULES``;
each check yields the violations it finds, with Anthropic's error text filled in."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from conformance.model import Block, Reasoning
from conformance.wires import values
from conformance.wires.anthropic_messages.blocks import (
    KNOWN_BLOCK_TYPES,
    REASONING_TYPES,
    REQUIRED_BLOCK_KEYS,
    SERVER_RESULT_SUFFIX,
)
from conformance.wires.anthropic_messages.parse import AnthropicRequestView
from conformance.wires.anthropic_messages.raw import CheckedRequest, RawMessage, type_of
from conformance.wires.anthropic_messages.rules import (
    BUDGET_BELOW_MAX_TOKENS,
    FIELD_REQUIRED,
    FINAL_BLOCK_THINKING,
    FORCED_TOOL_CHOICE,
    LATEST_IMMUTABLE,
    LEADING_THINKING,
    MESSAGE_NONEMPTY,
    SIGNATURE_VALID,
    TEXT_NONEMPTY,
    TEXT_NONWHITESPACE,
    THINKING_OFF_FINAL_ASSISTANT,
    THINKING_SIGNATURE_REQUIRED,
    THINKING_TEXT_REQUIRED,
    TOOL_INPUT_OBJECT,
    TOOL_RESULT_MATCHED,
    TOOL_RESULTS_FIRST,
    TOOL_USE_ANSWERED,
    UNKNOWN_BLOCK_TYPE,
    USER_NONEMPTY,
)
from conformance.wires.base import RequestView, Rule, RuleViolation, ValidationContext

#: The beta under which a manual thinking budget may exceed ``max_tokens`` (with tools).
INTERLEAVED_BETA = "interleaved-thinking-2025-05-14"

Episode = tuple[str, str | None, str | None]


def _episode(block: Reasoning) -> Episode:
    if block.redacted:
        return ("redacted_thinking", None, block.data)
    return ("thinking", block.text, block.signature)


def _raw_episode(item: dict[str, Any]) -> Episode:
    if item.get("type") == "redacted_thinking":
        return ("redacted_thinking", None, values.optional_text(item.get("data")))
    return (
        "thinking",
        values.optional_text(item.get("thinking")),
        values.optional_text(item.get("signature")),
    )


def _replayable(block: Block) -> bool:
    """A reasoning block a client can send back: minted here, and signed or redacted."""
    return (
        isinstance(block, Reasoning)
        and block.origin is None
        and (block.redacted or block.signature is not None)
    )


def _violation(rule: Rule, location: str | None = None, **fields: object) -> RuleViolation:
    """The rule broken at ``location``, its error text filled in with ``fields``."""
    return RuleViolation(rule, rule.error.format(**fields), location)


def _field_required(check: CheckedRequest) -> Iterator[RuleViolation]:
    for field in ("model", "max_tokens"):
        if field not in check.body:
            yield _violation(FIELD_REQUIRED, field, at=field)
    for message in check.messages:
        missing = [
            f"messages.{message.index}.{key}"
            for key in ("role", "content")
            if message.keys is not None and key not in message.keys
        ]
        for j, block in message.blocks:
            kind = type_of(block)
            missing += [
                f"messages.{message.index}.content.{j}.{kind}.{key}"
                for key in REQUIRED_BLOCK_KEYS.get(kind or "", ())
                if key not in block
            ]
        for at in missing:
            yield _violation(FIELD_REQUIRED, at, at=at)


def _unknown_block_type(check: CheckedRequest) -> Iterator[RuleViolation]:
    expected = ", ".join(f"'{t}'" for t in sorted(KNOWN_BLOCK_TYPES))
    for message in check.messages:
        for j, block in message.blocks:
            kind = type_of(block)
            if kind is None or kind in KNOWN_BLOCK_TYPES or kind.endswith(SERVER_RESULT_SUFFIX):
                continue
            at = f"messages.{message.index}.content.{j}"
            yield _violation(
                UNKNOWN_BLOCK_TYPE, at, i=message.index, j=j, tag=kind, expected=expected
            )


def _thinking_keys(check: CheckedRequest) -> Iterator[RuleViolation]:
    for rule, key in (
        (THINKING_SIGNATURE_REQUIRED, "signature"),
        (THINKING_TEXT_REQUIRED, "thinking"),
    ):
        for message in check.messages:
            for j, block in message.of_type("thinking"):
                if key not in block:
                    at = f"messages.{message.index}.content.{j}.thinking.{key}"
                    yield _violation(rule, at, i=message.index, j=j)


def _tool_input_object(check: CheckedRequest) -> Iterator[RuleViolation]:
    for message in check.messages:
        for j, block in message.of_type("tool_use"):
            if "input" in block and not isinstance(block["input"], dict):
                at = f"messages.{message.index}.content.{j}.tool_use.input"
                yield _violation(TOOL_INPUT_OBJECT, at, i=message.index, j=j)


def _thinking_config(check: CheckedRequest) -> Iterator[RuleViolation]:
    if not check.manual:
        return
    choice = check.body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
        yield _violation(FORCED_TOOL_CHOICE, "tool_choice")
    budget, limit = check.view.thinking.budget_tokens, check.view.max_tokens
    betas = check.view.betas if isinstance(check.view, AnthropicRequestView) else ()
    interleaved = INTERLEAVED_BETA in betas and bool(check.view.tools)
    if budget is not None and limit is not None and budget >= limit and not interleaved:
        yield _violation(BUDGET_BELOW_MAX_TOKENS, "thinking.budget_tokens")


def _nonempty(check: CheckedRequest) -> Iterator[RuleViolation]:
    final = len(check.messages) - 1
    for message in check.messages:
        at = f"messages.{message.index}"
        if message.role == "user" and message.empty:
            yield _violation(USER_NONEMPTY, at, i=message.index)
        elif message.role == "assistant" and message.empty and message.index != final:
            yield _violation(MESSAGE_NONEMPTY, at, i=message.index)
    for message in check.messages:
        for j, block in message.of_type("text"):
            text = block.get("text")
            at = f"messages.{message.index}.content.{j}"
            if text == "":
                yield _violation(TEXT_NONEMPTY, at)
            elif isinstance(text, str) and not text.strip():
                yield _violation(TEXT_NONWHITESPACE, at)


def _tool_pairing(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rule 13, message by message.  A tool_use message that ends the request has no
    next message yet, so nothing is asked of it."""
    for message in check.messages:
        before = check.at(message.index - 1)
        if message.role == "user":
            offered = set(before.tool_use_ids) if before and before.role == "assistant" else set()
            stray = [(j, i) for j, i in message.tool_result_ids() if i not in offered]
            if stray:
                j = stray[0][0]
                yield _violation(
                    TOOL_RESULT_MATCHED,
                    f"messages.{message.index}.content.{j}",
                    i=message.index,
                    j=j,
                    ids=", ".join(i for _, i in stray),
                )
        after = check.at(message.index + 1)
        if message.role != "assistant" or not message.tool_use_ids or after is None:
            continue
        answered = after.tool_result_ids() if after.role == "user" else []
        leading = after.leading_result_ids() if after.role == "user" else set()
        missing = [i for i in message.tool_use_ids if i not in leading]
        if any(i in missing for _, i in answered):
            at = f"messages.{after.index}"
            yield _violation(TOOL_RESULTS_FIRST, at, i=after.index, n=len(missing))
        elif missing:
            at = f"messages.{message.index}"
            yield _violation(TOOL_USE_ANSWERED, at, i=message.index, ids=", ".join(missing))


def _trailing_thinking(check: CheckedRequest) -> Iterator[RuleViolation]:
    for message in check.messages:
        if message.role == "assistant" and message.last_kind == "thinking":
            yield _violation(FINAL_BLOCK_THINKING, f"messages.{message.index}", i=message.index)
    final = check.at(len(check.messages) - 1)
    if check.view.thinking.mode == "off" and final is not None and final.role == "assistant":
        for j, _ in final.of_type("thinking")[:1]:
            at = f"messages.{final.index}.content.{j}"
            yield _violation(THINKING_OFF_FINAL_ASSISTANT, at, i=final.index, j=j)


def _leading_thinking(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rule 6, only inside a running tool loop: the request ends with tool results that
    answer the assistant message right before them."""
    if not check.manual or len(check.messages) < 2:
        return
    last, turn = check.messages[-1], check.messages[-2]
    in_loop = (
        last.role == "user"
        and bool(last.of_type("tool_result"))
        and turn.role == "assistant"
        and bool(turn.tool_use_ids)
    )
    if not in_loop or turn.first_kind in REASONING_TYPES:
        return
    dropped = any(_replayable(b) for blocks in check.origin_of(turn) for b in blocks)
    if turn.of_type(*REASONING_TYPES) or dropped:
        at = f"messages.{turn.index}.content.0"
        yield _violation(LEADING_THINKING, at, i=turn.index, found=turn.first_kind)


def _signature_valid(check: CheckedRequest) -> Iterator[RuleViolation]:
    minted = check.minted()
    for message in check.messages:
        if message.role != "assistant":
            continue
        for j, block in message.of_type("thinking"):
            if "signature" not in block:
                continue
            signature = block["signature"]
            if not isinstance(signature, str) or signature not in minted:
                at = f"messages.{message.index}.content.{j}"
                yield _violation(SIGNATURE_VALID, at, i=message.index, j=j)


def _latest_immutable(check: CheckedRequest) -> Iterator[RuleViolation]:
    """Rules 5 and 7 on the latest assistant message: its reasoning blocks, in order,
    equal the replayable reasoning of the turn(s) it was built from.  Where text and
    tool_use sit around them is not this rule's business."""
    latest = next((m for m in reversed(check.messages) if m.role == "assistant"), None)
    if latest is None:
        return
    sent = [(j, _raw_episode(b)) for j, b in latest.of_type(*REASONING_TYPES)]
    origin = check.origin_of(latest)
    if not sent or not origin:
        return
    expected = [
        _episode(b)
        for blocks in origin
        for b in blocks
        if isinstance(b, Reasoning) and _replayable(b)
    ]
    if [episode for _, episode in sent] == expected:
        return
    differs = (k for k, (_, e) in enumerate(sent) if k >= len(expected) or e != expected[k])
    k = next(differs, len(sent) - 1)
    at = f"messages.{latest.index}.content.{sent[k][0]}"
    yield _violation(LATEST_IMMUTABLE, at, i=latest.index, j=sent[k][0])


CHECKS = (
    _field_required,
    _unknown_block_type,
    _thinking_keys,
    _tool_input_object,
    _thinking_config,
    _nonempty,
    _tool_pairing,
    _trailing_thinking,
    _leading_thinking,
    _signature_valid,
    _latest_immutable,
)


def violations(view: RequestView, context: ValidationContext) -> list[RuleViolation]:
    """Every rule the request breaks, in check order (empty: the provider accepts it)."""
    raw_messages = view.raw.get("messages")
    messages = raw_messages if isinstance(raw_messages, list) else []
    check = CheckedRequest(
        view, context, tuple(RawMessage.of(i, m) for i, m in enumerate(messages))
    )
    return [violation for run in CHECKS for violation in run(check)]
