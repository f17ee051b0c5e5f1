"""What a received turn stores and runs: truncation (wire-rules 16, 33; seed §41–§50)
and the XML-recovery gate."""

from __future__ import annotations

from conformance._reference.consolidate import TurnBlock
from conformance._reference.guards import Guards
from conformance._reference.turns import NOT_EXECUTED, Settled, settle
from conformance._targets.api import CallToRun
from conformance.vocabulary import Reasoning, Stop, Text, ToolCall, ToolResult

OFFERED = {"bash": {"type": "object"}}
INVOKE = '<invoke name="bash"><parameter name="command">ls</parameter></invoke>'


def run(blocks: list[TurnBlock], stop: Stop, *disabled: str) -> Settled:
    return settle(blocks, stop, OFFERED, Guards(disabled), lambda: "toolu_recovered_1")


def call(id: str, arguments: dict[str, str] | str | None = None) -> ToolCall:
    return ToolCall(id=id, name="bash", arguments={} if arguments is None else arguments)


def error(id: str) -> ToolResult:
    return ToolResult(call_id=id, content=NOT_EXECUTED, is_error=True)


SIGNED = Reasoning(text="ep1", signature="sig1")
PARTIAL = Reasoning(text="ep2 partial")


def test_a_complete_turn_runs_its_complete_calls() -> None:
    settled = run([SIGNED, call("c1")], "tool_calls")
    assert settled == Settled((SIGNED, call("c1")), (CallToRun("c1", "bash", {}),))


def test_dangling_unsigned_episode_after_a_call_is_stored() -> None:
    """§42 (S4): [Θ("ep1","sig1"), FC(call1), Θ("ep2 partial")], MAX_TOKENS: the turn
    keeps what streamed; whether the cut episode can be sent is each wire's decision."""
    settled = run([SIGNED, call("c1"), PARTIAL], "max_tokens")
    assert settled.blocks == (SIGNED, call("c1"), PARTIAL)
    assert settled.calls == ()


def test_dangling_episode_is_kept_without_a_tool_call() -> None:
    """§43: the gate is the tool call."""
    assert run([Text(text="…"), PARTIAL], "max_tokens").blocks == (Text(text="…"), PARTIAL)


def test_mid_turn_unsigned_episode_is_kept() -> None:
    """§44: trailing-only."""
    blocks: list[TurnBlock] = [Reasoning(text="r1"), call("c1"), Text(text="…")]
    assert run(blocks, "no_finish").blocks == tuple(blocks)


def test_no_false_positive_for_non_signing_providers() -> None:
    """§45 is not re-created: an all-unsigned truncated turn keeps its reasoning."""
    blocks: list[TurnBlock] = [Reasoning(text="r1"), call("c1"), Reasoning(text="r2 partial")]
    assert run(blocks, "max_tokens").blocks == tuple(blocks)


def test_signed_trailing_episode_is_never_popped() -> None:
    """§50."""
    signed = Reasoning(text="complete episode", signature="sig-prev")
    assert run([call("c1"), signed], "max_tokens").blocks == (call("c1"), signed)


def test_redacted_trailing_block_is_never_popped() -> None:
    redacted = Reasoning(redacted=True, data="D")
    assert run([call("c1"), redacted], "max_tokens").blocks == (call("c1"), redacted)


def test_truncated_calls_are_not_run_and_complete_ones_are_answered() -> None:
    """Rules 16, 33: no call of a truncated turn runs; off runs the complete one."""
    cut = call("c2", '{"command": "l')
    settled = run([SIGNED, call("c1"), cut], "max_tokens")
    assert settled == Settled((SIGNED, call("c1")), (), (error("c1"),))
    unguarded = run([SIGNED, call("c1"), cut], "max_tokens", "truncated-calls-not-run")
    assert unguarded == Settled((SIGNED, call("c1")), (CallToRun("c1", "bash", {}),))


def test_a_turn_whose_only_call_was_cut_stores_nothing() -> None:
    """§165: the empty terminal message a tool-call-only max_tokens step leaves."""
    assert run([call("c1", '{"comm')], "max_tokens") == Settled((), ())


def test_an_unsigned_episode_before_a_cut_call_is_not_trailing() -> None:
    """Trailing-ness is judged as streamed: removing the cut call must not make the
    episode before it 'trailing' (§62's reasoning)."""
    blocks: list[TurnBlock] = [SIGNED, call("c1"), PARTIAL, call("c2", "{")]
    assert run(blocks, "max_tokens").blocks == (SIGNED, call("c1"), PARTIAL)


def test_xml_recovery_runs_on_complete_turns_without_structured_calls() -> None:
    recovered = ToolCall(id="toolu_recovered_1", name="bash", arguments={"command": "ls"})
    settled = run([Text(text=INVOKE)], "end")
    assert settled.blocks == (recovered,)
    assert settled.calls == (CallToRun("toolu_recovered_1", "bash", {"command": "ls"}),)


def test_xml_recovery_does_not_run_on_truncated_turns_or_beside_structured_calls() -> None:
    assert run([Text(text=INVOKE)], "max_tokens").blocks == (Text(text=INVOKE),)
    assert run([Text(text=INVOKE)], "refusal").blocks == (Text(text=INVOKE),)
    with_call = run([Text(text=INVOKE), call("c1")], "tool_calls")
    assert with_call.blocks == (Text(text=INVOKE), call("c1"))


def test_a_mislabelled_cut_is_handled_as_truncated() -> None:
    """Rule 33: finish says tool_calls, yet one call's arguments do not parse; nothing
    runs, the complete call gets an error result, the cut one is left out."""
    blocks: list[TurnBlock] = [SIGNED, call("c1"), call("c2", '{"command": "l')]
    settled = run(blocks, "tool_calls")
    assert settled == Settled((SIGNED, call("c1")), (), (error("c1"),))
    unguarded = run(blocks, "tool_calls", "unparsable-arguments-truncate")
    assert unguarded == Settled(tuple(blocks), (CallToRun("c1", "bash", {}),))
