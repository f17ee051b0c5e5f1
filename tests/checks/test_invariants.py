"""Universal invariants besides the ledger: each holds on the ideal run and fails on a
broken one."""

from __future__ import annotations

from typing import Any

import pytest

from conformance._cases.schema import Case
from conformance._checks.check import Judge
from conformance._checks.invariants import (
    append_only,
    no_empty_message,
    no_reasoning_in_user_input,
    tool_pairing,
    truncated_call_not_run,
)
from conformance.verdict import Violation
from conformance.vocabulary import Reasoning, Text
from conformance.wires.context import RequestView
from conformance.wires.hints import LedgerHints
from tests.checks.kit import (
    RESULT,
    call,
    fake_wire,
    ideal_views,
    make_case,
    message,
    replace_message,
    respond,
    result,
    text,
    think,
    transcript,
    user,
    view,
)


def loop() -> Case:
    return make_case(
        [
            respond("tool_calls", think("A", "sigA"), call("alpha"), call("beta")),
            respond("end", text("done")),
        ],
        [respond("end", text("again"))],
    )


def judge(judge: Judge, case: Case, views: list[RequestView] | None = None) -> list[Violation]:
    return judge(transcript(case, ideal_views(case) if views is None else views), fake_wire())


def broken(case: Case, request: int, index: int, *blocks: Any) -> list[RequestView]:
    """The ideal requests with message ``index`` of request ``request`` (1-based) replaced."""
    views = ideal_views(case)
    views[request - 1] = replace_message(views[request - 1], index, *blocks)
    return views


@pytest.mark.parametrize(
    "check",
    [
        tool_pairing,
        no_empty_message,
        no_reasoning_in_user_input,
        append_only,
        truncated_call_not_run,
    ],
)
def test_every_invariant_holds_on_the_ideal_run(check: Judge) -> None:
    assert judge(check, loop()) == []


# ---------------------------------------------------------------- tool pairing


def test_missing_result_fails_pairing() -> None:
    [found] = judge(tool_pairing, loop(), broken(loop(), 2, 2, result("alpha")))
    assert found.check == "invariant/tool-pairing"
    assert found.request == 2
    assert found.at == "messages.1.content.2"
    assert "tool call beta (read_file)" in found.message


def test_duplicate_and_orphan_results_fail_pairing() -> None:
    views = broken(loop(), 2, 2, result("alpha"), result("beta"), result("alpha"), result("x"))
    found = judge(tool_pairing, loop(), views)
    assert [v.at for v in found] == ["messages.2.content.2", "messages.2.content.3"]
    assert "a second time" in found[0].message
    assert "made no such call" in found[1].message


def test_pairing_is_a_should_naming_its_cost_where_the_provider_does_not_pair() -> None:
    """Ollama renders messages into a prompt without pairing calls and results."""
    run = transcript(loop(), broken(loop(), 2, 2, result("alpha")))
    run.dialect = "ollama"
    [found] = tool_pairing(run, fake_wire(LedgerHints(unpaired_tools_taken=frozenset({"ollama"}))))
    assert found.severity == "should"
    assert "does not pair calls with results" in found.message
    run.dialect = None  # the provider itself pairs them: the must stays
    [found] = tool_pairing(run, fake_wire(LedgerHints(unpaired_tools_taken=frozenset({"ollama"}))))
    assert found.severity == "must"


def test_result_without_any_assistant_before_fails_pairing() -> None:
    views = ideal_views(loop())
    views[0] = view(message("tool", result("alpha")), user("prompt 1"))
    [found] = judge(tool_pairing, loop(), views)
    assert "no assistant message precedes it" in found.message


def test_trailing_assistant_with_calls_is_exempt_but_a_later_one_is_not() -> None:
    trailing = ideal_views(loop())
    trailing[0] = view(user("prompt 1"), message("assistant", call("alpha")))
    assert judge(tool_pairing, loop(), trailing) == []
    followed = ideal_views(loop())
    followed[0] = view(user("p"), message("assistant", call("alpha")), message("assistant"))
    [found] = judge(tool_pairing, loop(), followed)
    assert found.at == "messages.1.content.0"


# ---------------------------------------------------------------- empty messages


def test_empty_final_assistant_message_holds() -> None:
    views = ideal_views(loop())
    views[0] = view(user("prompt 1"), message("assistant"))
    assert judge(no_empty_message, loop(), views) == []


@pytest.mark.parametrize(
    "messages",
    [
        (message("user"), user("prompt 1")),
        (user("prompt 1"), message("assistant"), user("again")),
    ],
)
def test_empty_message_fails(messages: tuple[Any, ...]) -> None:
    views = ideal_views(loop())
    views[0] = view(*messages)
    [found] = judge(no_empty_message, loop(), views)
    assert found.check == "invariant/no-empty-message"
    assert found.message.endswith("has no content")


# ---------------------------------------------------------------- user input


@pytest.mark.parametrize(
    ("role", "blocks", "fragment"),
    [
        ("user", (text("notice"), think("child", "sigC")), "reasoning block at user message"),
        ("user", (text("notice"), call("child")), "tool call child at user message"),
        (
            "tool",
            (result("alpha", (Text(text="x"), Reasoning(text="child"))), result("beta")),
            "inside a tool result's content",
        ),
    ],
)
def test_reasoning_in_user_input_fails(role: str, blocks: tuple[Any, ...], fragment: str) -> None:
    index = 0 if role == "user" else 2
    views = broken(loop(), 2, index, *blocks)
    found = judge(no_reasoning_in_user_input, loop(), views)
    assert [v.check for v in found] == ["invariant/no-reasoning-in-user-input"]
    assert fragment in found[0].message
    assert found[0].request == 2


# ---------------------------------------------------------------- append-only


def cached(*messages: dict[str, Any]) -> RequestView:
    """A view whose raw body is ``messages``, the last one carrying the cache breakpoint."""
    body = [dict(m) for m in messages]
    last = dict(body[-1])
    last["content"] = [{**last["content"][0], "cache_control": {"type": "ephemeral"}}]
    body[-1] = last
    return view(user("unused"), raw={"messages": body})


def raw(role: str, value: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": value}]}


def test_moving_cache_breakpoint_holds() -> None:
    first = cached(raw("user", "p1"))
    second = cached(raw("user", "p1"), raw("assistant", "a1"), raw("user", "p2"))
    assert judge(append_only, loop(), [first, second]) == []


def test_edited_earlier_message_fails() -> None:
    first = cached(raw("user", "p1"), raw("assistant", "a1"), raw("user", "p2"))
    second = cached(raw("user", "p1"), raw("assistant", "a1 (edited)"), raw("user", "p2"))
    [found] = judge(append_only, loop(), [first, second])
    assert found.check == "invariant/append-only"
    assert found.severity == "should"
    assert found.request == 2
    assert "history item 1 changed at content.0.text: 'a1' → 'a1 (edited)'" in found.message


def test_dropped_history_fails_and_true_differs_from_one() -> None:
    first = view(user("p"), raw={"messages": [raw("user", "p1"), {"flag": True}]})
    shorter = view(user("p"), raw={"messages": [raw("user", "p1")]})
    [dropped] = judge(append_only, loop(), [first, shorter])
    assert "it has 1 history item(s), request 1 had 2" in dropped.message
    one = view(user("p"), raw={"messages": [raw("user", "p1"), {"flag": 1}]})
    [changed] = judge(append_only, loop(), [first, one])
    assert "history item 1 changed at flag: True → 1" in changed.message


def test_rejected_requests_and_refusals_are_not_compared() -> None:
    first = cached(raw("user", "p1"))
    rejected = cached(raw("user", "something else"))
    second = cached(raw("user", "p1"), raw("assistant", "a1"), raw("user", "p2"))
    run = transcript(loop(), [first, rejected, second], [0, None, 1])
    assert append_only(run, fake_wire()) == []
    refused = make_case([respond("refusal", text("no"))], [respond("end", text("ok"))])
    reset = cached(raw("user", "p2"))
    assert judge(append_only, refused, [first, reset]) == []
    assert judge(append_only, loop(), [first, reset])


# ---------------------------------------------------------------- truncated calls


def truncated(stop: str, arguments: Any) -> Case:
    return make_case(
        [
            respond(stop, text("working"), call("cut", arguments)),  # type: ignore[arg-type]
            respond("end", text("ok")),
        ]
    )


@pytest.mark.parametrize(
    ("stop", "arguments", "severity"),
    [
        ("max_tokens", '{"path": "al', "must"),
        ("tool_calls", '{"path": "al', "must"),
        ("max_tokens", {"path": "alpha.txt"}, "should"),
    ],
)
def test_truncated_call_answered_with_its_real_result_fails(
    stop: str, arguments: Any, severity: str
) -> None:
    case = truncated(stop, arguments)
    assert judge(truncated_call_not_run, case) == []
    views = broken(case, 2, 2, result("cut", RESULT))
    [found] = judge(truncated_call_not_run, case, views)
    assert found.check == "invariant/truncated-call-not-run"
    assert found.severity == severity
    assert found.at == "messages.2.content.0"
    assert "tool call cut (read_file)" in found.message


def test_a_complete_call_beside_a_cut_one_runs_only_with_a_warning() -> None:
    """Rule 33: a cut call marks its turn as cut even when the finish says tool_calls."""
    case = make_case(
        [
            respond("tool_calls", call("whole", {"path": "a"}), call("cut", '{"pa')),
            respond("end", text("ok")),
        ]
    )
    assert judge(truncated_call_not_run, case) == []
    views = broken(case, 2, 2, result("whole", RESULT), result("cut", "not run", is_error=True))
    [found] = judge(truncated_call_not_run, case, views)
    assert (found.severity, found.check) == ("should", "invariant/truncated-call-not-run")
    assert "whose other call was cut off" in found.message


def test_complete_call_answered_with_its_result_holds() -> None:
    case = truncated("tool_calls", {"path": "alpha.txt"})
    views = broken(case, 2, 2, result("cut", RESULT))
    assert judge(truncated_call_not_run, case, views) == []


def test_one_text_part_rewritten_as_its_string_holds() -> None:
    """Issue 15: a library moves the breakpoint and sends the older user message as a
    plain string; both spellings are the same content on the wire (was: a `should`)."""
    first = cached(raw("user", "p1"))
    plain = {"role": "user", "content": "p1"}
    second = cached(plain, raw("assistant", "a1"), raw("user", "p2"))
    assert judge(append_only, loop(), [first, second]) == []
    back = cached(raw("user", "p1"), raw("assistant", "a1"), raw("user", "p2"))
    assert judge(append_only, loop(), [view(user("p"), raw={"messages": [plain]}), back]) == []


def test_a_real_change_beside_the_rewrite_still_fails() -> None:
    first = cached(raw("user", "p1"))
    edited = {"role": "user", "content": "p1 (edited)"}
    [found] = judge(append_only, loop(), [first, cached(edited, raw("user", "p2"))])
    assert "history item 0 changed at content" in found.message
    two_parts = {
        "role": "user",
        "content": [{"type": "text", "text": "p"}, {"type": "text", "text": "1"}],
    }
    [split] = judge(append_only, loop(), [first, cached(two_parts, raw("user", "p2"))])
    assert split.check == "invariant/append-only"


def test_reordered_keys_of_an_earlier_message_are_a_should() -> None:
    """Issue 13: rules 19 and 53 ask for a byte-stable history, the same key order every
    turn; the check compared with keys sorted, so a client that re-serialized earlier tool
    inputs in another order passed even under ``--strict`` (it was ``[]``)."""
    first = cached(raw("user", "p1"))
    reordered = {"content": [{"text": "p1", "type": "text"}], "role": "user"}
    [found] = judge(append_only, loop(), [first, cached(reordered, raw("user", "p2"))])
    assert (found.check, found.severity) == ("invariant/append-only", "should")
    assert "history item 0 changed at content.0 key order: [type, text] → [text, type]" in (
        found.message
    )
    call = {"type": "tool_use", "id": "toolu_1", "name": "t", "input": {"b": 1, "a": 2}}
    swapped = {**call, "input": {"a": 2, "b": 1}}
    before = cached(raw("user", "p1"), {"role": "assistant", "content": [call]}, raw("user", "p"))
    after = cached(raw("user", "p1"), {"role": "assistant", "content": [swapped]}, raw("user", "p"))
    [moved] = judge(append_only, loop(), [before, after])
    assert "history item 1 changed at content.0.input key order: [b, a] → [a, b]" in moved.message


def test_a_moved_cache_breakpoint_keeps_the_order_of_the_other_keys() -> None:
    """cache_control moves are still ignored under the order-preserving comparison."""
    marked = {"type": "text", "cache_control": {"type": "ephemeral"}, "text": "p1"}
    first = view(user("p"), raw={"messages": [{"role": "user", "content": [marked]}]})
    second = cached(raw("user", "p1"), raw("assistant", "a1"), raw("user", "p2"))
    assert judge(append_only, loop(), [first, second]) == []
