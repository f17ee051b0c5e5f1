"""The rules of the rule catalogue (``docs/rules.md``) section A, each with the error text Anthropic
really answers, and the check that applies each, registered in ``BOOK`` in the order
Anthropic checks them (``RULES`` is derived from it).  The checks read the raw body
(``_raw.CheckedRequest``); ``validate`` builds that and runs the book."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from conformance.catalogue.book import Predicate, RuleBook
from conformance.verdict import Evidence, Rule, Violation
from conformance.vocabulary import Block, Reasoning
from conformance.wires import _values as values
from conformance.wires._anthropic_messages._binding import first_unbound
from conformance.wires._anthropic_messages._blocks import (
    FOREIGN_BLOCK_TYPES,
    KNOWN_BLOCK_TYPES,
    REASONING_TYPES,
    REQUIRED_BLOCK_KEYS,
    SERVER_RESULT_SUFFIX,
    server_result_type,
)
from conformance.wires._anthropic_messages._models import INTERLEAVED_BETA, adaptive_only
from conformance.wires._anthropic_messages._raw import CheckedRequest, type_of
from conformance.wires._anthropic_messages._thread_rules import THREAD_BOOK
from conformance.wires._anthropic_messages._view import NAME, AnthropicRequestView

BOOK: RuleBook[Predicate[CheckedRequest]] = RuleBook(NAME, __name__)
# Message threads (rules A56-A59) are resolved before the conversation is judged.
BOOK.include(THREAD_BOOK)
FIELD_REQUIRED = BOOK.rule("anthropic-messages/field-required")
UNKNOWN_BLOCK_TYPE = BOOK.rule("anthropic-messages/unknown-block-type")
THINKING_SIGNATURE_REQUIRED = BOOK.rule("anthropic-messages/thinking-signature-required")
THINKING_TEXT_REQUIRED = BOOK.rule("anthropic-messages/thinking-text-required")
TOOL_INPUT_OBJECT = BOOK.rule("anthropic-messages/tool-input-object")
USER_NONEMPTY = BOOK.rule("anthropic-messages/user-message-nonempty")
MESSAGE_NONEMPTY = BOOK.rule("anthropic-messages/message-nonempty")
TEXT_NONEMPTY = BOOK.rule("anthropic-messages/text-nonempty")
TEXT_NONWHITESPACE = BOOK.rule("anthropic-messages/text-nonwhitespace")
FORCED_TOOL_CHOICE = BOOK.rule("anthropic-messages/forced-tool-choice-with-thinking")
ADAPTIVE_ONLY_MODEL = BOOK.rule("anthropic-messages/adaptive-only-model")
BUDGET_BELOW_MAX_TOKENS = BOOK.rule("anthropic-messages/budget-below-max-tokens")
TOOL_USE_ANSWERED = BOOK.rule("anthropic-messages/tool-use-answered")
TOOL_RESULT_MATCHED = BOOK.rule("anthropic-messages/tool-result-matched")
SERVER_RESULT_PAIRED = BOOK.rule("anthropic-messages/server-tool-result-paired")
PREFILL_TRAILING_WHITESPACE = BOOK.rule("anthropic-messages/prefill-trailing-whitespace")
PREFILL_WITH_THINKING = BOOK.rule("anthropic-messages/prefill-with-thinking")
TOOL_RESULTS_FIRST = BOOK.rule("anthropic-messages/tool-results-first")
FINAL_BLOCK_THINKING = BOOK.rule("anthropic-messages/final-block-not-thinking")
THINKING_OFF_FINAL_ASSISTANT = BOOK.rule("anthropic-messages/thinking-off-final-assistant")
LEADING_THINKING = BOOK.rule("anthropic-messages/leading-thinking")
SIGNATURE_VALID = BOOK.rule("anthropic-messages/signature-valid")
LATEST_IMMUTABLE = BOOK.rule("anthropic-messages/latest-thinking-immutable")

PREFIX_BOUND = BOOK.rule("anthropic-messages/thinking-prefix-bound")


_Episode = tuple[str, str | None, str | None]


def _episode(block: Reasoning) -> _Episode:
    if block.redacted:
        return ("redacted_thinking", None, block.data)
    return ("thinking", block.text, block.signature)


def _raw_episode(item: dict[str, Any]) -> _Episode:
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


@BOOK.checks(FIELD_REQUIRED)
def _field_required(check: CheckedRequest) -> Iterator[Violation]:
    for field in ("model", "max_tokens"):
        if field not in check.body:
            yield FIELD_REQUIRED.violated(field, at=field)
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
            yield FIELD_REQUIRED.violated(at, at=at)


@BOOK.checks(UNKNOWN_BLOCK_TYPE)
def _unknown_block_type(check: CheckedRequest) -> Iterator[Violation]:
    expected = ", ".join(f"'{t}'" for t in sorted(KNOWN_BLOCK_TYPES))
    for message in check.messages:
        for j, block in message.blocks:
            kind = type_of(block)
            if kind is None or kind in KNOWN_BLOCK_TYPES or kind.endswith(SERVER_RESULT_SUFFIX):
                continue
            # An OpenAI content part is refused; a type the suite has never heard of may be
            # one Anthropic added since, so it is recorded and served (``inferred``).
            evidence: Evidence | None = None if kind in FOREIGN_BLOCK_TYPES else "inferred"
            at = f"messages.{message.index}.content.{j}"
            yield UNKNOWN_BLOCK_TYPE.violated(
                at, evidence=evidence, i=message.index, j=j, tag=kind, expected=expected
            )


@BOOK.checks(THINKING_SIGNATURE_REQUIRED, THINKING_TEXT_REQUIRED)
def _thinking_keys(check: CheckedRequest) -> Iterator[Violation]:
    for rule, key in (
        (THINKING_SIGNATURE_REQUIRED, "signature"),
        (THINKING_TEXT_REQUIRED, "thinking"),
    ):
        for message in check.messages:
            for j, block in message.of_type("thinking"):
                if key not in block:
                    at = f"messages.{message.index}.content.{j}.thinking.{key}"
                    yield rule.violated(at, i=message.index, j=j)


@BOOK.checks(TOOL_INPUT_OBJECT)
def _tool_input_object(check: CheckedRequest) -> Iterator[Violation]:
    for message in check.messages:
        for j, block in message.of_type("tool_use"):
            if "input" in block and not isinstance(block["input"], dict):
                at = f"messages.{message.index}.content.{j}.tool_use.input"
                yield TOOL_INPUT_OBJECT.violated(at, i=message.index, j=j)


@BOOK.checks(ADAPTIVE_ONLY_MODEL, FORCED_TOOL_CHOICE, BUDGET_BELOW_MAX_TOKENS)
def _thinking_config(check: CheckedRequest) -> Iterator[Violation]:
    if not check.manual:
        return
    if adaptive_only(check.view.model):
        yield ADAPTIVE_ONLY_MODEL.violated("thinking.type")
        return
    choice = check.body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
        yield FORCED_TOOL_CHOICE.violated("tool_choice")
    budget, limit = check.view.thinking.budget_tokens, check.view.max_tokens
    betas = check.view.betas if isinstance(check.view, AnthropicRequestView) else ()
    interleaved = INTERLEAVED_BETA in betas and bool(check.view.tools)
    if budget is not None and limit is not None and budget >= limit and not interleaved:
        yield BUDGET_BELOW_MAX_TOKENS.violated("thinking.budget_tokens")


@BOOK.checks(USER_NONEMPTY, MESSAGE_NONEMPTY, TEXT_NONEMPTY, TEXT_NONWHITESPACE)
def _nonempty(check: CheckedRequest) -> Iterator[Violation]:
    final = len(check.messages) - 1
    for message in check.messages:
        at = f"messages.{message.index}"
        if message.role == "user" and message.empty:
            yield USER_NONEMPTY.violated(at, i=message.index)
        elif message.role == "assistant" and message.empty and message.index != final:
            yield MESSAGE_NONEMPTY.violated(at, i=message.index)
    for message in check.messages:
        texts = message.of_type("text")
        for j, block in texts:
            if block.get("text") == "":
                yield TEXT_NONEMPTY.violated(f"messages.{message.index}.content.{j}")
        # Blank text is refused only where the message holds nothing else: beside any
        # other block, words or not, the provider serves it (TEXT_NONWHITESPACE's source).
        blank = [j for j, b in texts if _wordless(b.get("text")) and b.get("text")]
        alone = len(texts) == len(message.blocks) and all(
            _wordless(b.get("text")) for _, b in texts
        )
        if blank and alone:
            yield TEXT_NONWHITESPACE.violated(f"messages.{message.index}.content.{blank[0]}")
        elif isinstance(message.content, str) and message.content and _wordless(message.content):
            # String content is the documented shorthand for one text block.
            yield TEXT_NONWHITESPACE.violated(f"messages.{message.index}.content")


def _wordless(text: object) -> bool:
    """Text that is empty or whitespace only."""
    return isinstance(text, str) and not text.strip()


@BOOK.checks(TOOL_USE_ANSWERED, TOOL_RESULT_MATCHED, TOOL_RESULTS_FIRST)
def _tool_pairing(check: CheckedRequest) -> Iterator[Violation]:
    """Rule 13, message by message.  A tool_use message that ends the request has no
    next message yet, so nothing is asked of it."""
    for message in check.messages:
        before = check.at(message.index - 1)
        if message.role == "user":
            offered = set(before.tool_use_ids) if before and before.role == "assistant" else set()
            stray = [(j, i) for j, i in message.tool_result_ids() if i not in offered]
            if stray:
                j = stray[0][0]
                yield TOOL_RESULT_MATCHED.violated(
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
            yield TOOL_RESULTS_FIRST.violated(at, i=after.index, n=len(missing))
        elif missing:
            at = f"messages.{message.index}"
            yield TOOL_USE_ANSWERED.violated(at, i=message.index, ids=", ".join(missing))


@BOOK.checks(SERVER_RESULT_PAIRED)
def _server_result_paired(check: CheckedRequest) -> Iterator[Violation]:
    """Rule 14: a server tool's result travels with its use, in one assistant message."""
    for message in check.messages:
        if message.role != "assistant":
            continue
        used: set[str] = set()
        for j, block in message.blocks:
            kind = type_of(block)
            if kind == "server_tool_use" and isinstance(block.get("id"), str):
                used.add(block["id"])
            elif server_result_type(kind) and _unpaired(block.get("tool_use_id"), used):
                call_id = values.text(block.get("tool_use_id"))
                at = f"messages.{message.index}.content.{j}"
                yield SERVER_RESULT_PAIRED.violated(
                    at, i=message.index, j=j, type=kind, ids=call_id
                )


def _unpaired(call_id: object, used: set[str]) -> bool:
    """A result naming a use that is not before it (a result naming none is the
    required-field rule's business, not this one's)."""
    return isinstance(call_id, str) and call_id not in used


@BOOK.checks(FINAL_BLOCK_THINKING, THINKING_OFF_FINAL_ASSISTANT)
def _trailing_thinking(check: CheckedRequest) -> Iterator[Violation]:
    final = check.at(len(check.messages) - 1)
    if final is not None and final.role == "assistant" and final.last_kind == "thinking":
        yield FINAL_BLOCK_THINKING.violated(f"messages.{final.index}", i=final.index)
    if check.view.thinking.mode == "off" and final is not None and final.role == "assistant":
        for j, _ in final.of_type("thinking")[:1]:
            at = f"messages.{final.index}.content.{j}"
            yield THINKING_OFF_FINAL_ASSISTANT.violated(at, i=final.index, j=j)


@BOOK.checks(PREFILL_WITH_THINKING)
def _prefill_with_thinking(check: CheckedRequest) -> Iterator[Violation]:
    """Rule 10: a final assistant message made of text only is a prefill, which thinking
    does not allow.  One that holds other blocks (a paused turn resent, rule 14) is left
    to the rules on its own shape.  The refusal was seen with manual thinking; with
    adaptive thinking only the doc says so, and the text is inferred."""
    final = check.at(len(check.messages) - 1)
    if check.view.thinking.mode == "off" or final is None or final.role != "assistant":
        return
    content = final.content
    texts = isinstance(content, str) or (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(b, dict) and type_of(b) == "text" for b in content)
    )
    if texts and content:
        at = f"messages.{final.index}.content.0.type"
        evidence: Evidence | None = None if check.manual else "inferred"
        yield PREFILL_WITH_THINKING.violated(at, evidence=evidence, i=final.index, found="text")


@BOOK.checks(PREFILL_TRAILING_WHITESPACE)
def _prefill_whitespace(check: CheckedRequest) -> Iterator[Violation]:
    """Rule 10: only the request's final message, and only when it is an assistant
    prefill whose last content is text."""
    final = check.at(len(check.messages) - 1)
    if final is None or final.role != "assistant":
        return
    content = final.content
    if isinstance(content, list) and content and isinstance(content[-1], dict):
        last = content[-1]
        text = last.get("text") if type_of(last) == "text" else None
    else:
        text = content if isinstance(content, str) else None
    if isinstance(text, str) and text and text != text.rstrip():
        yield PREFILL_TRAILING_WHITESPACE.violated("messages")


@BOOK.checks(LEADING_THINKING)
def _leading_thinking(check: CheckedRequest) -> Iterator[Violation]:
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
    at = f"messages.{turn.index}.content.0"
    if turn.of_type(*REASONING_TYPES):
        # Thinking kept but not first (``[text, thinking, tool_use]`` replayed as
        # streamed): only the design documents assert this rejection; it was never seen
        # live, so the provider serves it and the violation rests on ``design``.
        yield LEADING_THINKING.violated(at, evidence="design", i=turn.index, found=turn.first_kind)
    elif dropped:
        yield LEADING_THINKING.violated(at, i=turn.index, found=turn.first_kind)


@BOOK.checks(SIGNATURE_VALID)
def _signature_valid(check: CheckedRequest) -> Iterator[Violation]:
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
                yield SIGNATURE_VALID.violated(at, i=message.index, j=j)


@BOOK.checks(PREFIX_BOUND)
def _prefix_bound(check: CheckedRequest) -> Iterator[Violation]:
    """Rule 55, where the model binds thinking to its prefix (``_binding``)."""
    found = first_unbound(check)
    if found is not None:
        i, j, kind = found
        field = "data" if kind == "redacted_thinking" else "signature"
        yield PREFIX_BOUND.violated(f"messages.{i}.content.{j}", i=i, j=j, field=field, kind=kind)


@BOOK.checks(LATEST_IMMUTABLE)
def _latest_immutable(check: CheckedRequest) -> Iterator[Violation]:
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
    yield LATEST_IMMUTABLE.violated(at, i=latest.index, j=sent[k][0])


RULES: tuple[Rule, ...] = BOOK.rules
