"""In-process interception: httpx and httpx2 clients talk to a handler, no socket.

respx patches ``httpx`` only, but the current ``anthropic`` and ``openai`` SDKs (and the
frameworks built on them) send through ``httpx2``, a fork with the same client classes.
``httpx2.alias_httpx()`` would make respx see them, but it rewrites ``sys.modules`` for
the whole process and its own docstring forbids libraries from calling it.  Instead a
respx ``Mocker`` is registered for httpx2: it swaps ``_transport_for_url`` on httpx2's
clients, exactly as respx's own httpx mocker does on httpx's, and converts each request
to httpx for respx's router and each response back.

Nothing ever passes through to the network: a request outside ``base_url`` raises.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack, contextmanager
from types import ModuleType
from typing import Any, ClassVar

import httpx
import respx
from respx.mocks import Mocker

from conformance._provider.loopback import Handler, answer
from conformance.http import HttpRequest, HttpResponse


def _optional(module: str) -> ModuleType | None:
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


#: httpx2 is optional: without it only httpx is intercepted.
httpx2 = _optional("httpx2")

HTTPX2_MOCKER = "conformance-httpx2"


def _headers(raw: list[tuple[bytes, bytes]]) -> dict[str, str]:
    """Header names as the client wrote them; repeated headers joined as HTTP allows."""
    merged: dict[str, str] = {}
    for name, value in raw:
        key, text = name.decode("latin-1"), value.decode("latin-1")
        merged[key] = f"{merged[key]}, {text}" if key in merged else text
    return merged


def to_http_request(request: httpx.Request) -> HttpRequest:
    """The neutral record of an (already read) httpx request."""
    path, _, query = request.url.raw_path.decode("ascii").partition("?")
    return HttpRequest(
        method=request.method,
        path=path,
        query=query,
        headers=_headers(request.headers.raw),
        body=request.content,
    )


class _Reads(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A framed body's reads, one ``chunk`` each, for sync and async clients alike."""

    def __init__(self, chunks: tuple[bytes, ...]) -> None:
        self.chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk


def to_httpx_response(response: HttpResponse) -> httpx.Response:
    """The httpx response; a framed body arrives in its reads, as over a socket."""
    headers = list(response.headers)
    if response.framed:
        return httpx.Response(response.status, headers=headers, stream=_Reads(response.chunks))
    return httpx.Response(response.status, headers=headers, content=response.body)


def _route(handler: Handler) -> Callable[[httpx.Request], httpx.Response]:
    def side_effect(request: httpx.Request) -> httpx.Response:
        return to_httpx_response(answer(handler, to_http_request(request)))

    return side_effect


class _Httpx2Mocker(Mocker):
    """respx's httpx mocker, for httpx2's clients; never passes through."""

    name = HTTPX2_MOCKER
    targets: ClassVar[list[str]] = ["httpx2._client.Client", "httpx2._client.AsyncClient"]
    target_methods: ClassVar[list[str]] = ["_transport_for_url"]

    @staticmethod
    def _to_httpx(request: Any) -> httpx.Request:
        return httpx.Request(
            request.method,
            str(request.url),
            headers=request.headers.raw,
            content=request.content,
        )

    @staticmethod
    def _from_httpx(response: httpx.Response) -> Any:
        assert httpx2 is not None
        if isinstance(response.stream, _Reads):  # a framed body keeps its reads
            return httpx2.Response(
                response.status_code,
                headers=response.headers.raw,
                stream=_Httpx2Reads(response.stream.chunks),
            )
        return httpx2.Response(
            response.status_code, headers=response.headers.raw, content=response.content
        )

    @classmethod
    def _handle(cls, request: Any) -> Any:
        return cls._from_httpx(cls.handler(cls._to_httpx(request)))  # type: ignore[no-untyped-call]

    @classmethod
    async def _handle_async(cls, request: Any) -> Any:
        return cls._from_httpx(await cls.async_handler(cls._to_httpx(request)))  # type: ignore[no-untyped-call]

    @classmethod
    def mock(cls, spec: Callable[..., Any]) -> Callable[..., Any]:
        def _transport_for_url(client: Any, *args: Any, **kwargs: Any) -> Any:
            assert httpx2 is not None
            asynchronous = inspect.iscoroutinefunction(client.request)
            return httpx2.MockTransport(cls._handle_async if asynchronous else cls._handle)

        return _transport_for_url


if httpx2 is not None:

    class _Httpx2Reads(httpx2.SyncByteStream, httpx2.AsyncByteStream):  # type: ignore[name-defined,misc]
        """``_Reads`` for httpx2's clients."""

        def __init__(self, chunks: tuple[bytes, ...]) -> None:
            self.chunks = chunks

        def __iter__(self) -> Iterator[bytes]:
            yield from self.chunks

        async def __aiter__(self) -> AsyncIterator[bytes]:
            for chunk in self.chunks:
                yield chunk


def _mockers() -> tuple[str, ...]:
    """The respx mockers to start: httpx always, httpx2 when it is installed."""
    return ("httpx",) if httpx2 is None else ("httpx", HTTPX2_MOCKER)


@contextmanager
def intercept(handler: Handler, base_url: str) -> Iterator[None]:
    """Route every httpx/httpx2 request under ``base_url`` to ``handler``, sync and
    async clients alike, until the block ends; any other request raises."""
    with ExitStack() as stack:
        for using in _mockers():
            router = respx.mock(
                base_url=base_url, assert_all_called=False, assert_all_mocked=True, using=using
            )
            router.route().mock(side_effect=_route(handler))
            stack.enter_context(router)
        yield
