"""The wire's name and its request view: the neutral view plus what rule 12c reads, and
what a message-thread request (rules 56-59) says about the thread it opens or continues."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict

from conformance.wires.context import RequestView

NAME = "anthropic-messages"

#: How the provider resolved a request's ``thread``: ``created`` (a ``create``),
#: ``continued`` (a ``continue`` naming the thread's latest response), ``not_found`` (no
#: thread holds that response), ``already_continued`` (an earlier response of a thread,
#: continued once already), ``malformed`` (not a ``thread`` object the API takes).
ThreadState: TypeAlias = Literal[
    "created", "continued", "not_found", "already_continued", "malformed"
]


class ThreadRequest(BaseModel):
    """A request's ``thread`` field as the provider resolved it.

    ``start`` is where the body's own ``messages`` begin in the view's (reconstructed)
    ``messages``: 0 for a ``create``, the stored conversation's length for a resolved
    ``continue``.  ``stored_model`` and ``stored`` are the thread's model and messages
    before this request; ``create_only`` the create-only fields the body carries anyway.
    """

    model_config = ConfigDict(frozen=True)

    kind: str | None
    state: ThreadState
    previous_message_id: str | None = None
    start: int = 0
    create_only: tuple[str, ...] = ()
    stored_model: str | None = None
    stored: tuple[Any, ...] = ()
    delta: tuple[Any, ...] = ()


class AnthropicRequestView(RequestView):
    """The neutral view plus the ``anthropic-beta`` values, which rule 12c reads, and the
    request's ``thread`` as the provider resolved it (``None``: a stateless request).

    For a resolved ``continue`` the view is the conversation the provider rebuilt (the
    thread's ``system``, ``tools`` and messages, then the body's new messages), so every
    rule and check judges a threaded client exactly as a stateless one that sends it
    all; the recorded request keeps the body as sent."""

    betas: tuple[str, ...] = ()
    thread: ThreadRequest | None = None
