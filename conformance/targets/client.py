"""Driving a ``Client`` target: the user's real client stack against the provider.

The client runs in-process, pointed either at a fake host that respx (httpx and httpx2)
routes to the handler, or at a loopback server.  Whatever it raises is captured into the
result: a crashing client is a verdict (``error``), never a crash of the suite.
"""

from __future__ import annotations

import asyncio
import inspect
import traceback
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from conformance.provider.intercept import intercept
from conformance.provider.loopback import Handler, LoopbackServer
from conformance.targets.base import Client, Conversation, Session

#: The host respx-intercepted clients are pointed at; ``.invalid`` never resolves.
INTERCEPTED_BASE_URL = "http://conformance.invalid"
TRACEBACK_LINES = 12
TRANSPORTS = ("respx", "loopback")


@dataclass(frozen=True)
class ClientError:
    """An exception the client raised: its type, message and the end of its traceback."""

    type: str
    message: str
    traceback: str

    def __str__(self) -> str:
        return f"{self.type}: {self.message}"


@dataclass(frozen=True)
class ClientRunResult:
    error: ClientError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@contextmanager
def _provider(transport: str, handler: Handler) -> Iterator[str]:
    """The provider's base URL, served the way the client asked for."""
    if transport == "loopback":
        with LoopbackServer(handler) as server:
            yield server.base_url
    elif transport == "respx":
        with intercept(handler, INTERCEPTED_BASE_URL):
            yield INTERCEPTED_BASE_URL
    else:
        raise ValueError(f"unknown client transport {transport!r}; known: {TRANSPORTS}")


async def _complete(awaitable: Awaitable[None]) -> None:
    await awaitable


def _captured(error: Exception) -> ClientError:
    lines = "".join(traceback.format_exception(error)).rstrip().splitlines()
    return ClientError(
        type=type(error).__qualname__,
        message=str(error),
        traceback="\n".join(lines[-TRACEBACK_LINES:]),
    )


def run_client(client: Client, session: Session, handler: Handler) -> ClientRunResult:
    """Hold ``session`` with ``client`` against ``handler``; a coroutine ``run`` gets a
    fresh event loop.  Exceptions end up in the result."""
    try:
        with _provider(client.transport, handler) as base_url:
            outcome = client.run(Conversation(session=session, base_url=base_url))
            if inspect.isawaitable(outcome):
                asyncio.run(_complete(outcome))
    except Exception as error:
        return ClientRunResult(error=_captured(error))
    return ClientRunResult()
