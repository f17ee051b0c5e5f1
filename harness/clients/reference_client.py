"""The reference adapter held as a real HTTP client: the ``Client`` target kind over
httpx and httpx2 (through respx) and over the loopback server.  The suite uses these to
show that every target kind reaches the same verdicts for the same conversation code."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, ClassVar

import httpx
import httpx2

from conformance._reference.adapter import ReferenceAdapter
from conformance._targets.api import Client, Conversation
from conformance._targets.command import contract_environment
from conformance.agent.runner import Poster, hold, http_sender, tls_context


class _ReferenceClient(Client):
    wires: ClassVar[frozenset[str]] = ReferenceAdapter.wires
    capabilities: ClassVar[frozenset[str]] = ReferenceAdapter.capabilities - {"output-selection"}

    @staticmethod
    def http() -> AbstractContextManager[Any]:
        return _httpx()

    def run(self, conversation: Conversation) -> None:
        brief = conversation.brief
        environ = contract_environment(conversation.base_url, brief.wire, "")
        with self.http() as client:
            poster: Poster = client
            hold(ReferenceAdapter().open(brief), brief, http_sender(poster, brief, environ))


# verify=tls_context(): the agent runner's one TLS context per process.  A client built
# without one loads the CA bundle each time (40 ms a cell, two thirds of a cell's cost
# when the kinds-agree tests hold the whole library as a client); the provider is
# plain HTTP and never uses it.


def _httpx() -> httpx.Client:
    return httpx.Client(timeout=30.0, trust_env=False, verify=tls_context())


def _httpx2() -> httpx2.Client:
    return httpx2.Client(timeout=30.0, trust_env=False, verify=tls_context())


class ReferenceOverHttpx(_ReferenceClient):
    name: ClassVar[str] = "reference-httpx"


class ReferenceOverHttpx2(_ReferenceClient):
    name: ClassVar[str] = "reference-httpx2"

    @staticmethod
    def http() -> AbstractContextManager[Any]:
        return _httpx2()


class ReferenceOverLoopback(_ReferenceClient):
    name: ClassVar[str] = "reference-loopback"
    transport: ClassVar[str] = "loopback"
