"""Message threads (rules 56-59): the rules a request carrying ``thread`` meets, and the
checks that apply them, run before the conversation rules (``rules.BOOK``): the provider
cannot judge a conversation it could not rebuild.

A thread keeps a conversation server-side (its ``system``, ``tools`` and messages, and
each reply under the response ``id``); a ``create`` opens one, a ``continue`` names the
thread's latest response in ``previous_message_id`` and carries only the new messages.
The parse (``_threads``) resolves the ``thread`` field and rebuilds the conversation;
these checks read what it resolved (``AnthropicRequestView.thread``).  They join the
wire's rule book first (``THREAD_BOOK``, which ``rules.BOOK`` includes).

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
from collections.abc import Iterator
from typing import Any

from conformance.catalogue.book import Predicate, RuleBook
from conformance.verdict import Violation
from conformance.wires._anthropic_messages._raw import CheckedRequest
from conformance.wires._anthropic_messages._view import NAME, AnthropicRequestView

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

#: The thread checks, run ahead of the conversation's (``rules.BOOK`` includes them
#: first): the provider cannot judge a conversation it could not rebuild.
THREAD_BOOK: RuleBook[Predicate[CheckedRequest]] = RuleBook(NAME, __name__)

THREAD_BETA = THREAD_BOOK.rule("anthropic-messages/thread-beta-required")
THREAD_SHAPE = THREAD_BOOK.rule("anthropic-messages/thread-shape")
THREAD_UNSUPPORTED = THREAD_BOOK.rule("anthropic-messages/thread-unsupported-request")
THREAD_NOT_FOUND = THREAD_BOOK.rule("anthropic-messages/thread-not-found")
THREAD_ALREADY_CONTINUED = THREAD_BOOK.rule("anthropic-messages/thread-already-continued")
THREAD_CREATE_ONLY = THREAD_BOOK.rule("anthropic-messages/thread-create-only-fields")
THREAD_FINGERPRINT = THREAD_BOOK.rule("anthropic-messages/thread-fingerprint-mismatch")
THREAD_DELTA_RESENT = THREAD_BOOK.rule("anthropic-messages/thread-delta-resent")

THREAD_CALLS_UNANSWERED = THREAD_BOOK.rule("anthropic-messages/thread-calls-unanswered")

#: ``error.details.error_code`` of each thread rule the SDKs name an error type for.
THREAD_ERROR_CODES: dict[str, str] = {
    THREAD_UNSUPPORTED.id: "thread_unsupported_request",
    THREAD_NOT_FOUND.id: "thread_not_found",
    THREAD_ALREADY_CONTINUED.id: "thread_already_continued",
    THREAD_FINGERPRINT.id: "thread_fingerprint_mismatch",
}


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


@THREAD_BOOK.checks(THREAD_BETA, THREAD_SHAPE)
def _thread_field(check: CheckedRequest) -> Iterator[Violation]:
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


@THREAD_BOOK.checks(THREAD_UNSUPPORTED)
def _thread_model(check: CheckedRequest) -> Iterator[Violation]:
    view = _thread_of(check)
    if view is None or view.thread is None or view.thread.state == "malformed":
        return
    if not supports_threads(view.model):
        yield THREAD_UNSUPPORTED.violated("thread", model=view.model)


@THREAD_BOOK.checks(THREAD_NOT_FOUND, THREAD_ALREADY_CONTINUED)
def _thread_continued(check: CheckedRequest) -> Iterator[Violation]:
    view = _thread_of(check)
    if view is None or view.thread is None:
        return
    thread = view.thread
    at = "thread.previous_message_id"
    if thread.state == "not_found":
        yield THREAD_NOT_FOUND.violated(at, id=thread.previous_message_id)
    elif thread.state == "already_continued":
        yield THREAD_ALREADY_CONTINUED.violated(at, id=thread.previous_message_id)


@THREAD_BOOK.checks(
    THREAD_CREATE_ONLY, THREAD_FINGERPRINT, THREAD_DELTA_RESENT, THREAD_CALLS_UNANSWERED
)
def _thread_delta(check: CheckedRequest) -> Iterator[Violation]:
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
