"""The provider rules of the rule catalogue (``docs/rules.md``) section C this wire enforces, each
with its stable id, statement, source and the provider's exact error text, and the check
that applies each, registered in ``BOOK`` in check order (``RULES`` is derived from it;
the package docstring gives the decisions they rest on)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from conformance.catalogue.book import Predicate, RuleBook
from conformance.verdict import Rule, Violation
from conformance.vocabulary import Reasoning, ToolCall, opaque_fields
from conformance.wires._openai_chat._checked import CheckedRequest
from conformance.wires._openai_chat._dialects import (
    DEEPSEEK,
    GEMINI,
    KIMI,
    NAME,
    OPENROUTER,
    upstream,
)
from conformance.wires._openai_chat._messages import (
    call_signature,
    deepseek_thinking,
    kimi_thinking,
)
from conformance.wires._thought_signatures import canonical, is_sentinel


def _google_error(message: str) -> str:
    """Google's error body as OpenRouter relays it in ``metadata.raw`` (two-space JSON and
    a final newline), as a format template in which ``message`` keeps its placeholders."""
    body = {"error": {"code": 400, "message": "\x00", "status": "INVALID_ARGUMENT"}}
    text = json.dumps(body, indent=2) + "\n"
    return text.replace("{", "{{").replace("}", "}}").replace('"\\u0000"', f'"{message}"')


#: The dialects whose answer to an unpaired tool message is known (see ``_tool_pairing``).
_PAIRING_DIALECTS: frozenset[str | None] = frozenset({None, DEEPSEEK, OPENROUTER})

BOOK: RuleBook[Predicate[CheckedRequest]] = RuleBook(NAME, __name__)
TOOL_MESSAGE_ANSWERS = BOOK.rule("openai-chat/tool-message-follows-tool-calls")
TOOL_CALL_ID_FOUND = BOOK.rule("openai-chat/tool-call-id-found")
TOOL_CALLS_ANSWERED = BOOK.rule("openai-chat/tool-calls-answered")
DEEPSEEK_TOOL_MESSAGE_ANSWERS = BOOK.rule("openai-chat/deepseek-tool-message-follows-tool-calls")
DEEPSEEK_TOOL_CALLS_ANSWERED = BOOK.rule("openai-chat/deepseek-tool-calls-answered")
DEEPSEEK_REASONING_CONTENT = BOOK.rule("openai-chat/deepseek-reasoning-content-replayed")
OPENROUTER_ANTHROPIC_SIGNATURE = BOOK.rule("openai-chat/openrouter-anthropic-signature")
OPENROUTER_GEMINI_SIGNATURE = BOOK.rule("openai-chat/openrouter-gemini-signature-valid")
OPENROUTER_GEMINI_DETAILS = BOOK.rule("openai-chat/openrouter-gemini-details-preserved")
KIMI_REASONING_CONTENT = BOOK.rule("openai-chat/kimi-reasoning-content-replayed")
GEMINI_COMPAT_SIGNATURE = BOOK.rule("openai-chat/gemini-call-signature")
GEMINI_COMPAT_SIGNATURE_MINTED = BOOK.rule("openai-chat/gemini-signature-corrupted")
ASSISTANT_CONTENT_PRESENT = BOOK.rule("openai-chat/assistant-content-present")


@BOOK.checks(
    TOOL_MESSAGE_ANSWERS,
    TOOL_CALL_ID_FOUND,
    TOOL_CALLS_ANSWERED,
    DEEPSEEK_TOOL_MESSAGE_ANSWERS,
    DEEPSEEK_TOOL_CALLS_ANSWERED,
)
def _tool_pairing(check: CheckedRequest) -> Iterator[Violation]:
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
def _assistant_content_present(check: CheckedRequest) -> Iterator[Violation]:
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
def _deepseek_reasoning_content(check: CheckedRequest) -> Iterator[Violation]:
    """Rules 35 and 36: the key, as a string, on every tool-call message."""
    if check.dialect != DEEPSEEK or not deepseek_thinking(check.view.raw):
        return
    for entry in check.entries:
        if entry.calls and not isinstance(entry.body.get("reasoning_content"), str):
            at = f"messages.{entry.index}.reasoning_content"
            yield DEEPSEEK_REASONING_CONTENT.violated(at, i=entry.index)


@BOOK.checks(KIMI_REASONING_CONTENT)
def _kimi_reasoning_content(check: CheckedRequest) -> Iterator[Violation]:
    """Rule 36: the key, as a string, on every tool-call message (Kimi's placeholder
    ``""`` included)."""
    if check.dialect != KIMI or not kimi_thinking(check.view.raw):
        return
    for entry in check.entries:
        if entry.calls and not isinstance(entry.body.get("reasoning_content"), str):
            at = f"messages.{entry.index}.reasoning_content"
            yield KIMI_REASONING_CONTENT.violated(at, i=entry.index)


@BOOK.checks(GEMINI_COMPAT_SIGNATURE)
def _gemini_call_signature(check: CheckedRequest) -> Iterator[Violation]:
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
def _gemini_signature_minted(check: CheckedRequest) -> Iterator[Violation]:
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
def _openrouter_signatures(check: CheckedRequest) -> Iterator[Violation]:
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
def _openrouter_preserved(check: CheckedRequest) -> Iterator[Violation]:
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
