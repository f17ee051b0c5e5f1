"""Interception: httpx and httpx2 clients, sync and async, reach the handler; nothing
else goes anywhere; nothing stays patched."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import httpx
import httpx2
import pytest
from respx.models import AllMockedAssertionError

from conformance._provider.intercept import intercept
from conformance.http import HttpRequest, HttpResponse, json_response

BASE = "http://conformance.invalid"
PATCHED = (
    (httpx.Client, "_transport_for_url"),
    (httpx.AsyncClient, "_transport_for_url"),
    (httpx2.Client, "_transport_for_url"),
    (httpx2.AsyncClient, "_transport_for_url"),
)


class Recorder:
    def __init__(self) -> None:
        self.requests: list[HttpRequest] = []

    def __call__(self, request: HttpRequest) -> HttpResponse:
        self.requests.append(request)
        if request.path == "/boom":
            raise ValueError("scripted failure")
        return json_response(200, {"path": request.path}, {"x-served": "yes"})


def check(recorder: Recorder, status: int, text: str, served: str | None) -> None:
    assert (status, text, served) == (200, '{"path":"/v1/messages"}', "yes")
    (request,) = recorder.requests
    assert (request.method, request.path, request.query) == ("POST", "/v1/messages", "beta=true")
    assert request.body == b'{"a":1}'
    assert request.header("x-api-key") == "k"


def post_sync(module: Any) -> tuple[int, str, str | None]:
    with module.Client() as client:
        response = client.post(
            f"{BASE}/v1/messages?beta=true", content=b'{"a":1}', headers={"x-api-key": "k"}
        )
        return response.status_code, response.text, response.headers.get("x-served")


async def post_async(module: Any) -> tuple[int, str, str | None]:
    async with module.AsyncClient() as client:
        response = await client.post(
            f"{BASE}/v1/messages?beta=true", content=b'{"a":1}', headers={"x-api-key": "k"}
        )
        return response.status_code, response.text, response.headers.get("x-served")


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_sync_clients_reach_the_handler(module: Any) -> None:
    recorder = Recorder()
    with intercept(recorder, BASE):
        check(recorder, *post_sync(module))


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_async_clients_reach_the_handler(module: Any) -> None:
    recorder = Recorder()
    with intercept(recorder, BASE):
        check(recorder, *asyncio.run(post_async(module)))


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_a_request_outside_the_base_url_fails_loudly(module: Any) -> None:
    recorder = Recorder()
    with intercept(recorder, BASE), pytest.raises(AllMockedAssertionError, match="not mocked"):
        module.get("http://127.0.0.1:9/v1/messages")
    assert recorder.requests == []


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_a_handler_exception_is_a_500(module: Any) -> None:
    with intercept(Recorder(), BASE):
        response = module.post(f"{BASE}/boom")
    assert response.status_code == 500
    assert "ValueError: scripted failure" in response.text


def test_nothing_stays_patched() -> None:
    before = [vars(cls)[name] for cls, name in PATCHED]
    with intercept(Recorder(), BASE):
        assert [vars(cls)[name] for cls, name in PATCHED] != before
    assert [vars(cls)[name] for cls, name in PATCHED] == before


def test_nothing_stays_patched_after_an_error() -> None:
    before = [vars(cls)[name] for cls, name in PATCHED]
    with pytest.raises(RuntimeError), intercept(Recorder(), BASE):
        raise RuntimeError("inside")
    assert [vars(cls)[name] for cls, name in PATCHED] == before


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_after_exit_requests_are_not_intercepted(module: Any) -> None:
    recorder = Recorder()
    base = f"http://127.0.0.1:{closed_port()}"
    with intercept(recorder, base):
        assert module.post(f"{base}/v1/messages").status_code == 200
    with pytest.raises(module.ConnectError):
        module.post(f"{base}/v1/messages")
    assert len(recorder.requests) == 1


def test_without_httpx2_only_httpx_is_intercepted(monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance._provider import intercept as module

    monkeypatch.setattr(module, "httpx2", None)
    recorder = Recorder()
    before = vars(httpx2.Client)["_transport_for_url"]
    with intercept(recorder, BASE):
        assert vars(httpx2.Client)["_transport_for_url"] is before
        check(recorder, *post_sync(httpx))
