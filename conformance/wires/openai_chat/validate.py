"""The rules applied to a request: the body's raw ``messages`` read entry by entry,
against what the provider remembers of the session (the responses it served and the
saved history), one check per rule family, in the order of ``RULES``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from conformance.model import Block, Reasoning, ToolCall, opaque_fields
from conformance.wires import values
from conformance.wires.base import RequestView, Rule, RuleViolation, ValidationContext
from conformance.wires.openai_chat.details import reasoning_episodes
from conformance.wires.openai_chat.dialects import DEEPSEEK, OPENROUTER, upstream
from conformance.wires.openai_chat.parse import SYSTEM_ROLES, deepseek_thinking
from conformance.wires.openai_chat.rules import (
    DEEPSEEK_REASONING_CONTENT,
    DEEPSEEK_TOOL_CALLS_ANSWERED,
    DEEPSEEK_TOOL_MESSAGE_ANSWERS,
    OPENROUTER_ANTHROPIC_SIGNATURE,
    OPENROUTER_GEMINI_DETAILS,
    OPENROUTER_GEMINI_SIGNATURE,
    TOOL_CALL_ID_FOUND,
    TOOL_CALLS_ANSWERED,
    TOOL_MESSAGE_ANSWERS,
)


def validate_request(view: RequestView, context: ValidationContext) -> list[RuleViolation]:
    """Every rule the request breaks, in check order."""
    raw_messages = view.raw.get("messages")
    messages = raw_messages if isinstance(raw_messages, list) else []
    check = _Check(view, context, tuple(_Entry.of(i, m) for i, m in enumerate(messages)))
    return [violation for run in CHECKS for violation in run(check)]


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
