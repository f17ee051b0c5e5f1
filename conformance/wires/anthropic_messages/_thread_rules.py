"""Message threads (rules 56-59): the rules a request carrying ``thread`` meets, and the
checks that apply them, run before the conversation rules (``rules.BOOK``): the provider
cannot judge a conversation it could not rebuild.

A thread keeps a conversation server-side (its ``system``, ``tools`` and messages, and
each reply under the response ``id``); a ``create`` opens one, a ``continue`` names the
thread's latest response in ``previous_message_id`` and carries only the new messages.
The parse (``_threads``) resolves the ``thread`` field and rebuilds the conversation;
these checks read what it resolved (``AnthropicRequestView.thread``).  They join the
wire's rule book first (``register_thread_checks``, called by ``rules``).

Evidence: the beta header, the request fields, the supported models and the error codes
with their statuses (``error.details.error_code``: ``thread_not_found`` 404,
``thread_already_continued``, ``thread_unsupported_request`` and
``thread_fingerprint_mismatch`` 400) are documented (the message-threads page and the
SDKs' error types).  The error *messages* are not published: the texts below are the
suite's own, in Anthropic's style, and where even the rejection is undocumented (a
missing beta header, create-only fields on a continue, which fields a thread fixes, a
re-sent history) the violation rests on inference, so it is recorded and served.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from conformance.wires.anthropic_messages._raw import CheckedRequest
from conformance.wires.anthropic_messages._view import AnthropicRequestView
from conformance.wires.base import Rule, RuleViolation
from conformance.wires.rulebook import RuleBook

#: The beta header value that turns message threads on.
THREADS_BETA = "message-threads-2026-08-12"
#: The fields only a ``create`` carries: the thread keeps them.
CREATE_ONLY = ("system", "tools")
#: The models the message-threads page lists as supported (``supportedModels``).
SUPPORTED_MODELS = frozenset(
    {
        "claude-fable-5-1",
        "claude-mythos-5-1",
        "claude-fable-5",
        "claude-mythos-5",
        "claude-mythos-preview",
        "claude-opus-5-5",
        "claude-opus-5",
        "claude-sonnet-5-5",
        "claude-sonnet-5",
        "claude-haiku-5-5",
        "claude-haiku-4-5-20251001",
        "claude-opus-4-8",
        "claude-opus-4-7",
        "claude-opus-4-6",
        "claude-sonnet-4-6",
        "claude-opus-4-5-20251101",
        "claude-sonnet-4-5-20250929",
    }
)
_DATED = re.compile(r"(.+)-\d{8}")

_SOURCES_56 = (
    "rule 56: platform.claude.com message-threads page (beta header "
    "message-threads-2026-08-12; thread create and continue)"
)
_SOURCES_57 = (
    "rule 57: platform.claude.com message-threads page; the SDKs' error types "
    "(anthropic-sdk-ruby ThreadNotFoundError, a 404, and ThreadAlreadyContinuedError, a "
    "400, each with error.details.error_code); the message text is the suite's own"
)
_SOURCES_58 = (
    "rule 58: platform.claude.com message-threads page (a continue sends only the "
    "messages since the previous response and leaves system and tools out); "
    "anthropic-sdk-ruby ThreadFingerprintMismatchError (a 400); no rejection text is "
    "published, so a violation rests on inference"
)
_SOURCES_59 = (
    "rule 59: platform.claude.com message-threads page (supportedModels); "
    "anthropic-sdk-ruby ThreadUnsupportedRequestError (a 400, error.details.error_code "
    "thread_unsupported_request: send the conversation without thread); the SDK tool "
    "runners fall back on it (unsupportedRequestBehavior); the message text is the "
    "suite's own"
)

THREAD_BETA = Rule(
    id="anthropic-messages/thread-beta-required",
    ref="rule A56",
    statement=(
        "A request carrying `thread` sends the `message-threads-2026-08-12` beta in its "
        "`anthropic-beta` header."
    ),
    source=_SOURCES_56 + "; the text is Anthropic's for a field it does not take",
    error="thread: Extra inputs are not permitted",
    evidence="inferred",
)
THREAD_SHAPE = Rule(
    id="anthropic-messages/thread-shape",
    ref="rule A56",
    statement=(
        '`thread` is `{"type": "create"}` or `{"type": "continue", '
        '"previous_message_id": "<a response id>"}`.'
    ),
    source=_SOURCES_56 + "; pydantic-style text as the wire's other shape errors",
    error="{at}: {problem}",
    evidence="inferred",
)
THREAD_UNSUPPORTED = Rule(
    id="anthropic-messages/thread-unsupported-request",
    ref="rule A59",
    statement=(
        "A model message threads do not support answers a threaded request with "
        "`thread_unsupported_request`; a client falls back to the whole conversation "
        "without `thread` (a fallback, not a fault of the client)."
    ),
    source=_SOURCES_59,
    error=(
        "thread: message threads do not support the model `{model}`. Send the full "
        "conversation without `thread`."
    ),
    evidence="documented",
    fallback=True,
)
THREAD_NOT_FOUND = Rule(
    id="anthropic-messages/thread-not-found",
    ref="rule A57",
    statement=(
        "`previous_message_id` of a `continue` names a response a thread of this "
        "provider holds (a thread expires 5 minutes after its last request)."
    ),
    source=_SOURCES_57,
    error=(
        "thread.previous_message_id: no thread state found for `{id}`. Replay the full "
        'conversation with `thread: {{"type": "create"}}`.'
    ),
    status=404,
    error_type="not_found_error",
    evidence="documented",
)
THREAD_ALREADY_CONTINUED = Rule(
    id="anthropic-messages/thread-already-continued",
    ref="rule A57",
    statement=(
        "`previous_message_id` names the thread's latest response: each response is "
        "continued once, so an earlier one (a stale id) is refused."
    ),
    source=_SOURCES_57,
    error=(
        "thread.previous_message_id: the response `{id}` was already continued. Continue "
        "from the thread's most recent response id."
    ),
    evidence="documented",
)
THREAD_CREATE_ONLY = Rule(
    id="anthropic-messages/thread-create-only-fields",
    ref="rule A58",
    statement="A `continue` leaves out `system` and `tools`: the thread keeps them.",
    source=_SOURCES_58,
    error="{field}: leave `{field}` out of a thread continue request; the thread keeps it.",
    evidence="inferred",
)
THREAD_FINGERPRINT = Rule(
    id="anthropic-messages/thread-fingerprint-mismatch",
    ref="rule A58",
    statement="A `continue` names the same `model` as the thread's earlier requests.",
    source=_SOURCES_58,
    error=(
        "model: `{sent}` differs from the value stored with the thread (`{stored}`). Send "
        'the stored value, or replay the full conversation with `thread: {{"type": '
        '"create"}}`.'
    ),
    evidence="inferred",
)
THREAD_DELTA_RESENT = Rule(
    id="anthropic-messages/thread-delta-resent",
    ref="rule A58",
    statement=(
        "A `continue` carries only the messages since the previous response, never the "
        "conversation the thread already holds."
    ),
    source=_SOURCES_58,
    error=(
        "messages.0: a thread continue request sends only the new messages; this one "
        "repeats {what} the thread already holds."
    ),
    evidence="inferred",
)

THREAD_CALLS_UNANSWERED = Rule(
    id="anthropic-messages/thread-calls-unanswered",
    ref="rule A58",
    statement=(
        "After a reply that stopped for tool use, a `continue` opens with the user message "
        "that answers its calls: only a paused turn is resumed with no new message."
    ),
    source=_SOURCES_58,
    error=(
        "messages: the thread's latest response asked for tool results ({ids}); a continue "
        "request must start with the user message holding them."
    ),
    evidence="inferred",
)

#: ``error.details.error_code`` of each thread rule the SDKs name an error type for.
THREAD_ERROR_CODES: dict[str, str] = {
    THREAD_UNSUPPORTED.id: "thread_unsupported_request",
    THREAD_NOT_FOUND.id: "thread_not_found",
    THREAD_ALREADY_CONTINUED.id: "thread_already_continued",
    THREAD_FINGERPRINT.id: "thread_fingerprint_mismatch",
}

#: The checks that apply the thread rules, in the order the provider checks them.
_CHECKS: list[tuple[tuple[Rule, ...], Callable[[CheckedRequest], Iterator[RuleViolation]]]] = []


def _checks(
    *rules: Rule,
) -> Callable[
    [Callable[[CheckedRequest], Iterator[RuleViolation]]],
    Callable[[CheckedRequest], Iterator[RuleViolation]],
]:
    def register(
        check: Callable[[CheckedRequest], Iterator[RuleViolation]],
    ) -> Callable[[CheckedRequest], Iterator[RuleViolation]]:
        _CHECKS.append((rules, check))
        return check

    return register


def register_thread_checks(book: RuleBook[CheckedRequest]) -> None:
    """Register the thread checks in the wire's rule book (``rules.BOOK``), ahead of the
    conversation rules: the provider cannot judge a conversation it could not rebuild."""
    for rules, check in _CHECKS:
        book.checks(*rules)(check)


def supports_threads(model: str | None) -> bool:
    """Whether the model is one the page lists; an alias counts as its dated id
    (``claude-sonnet-4-5`` is ``claude-sonnet-4-5-20250929``)."""
    if not model:
        return False
    if model in SUPPORTED_MODELS:
        return True
    return any((m := _DATED.fullmatch(s)) is not None and m[1] == model for s in SUPPORTED_MODELS)


def _thread_of(check: CheckedRequest) -> AnthropicRequestView | None:
    view = check.view
    if isinstance(view, AnthropicRequestView) and view.thread is not None:
        return view
    return None


@_checks(THREAD_BETA, THREAD_SHAPE)
def _thread_field(check: CheckedRequest) -> Iterator[RuleViolation]:
    view = _thread_of(check)
    if view is None or view.thread is None:
        return
    if THREADS_BETA not in view.betas:
        yield THREAD_BETA.violated("thread")
    thread = view.thread
    if thread.state != "malformed":
        return
    if thread.kind not in ("create", "continue"):
        expected = "'create', 'continue'"
        problem = (
            f"Input tag '{thread.kind}' found using 'type' does not match any of the "
            f"expected tags: {expected}"
        )
        yield THREAD_SHAPE.violated("thread.type", at="thread.type", problem=problem)
    else:
        at = "thread.continue.previous_message_id"
        yield THREAD_SHAPE.violated(at, at=at, problem="Field required")


@_checks(THREAD_UNSUPPORTED)
def _thread_model(check: CheckedRequest) -> Iterator[RuleViolation]:
    view = _thread_of(check)
    if view is None or view.thread is None or view.thread.state == "malformed":
        return
    if not supports_threads(view.model):
        yield THREAD_UNSUPPORTED.violated("thread", model=view.model)


@_checks(THREAD_NOT_FOUND, THREAD_ALREADY_CONTINUED)
def _thread_continued(check: CheckedRequest) -> Iterator[RuleViolation]:
    view = _thread_of(check)
    if view is None or view.thread is None:
        return
    thread = view.thread
    at = "thread.previous_message_id"
    if thread.state == "not_found":
        yield THREAD_NOT_FOUND.violated(at, id=thread.previous_message_id)
    elif thread.state == "already_continued":
        yield THREAD_ALREADY_CONTINUED.violated(at, id=thread.previous_message_id)


@_checks(THREAD_CREATE_ONLY, THREAD_FINGERPRINT, THREAD_DELTA_RESENT, THREAD_CALLS_UNANSWERED)
def _thread_delta(check: CheckedRequest) -> Iterator[RuleViolation]:
    view = _thread_of(check)
    if view is None or view.thread is None or view.thread.state != "continued":
        return
    thread = view.thread
    for field in thread.create_only:
        yield THREAD_CREATE_ONLY.violated(field, field=field)
    if thread.stored_model is not None and view.model != thread.stored_model:
        yield THREAD_FINGERPRINT.violated("model", sent=view.model, stored=thread.stored_model)
    what = _resent(thread.stored, thread.delta)
    if what is not None:
        yield THREAD_DELTA_RESENT.violated("messages.0", what=what)
    elif _unanswered(thread.stored, thread.delta):
        calls = _calls(thread.stored[-1])
        yield THREAD_CALLS_UNANSWERED.violated("messages", ids=", ".join(calls))


def _calls(message: object) -> list[str]:
    """The ids of a stored reply's tool_use blocks."""
    content = message.get("content") if isinstance(message, dict) else None
    return [
        b["id"]
        for b in (content if isinstance(content, list) else [])
        if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str)
    ]


def _unanswered(stored: tuple[Any, ...], delta: tuple[Any, ...]) -> bool:
    """Whether the thread's reply called tools and the delta does not open with a user
    message (whether it answers each call is rule 13's, on the rebuilt conversation)."""
    if not stored or not _calls(stored[-1]):
        return False
    first = delta[0] if delta else None
    return not (isinstance(first, dict) and first.get("role") == "user")


def _resent(stored: tuple[Any, ...], delta: tuple[Any, ...]) -> str | None:
    """What of the stored conversation the delta opens by sending again: its first
    message (the whole history re-sent), or the latest reply; ``None``: neither."""
    if not delta or not stored:
        return None
    if delta[0] == stored[0]:
        return "the conversation"
    if (
        isinstance(delta[0], dict)
        and delta[0].get("role") == "assistant"
        and delta[0] == stored[-1]
    ):
        return "the previous response"
    return None
