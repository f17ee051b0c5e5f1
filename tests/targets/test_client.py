"""Driving Client targets: both transports, sync and async, failures captured."""

from __future__ import annotations

from typing import ClassVar

import httpx
import httpx2

from conformance._targets.api import Client, Conversation
from conformance._targets.client import INTERCEPTED_BASE_URL, run_client
from conformance.http import HttpRequest, HttpResponse, json_response
from tests.targets.conversation import SESSION


class Recorder:
    def __init__(self) -> None:
        self.requests: list[HttpRequest] = []

    def __call__(self, request: HttpRequest) -> HttpResponse:
        self.requests.append(request)
        return json_response(200, {"n": len(self.requests)})


class SyncClient(Client):
    """Posts each prompt once, with httpx, and remembers where it was sent."""

    seen: ClassVar[list[str]] = []

    def run(self, conversation: Conversation) -> None:
        type(self).seen.append(conversation.base_url)
        with httpx.Client() as http:
            for prompt in conversation.brief.prompts:
                http.post(f"{conversation.base_url}/v1/messages", content=prompt.encode())


class AsyncClient(Client):
    """The same with an async httpx2 client: ``run`` is a coroutine function."""

    async def run(self, conversation: Conversation) -> None:
        async with httpx2.AsyncClient() as http:
            for prompt in conversation.brief.prompts:
                await http.post(f"{conversation.base_url}/v1/messages", content=prompt.encode())


class LoopbackClient(SyncClient):
    transport: ClassVar[str] = "loopback"


class FailingClient(Client):
    def run(self, conversation: Conversation) -> None:
        response = httpx.post(f"{conversation.base_url}/v1/messages", content=b"{}")
        raise LookupError(f"no luck after {response.json()['n']} request")


class Unreachable(Client):
    """Sends to a host the provider does not serve: interception must refuse it."""

    def run(self, conversation: Conversation) -> None:
        httpx.post("http://elsewhere.invalid/v1/messages")


class UnknownTransport(SyncClient):
    transport: ClassVar[str] = "carrier-pigeon"


def prompts(recorder: Recorder) -> list[bytes]:
    return [r.body for r in recorder.requests]


def test_a_sync_client_is_intercepted() -> None:
    recorder = Recorder()
    SyncClient.seen.clear()
    result = run_client(SyncClient(), SESSION, recorder)
    assert result.ok, result.error
    assert SyncClient.seen == [INTERCEPTED_BASE_URL]
    assert prompts(recorder) == [p.encode() for p in SESSION.prompts]


def test_an_async_client_runs_in_a_fresh_loop() -> None:
    recorder = Recorder()
    result = run_client(AsyncClient(), SESSION, recorder)
    assert result.ok, result.error
    assert prompts(recorder) == [p.encode() for p in SESSION.prompts]
    assert {r.path for r in recorder.requests} == {"/v1/messages"}


def test_a_loopback_client_gets_a_real_server() -> None:
    recorder = Recorder()
    SyncClient.seen.clear()
    result = run_client(LoopbackClient(), SESSION, recorder)
    assert result.ok, result.error
    (base_url,) = SyncClient.seen
    assert base_url.startswith("http://127.0.0.1:")
    assert prompts(recorder) == [p.encode() for p in SESSION.prompts]


def test_an_exception_is_captured_with_its_traceback() -> None:
    result = run_client(FailingClient(), SESSION, Recorder())
    assert not result.ok
    assert result.error is not None
    assert (result.error.type, result.error.message) == ("LookupError", "no luck after 1 request")
    assert str(result.error) == "LookupError: no luck after 1 request"
    assert "in run" in result.error.traceback
    assert result.error.traceback.endswith("LookupError: no luck after 1 request")


def test_a_request_outside_the_provider_is_an_error_not_a_network_call() -> None:
    recorder = Recorder()
    result = run_client(Unreachable(), SESSION, recorder)
    assert result.error is not None
    assert result.error.type == "AllMockedAssertionError"
    assert recorder.requests == []


def test_an_unknown_transport_is_an_error() -> None:
    result = run_client(UnknownTransport(), SESSION, Recorder())
    assert result.error is not None
    assert "unknown client transport 'carrier-pigeon'" in result.error.message
