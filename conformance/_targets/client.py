"""Driving a ``Client`` target: the user's real client stack against the provider.

The client runs in-process, pointed either at a fake host that respx (httpx and httpx2)
routes to the handler, or at a loopback server.  Whatever it raises is captured into the
result: a crashing client is a verdict (``error``), never a crash of the suite.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ClassVar

from conformance._provider.loopback import Handler, LoopbackServer
from conformance._targets.api import CaseBrief, Client, Conversation, ConversationStopped
from conformance._targets.kind import Crash, Outcome, Stage, TargetKind, hold_in_process

#: The host respx-intercepted clients are pointed at; ``.invalid`` never resolves.
INTERCEPTED_BASE_URL = "http://conformance.invalid"
#: Where a ``ClientKind`` points its clients once ``n`` of its conversations hung: a
#: client left hanging keeps its interception, so the next one gets another host.
AFTER_HANG_BASE_URL = "http://after-hang-{n}.conformance.invalid"
TRANSPORTS = ("respx", "loopback")


@dataclass(frozen=True)
class ClientRunResult:
    """How the client's ``run`` ended: ``error`` is what it raised, if anything;
    ``halted`` the message of a ``ConversationStopped`` it raised."""

    error: Crash | None = None
    halted: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@contextmanager
def _provider(transport: str, handler: Handler, intercepted: str) -> Iterator[str]:
    """The provider's base URL, served the way the client asked for."""
    if transport == "loopback":
        with LoopbackServer(handler) as server:
            yield server.base_url
    elif transport == "respx":
        # Imported here: respx (and httpx2's mocker) is the in-process transport's
        # alone, and a command run never holds an in-process client.
        from conformance._provider.intercept import intercept

        with intercept(handler, intercepted):
            yield intercepted
    else:
        raise ValueError(f"unknown client transport {transport!r}; known: {TRANSPORTS}")


async def _complete(awaitable: Awaitable[None]) -> None:
    await awaitable


def run_client(
    client: Client,
    session: CaseBrief,
    handler: Handler,
    intercepted: str = INTERCEPTED_BASE_URL,
) -> ClientRunResult:
    """Hold ``session`` with ``client`` against ``handler`` (at ``intercepted`` when the
    client's transport is respx); a coroutine ``run`` gets a fresh event loop.
    Exceptions end up in the result."""
    try:
        with _provider(client.transport, handler, intercepted) as base_url:
            outcome = client.run(Conversation(brief=session, base_url=base_url))
            if inspect.isawaitable(outcome):
                asyncio.run(_complete(outcome))
    except ConversationStopped as stop:  # the library's own deliberate stop, not a crash
        return ClientRunResult(halted=str(stop) or type(stop).__name__)
    except Exception as error:
        return ClientRunResult(error=Crash.of(error))
    return ClientRunResult()


@dataclass(frozen=True)
class ClientKind(TargetKind):
    """The ``Client`` kind: ``run_client`` on a thread of its own, within the stage's
    timeout; what the client raised is the outcome's crash."""

    name: ClassVar[str] = "client"
    client: Client
    #: The hosts of this target's conversations that were left hanging.
    _hung: list[str] = field(default_factory=list, compare=False, repr=False)

    @property
    def intercepted(self) -> str:
        """The base URL respx clients get: the usual one until a conversation hangs."""
        if not self._hung:
            return INTERCEPTED_BASE_URL
        return AFTER_HANG_BASE_URL.format(n=len(self._hung))

    def hold(self, stage: Stage) -> Outcome:
        host, finished = self.intercepted, threading.Event()

        def run() -> Outcome:
            try:
                result = run_client(self.client, stage.session, stage.provider.handle, host)
            finally:
                finished.set()
            if result.error is not None:
                return Outcome.crashed(result.error)
            return Outcome(halted=result.halted)

        outcome = hold_in_process(run, stage.timeout)
        if not finished.is_set():
            self._hung.append(host)
        return outcome
