"""One verdict per behaviour: the same buggy conversation code, held as an adapter, as a
client whose HTTP layer raises on the provider's 400 (in-process through respx and on
loopback), as a client that swallows the 400, and as a command, gets the same verdict
with the same violations.  Before, the raising client got ``error`` with a traceback."""

from __future__ import annotations

import shlex
import sys
from typing import ClassVar

import pytest

from conformance._cases.library import load_library
from conformance._runner import RunOptions, plan, run_jobs
from conformance._targets.api import Client, Conversation
from conformance._targets.client import ClientKind
from conformance._targets.command import contract_environment
from conformance._targets.resolve import ResolvedTarget, resolve_target
from conformance.agent.runner import AgentError, hold, http_sender
from harness.broken.drop_signature_only import DropSignatureOnlyAdapter
from harness.clients.reference_client import ReferenceOverHttpx

BUGGY = "harness.broken.drop_signature_only:DropSignatureOnlyAdapter"
#: Cells where the provider rejects the buggy history with a 400.
REJECTED = ("interleaved-signature-only-mid-turn", "signature-only-episodes-across-tool-loop")


class RaisingClient(ReferenceOverHttpx):
    """The buggy adapter behind an HTTP layer that raises on any 4xx, as real SDKs do."""

    name: ClassVar[str] = "buggy-raising"

    def run(self, conversation: Conversation) -> None:
        session = conversation.brief
        environ = contract_environment(conversation.base_url, session.wire, "")
        with self.http() as client:
            adapter = DropSignatureOnlyAdapter().open(session)
            hold(adapter, session, http_sender(client, session, environ))


class RaisingLoopbackClient(RaisingClient):
    name: ClassVar[str] = "buggy-raising-loopback"
    transport: ClassVar[str] = "loopback"


class SwallowingClient(RaisingClient):
    """The same, but it logs the 400 and returns as if the session ended."""

    name: ClassVar[str] = "buggy-swallowing"

    def run(self, conversation: Conversation) -> None:
        try:
            super().run(conversation)
        except AgentError:
            return


def verdicts(target: ResolvedTarget) -> dict[str, tuple[str, tuple[str, ...]]]:
    cases = [loaded.case for loaded in load_library([]).cases if loaded.case.id in REJECTED]
    jobs = plan(cases, target, ["anthropic-messages"])
    results = run_jobs(target, jobs, RunOptions(timeout=30))
    return {r.case: (r.verdict, tuple(v.check for v in r.violations)) for r in results}


def client_target(client: Client) -> ResolvedTarget:
    return ResolvedTarget(
        client.name, client.name, ClientKind(client), frozenset({"anthropic-messages"})
    )


def test_the_adapter_fails_on_the_rejection() -> None:
    found = verdicts(resolve_target(BUGGY))
    assert sorted(found) == sorted(REJECTED)
    for verdict, checks in found.values():
        assert verdict == "fail"
        assert checks  # the rule the provider enforced


@pytest.mark.parametrize("client", [RaisingClient(), RaisingLoopbackClient(), SwallowingClient()])
def test_a_client_gets_the_adapters_verdict_whatever_it_did_after_the_400(client: Client) -> None:
    assert verdicts(client_target(client)) == verdicts(resolve_target(BUGGY))


@pytest.mark.slow
def test_a_command_gets_the_adapters_verdict() -> None:
    agent = f"{shlex.quote(sys.executable)} -m conformance.agent {BUGGY}"
    assert verdicts(resolve_target(f"cmd:{agent}")) == verdicts(resolve_target(BUGGY))
