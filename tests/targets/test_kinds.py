"""The target protocol: every kind holds a stage and returns an ``Outcome``; crashes and
hangs are outcomes with a bounded summary, never exceptions of the suite."""

from __future__ import annotations

import shlex
import sys

import pytest

from conformance._reference.adapter import ReferenceAdapter
from conformance._targets.adapter import AdapterKind
from conformance._targets.api import Adapter, AdapterSession, CaseBrief, Client, Conversation
from conformance._targets.client import INTERCEPTED_BASE_URL, ClientKind
from conformance._targets.command import TAIL_CHARS, CommandKind
from conformance._targets.kind import (
    MESSAGE_CHARS,
    TRACEBACK_CHARS,
    TRACEBACK_LINES,
    Crash,
    Outcome,
    Stage,
    TargetKind,
)
from harness.clients.reference_client import ReferenceOverHttpx
from tests.targets.conversation import SESSION, provider

AGENT = "conformance.agent conformance._reference.adapter:ReferenceAdapter"
DEPTH = 40  # frames below the target's entry point: far more than TRACEBACK_LINES


def stage(timeout: float = 30.0) -> Stage:
    return Stage(SESSION, provider(), "/v1/messages", wants_output=False, timeout=timeout)


def deep(depth: int, message: str = "broke at the bottom") -> None:
    """Raise from ``depth`` frames down, so the traceback is long."""
    if depth == 0:
        raise RuntimeError(message)
    deep(depth - 1, message)


class DeepAdapter(Adapter):
    def open(self, session: CaseBrief) -> AdapterSession:
        deep(DEPTH)
        raise AssertionError("unreachable")


class DeepClient(Client):
    def run(self, conversation: Conversation) -> None:
        deep(DEPTH)


class HugeMessageClient(Client):
    def run(self, conversation: Conversation) -> None:
        deep(DEPTH, "x" * (10 * TRACEBACK_CHARS))


def python(code: str) -> str:
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def assert_conversation_held(stage: Stage) -> None:
    """Every scripted response served, one request each, nothing rejected."""
    exchanges = stage.provider.exchanges
    assert [e.served for e in exchanges] == [0, 1, 2], [e.problem for e in exchanges]
    assert all(not e.violations for e in exchanges)


def held(kind: TargetKind, timeout: float = 30.0) -> tuple[Outcome, Stage]:
    assert isinstance(kind, TargetKind)
    on = stage(timeout)
    outcome = kind.hold(on)
    assert isinstance(outcome, Outcome)
    return outcome, on


def test_the_adapter_kind_holds_the_conversation() -> None:
    outcome, on = held(AdapterKind(ReferenceAdapter()))
    assert outcome == Outcome()
    assert_conversation_held(on)


class SeenBaseUrl(ReferenceOverHttpx):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def run(self, conversation: Conversation) -> None:
        self.seen.append(conversation.base_url)
        super().run(conversation)


def test_the_client_kind_holds_the_conversation() -> None:
    client = SeenBaseUrl()
    kind = ClientKind(client)
    outcome, on = held(kind)
    assert outcome == Outcome()
    assert_conversation_held(on)
    held(kind)
    assert client.seen == [INTERCEPTED_BASE_URL] * 2  # no hang, no other host


@pytest.mark.slow
def test_the_command_kind_holds_the_conversation() -> None:
    outcome, on = held(CommandKind(f"{shlex.quote(sys.executable)} -m {AGENT}"))
    assert (outcome.error, outcome.stopped, outcome.crash) == (None, None, None)
    assert outcome.stdout_tail is not None
    assert outcome.stderr_tail is not None
    assert_conversation_held(on)


def assert_bounded_crash(outcome: Outcome, message: str = "broke at the bottom") -> Crash:
    assert outcome.crash is not None
    crash = outcome.crash
    assert (crash.type, crash.message) == ("RuntimeError", message)
    assert outcome.error == f"the target raised RuntimeError: {message}"
    lines = crash.traceback.splitlines()
    assert len(lines) == TRACEBACK_LINES  # the deep traceback was cut to its last lines
    assert "in deep" in crash.traceback
    assert crash.traceback.endswith(f"RuntimeError: {message}")
    assert outcome.error_report == f"{outcome.error}\n{crash.traceback}"
    return crash


@pytest.mark.parametrize("kind", [AdapterKind(DeepAdapter()), ClientKind(DeepClient())])
def test_a_crash_is_an_error_with_a_bounded_traceback(kind: TargetKind) -> None:
    outcome, _ = held(kind)
    assert_bounded_crash(outcome)


def test_a_huge_message_is_bounded_too() -> None:
    outcome, _ = held(ClientKind(HugeMessageClient()))
    assert outcome.crash is not None
    assert outcome.crash.message.startswith("x" * MESSAGE_CHARS + "…")
    assert len(outcome.crash.message) < MESSAGE_CHARS + 40
    assert len(outcome.crash.traceback) == TRACEBACK_CHARS
    assert outcome.error_report is not None
    assert len(outcome.error_report) < MESSAGE_CHARS + TRACEBACK_CHARS + 100


def test_a_crash_summary_is_the_same_whoever_raised() -> None:
    try:
        deep(DEPTH)
    except RuntimeError as error:
        direct = Outcome.crashed(error)
    adapter, _ = held(AdapterKind(DeepAdapter()))
    client, _ = held(ClientKind(DeepClient()))
    assert direct.error == adapter.error == client.error
    assert direct.crash is not None
    assert adapter.crash is not None
    assert client.crash is not None
    # The same last lines, whatever kind ran the target.
    assert direct.crash.traceback.splitlines()[-4:] == adapter.crash.traceback.splitlines()[-4:]
    assert client.crash.traceback.splitlines()[-4:] == adapter.crash.traceback.splitlines()[-4:]


@pytest.mark.slow
def test_a_crashing_command_stops_with_a_bounded_stderr_tail() -> None:
    code = "import sys; sys.stderr.write('noise\\n' * 2000); raise RuntimeError('it broke')"
    outcome, _ = held(CommandKind(python(code)))
    assert outcome.stopped == "the command exited with status 1"
    assert outcome.stderr_tail is not None
    assert len(outcome.stderr_tail) == TAIL_CHARS  # the long stderr was cut to its tail
    assert outcome.stderr_tail.rstrip().endswith("RuntimeError: it broke")


@pytest.mark.slow
def test_a_hanging_command_is_an_error() -> None:
    outcome, _ = held(CommandKind(python("import time; time.sleep(60)")), timeout=0.5)
    assert outcome.error == "the command did not finish within 0.5 s"
    assert outcome.crash is None
