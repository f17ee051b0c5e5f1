"""The cause of a verdict is data: set where the reason is written (the target kinds,
the runner, ``decide``), and read by the probes, ``--rounds`` and the renderers instead
of the reason's words.  Each test names the cause a path must set, so a wrong one
fails; the probe tests reword the reasons, so matching their words would fail."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from conformance._cases.schema import Case
from conformance._cli import main
from conformance._decide import decide
from conformance._probe.catalogue import Probe
from conformance._probe.verdicts import CONVERSATION, Killer, judge, observe
from conformance._provider.features import unjudgeable
from conformance._report.html import to_html
from conformance._report.junit import to_junit
from conformance._report.reading import cell_verdicts as verdicts
from conformance._report.reading import read_report
from conformance._report.report_schema import REPORT_VERSION, build_report, untimed
from conformance._report.terminal import details, problems
from conformance._rounds import _result_differences, compared_fields
from conformance._targets.command import CommandResult, command_outcome
from conformance._targets.command_contract import (
    EXIT_CONVERSATION_STOPPED,
    EXIT_HISTORY_UNLOADABLE,
    EXIT_RESPONSE_REFUSED,
    EXIT_WIRE_UNSUPPORTED,
)
from conformance._targets.kind import Outcome, hold_in_process
from conformance._transcript import Transcript
from conformance.http import HttpRequest
from conformance.verdict import Cause, Result, Violation
from tests.test_decide import EXPECT, FULL, MUST, case, exchange, transcript

REPO = Path(__file__).resolve().parents[1]
WIRE = "anthropic-messages"


def judged(c: Case, run: Transcript, found: list[Violation], pin: str | None = None) -> Result:
    return decide(c, WIRE, pin, run, found, strict=False)


# --- decide: every place that writes a reason sets its cause -----------------------


def test_a_plain_pass_has_no_cause_and_a_failure_on_violations_has_one() -> None:
    c = case()
    assert judged(c, transcript(c, *FULL), []).cause is None
    failed = judged(c, transcript(c, *FULL), [MUST])
    assert (failed.verdict, failed.cause) == ("fail", Cause.VIOLATIONS)


@pytest.mark.parametrize(
    ("error_cause", "cause"),
    [
        (Cause.CRASH, Cause.CRASH),
        (Cause.TIMEOUT, Cause.TIMEOUT),
        (Cause.HISTORY_UNLOADABLE, Cause.HISTORY_UNLOADABLE),
        (None, Cause.CRASH),  # a transcript built by hand with only a text
    ],
)
def test_an_error_takes_the_cause_the_target_kind_gave(
    error_cause: Cause | None, cause: Cause
) -> None:
    c = case()
    run = transcript(c, *FULL, error="whatever words")
    run.error_cause = error_cause
    result = judged(c, run, [EXPECT])
    assert (result.verdict, result.cause) == ("error", cause)


def test_an_early_stop_is_stopped_with_a_reason_of_its_own_else_ended_early() -> None:
    c = case()
    quiet = judged(c, transcript(c, exchange(1, 0)), [])
    assert (quiet.verdict, quiet.cause) == ("error", Cause.ENDED_EARLY)
    exited = transcript(c, exchange(1, 0))
    exited.stopped = "the command exited with status 3"
    stopped = judged(c, exited, [])
    assert (stopped.verdict, stopped.cause) == ("error", Cause.STOPPED)


def test_an_unexpected_request_alone_and_beside_broken_expectations() -> None:
    c = case()
    beyond = Violation(check="provider/beyond-script", message="request 3 is beyond")
    alone = judged(c, transcript(c, *FULL), [beyond])
    assert (alone.verdict, alone.cause) == ("error", Cause.UNEXPECTED_REQUEST)
    beside = judged(c, transcript(c, *FULL), [EXPECT, beyond])
    assert (beside.verdict, beside.cause) == ("fail", Cause.VIOLATIONS)


def test_a_request_the_suite_cannot_judge_is_unjudgeable() -> None:
    c = case()
    answer = unjudgeable(WIRE, None, HttpRequest("POST", "/v1/messages"), {"wat": 1})
    assert answer is not None
    run = transcript(c, exchange(1, None, answer))
    found = [Violation(check=answer.check, message=answer.message, request=1)]
    result = judged(c, run, found)
    assert (result.verdict, result.cause) == ("error", Cause.UNJUDGEABLE)


def test_a_refusal_and_a_halt_are_causes_of_their_own() -> None:
    c = case()
    refusing = transcript(c, exchange(1, 0))
    refusing.refused = "no such block"
    refused = judged(c, refusing, [])
    assert (refused.verdict, refused.cause) == ("fail", Cause.REFUSED)
    halting = transcript(c)
    halting.halted = "the library gave up"
    halted = judged(c, halting, [])
    assert (halted.verdict, halted.cause) == ("fail", Cause.HALTED)
    halting_after = transcript(c, *FULL)
    halting_after.halted = "the library gave up"
    assert judged(c, halting_after, [MUST]).cause == Cause.VIOLATIONS


def test_pins_set_their_causes_and_an_xfail_keeps_the_failure_s() -> None:
    pinned_case = case(pinned=True)
    shown = judged(pinned_case, transcript(pinned_case, *FULL), [])
    assert (shown.verdict, shown.cause) == ("pinned", Cause.PINNED)
    better = judged(pinned_case, transcript(pinned_case, *FULL), [EXPECT])
    assert (better.verdict, better.cause) == ("pass", Cause.LIMITATION_NOT_SHOWN)
    c = case()
    xfail = judged(c, transcript(c, *FULL), [MUST], pin="known bug")
    assert (xfail.verdict, xfail.cause) == ("xfail", Cause.VIOLATIONS)
    crashed = transcript(c, *FULL, error="boom")
    crashed.error_cause = Cause.TIMEOUT
    assert judged(c, crashed, [], pin="known bug").cause == Cause.TIMEOUT
    unexpected = judged(c, transcript(c, *FULL), [], pin="known bug")
    assert (unexpected.verdict, unexpected.cause) == ("fail", Cause.UNEXPECTED_PASS)


# --- the target kinds set the cause where they write the text ----------------------


def test_an_outcome_with_an_error_names_a_cause_a_target_can_have() -> None:
    with pytest.raises(ValueError, match="come together"):
        Outcome(error="the target raised")
    with pytest.raises(ValueError, match="come together"):
        Outcome(error_cause=Cause.CRASH)
    with pytest.raises(ValueError, match="not the cause of a target's error"):
        Outcome(error="x", error_cause=Cause.VIOLATIONS)


def test_in_process_crashes_and_hangs_carry_their_causes() -> None:
    def crash() -> Outcome:
        raise RuntimeError("broke")

    assert hold_in_process(crash, 5).error_cause == Cause.CRASH
    done = threading.Event()

    def hang() -> Outcome:
        while not done.is_set():  # a Python loop: the abandon lands in it
            time.sleep(0.01)
        return Outcome()

    try:
        hung = hold_in_process(hang, 0.2)
    finally:
        done.set()
    assert hung.error_cause == Cause.TIMEOUT


@pytest.mark.parametrize(
    ("code", "timed_out", "error_cause", "field"),
    [
        (0, True, Cause.TIMEOUT, "error"),
        (EXIT_HISTORY_UNLOADABLE, False, Cause.HISTORY_UNLOADABLE, "error"),
        (3, False, None, "stopped"),
        (EXIT_RESPONSE_REFUSED, False, None, "refused"),
        (EXIT_CONVERSATION_STOPPED, False, None, "halted"),
        (EXIT_WIRE_UNSUPPORTED, False, None, "declined"),
    ],
)
def test_a_command_s_exit_sets_the_cause_beside_its_text(
    code: int, timed_out: bool, error_cause: Cause | None, field: str
) -> None:
    ran = CommandResult(exit_code=code, timed_out=timed_out, stdout_tail="", stderr_tail="x")
    outcome = command_outcome(ran, 1.0)
    assert outcome.error_cause == error_cause
    assert getattr(outcome, field) is not None


# --- readers switch on the cause, never on the reason's words ----------------------


def cell(verdict: str, cause: Cause | None, reason: str, *found: Violation) -> Result:
    return Result.model_validate(
        {
            "case": "c",
            "wire": WIRE,
            "verdict": verdict,
            "cause": cause,
            "reason": reason,
            "violations": found,
        }
    )


def test_a_probe_counts_a_crash_whose_reason_was_reworded_as_a_crash() -> None:
    killer, error = observe(cell("error", Cause.CRASH, "kaboom: the adapter fell over", MUST))
    assert killer is None
    assert error is not None
    assert error.cause == Cause.CRASH


def test_a_probe_takes_a_reason_that_reads_like_a_crash_by_its_cause() -> None:
    """The old reading matched "the target raised": a stop whose text happens to start
    so is still behaviour, killed by the checks it broke."""
    killer, error = observe(cell("error", Cause.STOPPED, "the target raised its hand", MUST))
    assert error is None
    assert killer is not None
    assert killer.checks == (MUST.check,)


def test_a_quiet_early_end_kills_under_the_conversation_pseudo_check() -> None:
    killer, _ = observe(cell("error", Cause.ENDED_EARLY, "it went home early"))
    assert killer is not None
    assert killer.checks == (CONVERSATION,)
    _, error = observe(cell("error", Cause.STOPPED, "the target stopped after 1 of 2"))
    assert error is not None  # the words of an early end, the cause of an exit


def test_a_mutant_times_out_by_the_cause_of_its_errors_not_their_words() -> None:
    probe = Probe(id="p", module="conformance._decide", find="a", replace="b", note="n")
    slow = Killer(case="c", wire=WIRE, error="took its time", cause=Cause.TIMEOUT)
    worded = Killer(case="c", wire=WIRE, error="did not finish within 1 s", cause=Cause.CRASH)
    assert judge(probe, [], [slow], 1, 1).verdict == "timeout"
    assert judge(probe, [], [worded], 1, 1).verdict == "crashed"


def test_rounds_count_a_changed_cause_as_a_difference() -> None:
    first = cell("error", Cause.CRASH, "same words")
    again = cell("error", Cause.TIMEOUT, "same words")
    found = _result_differences(2, {first.key: compared_fields(first)}, again)
    assert found == [f"round 2: c [{WIRE}]: cause differs (crash != timeout)"]


def test_renderers_show_the_cause_from_the_data() -> None:
    crashed = cell("error", Cause.CRASH, "kaboom")
    timed = cell("error", Cause.TIMEOUT, "kaboom").model_copy(update={"case": "d"})
    report = build_report("t", "adapter", [crashed, timed])
    assert "  reason (crash): kaboom" in details(crashed)
    # the same words, two causes: two errors, not "the same error in 2 cells"
    assert not any(line.startswith("the same error") for line in problems(report))
    junit = to_junit(report)
    assert 'type="crash"' in junit
    assert 'type="timeout"' in junit
    page = to_html(report, None)
    assert 'data-cause="crash"' in page
    assert "reason (timeout):" in page


# --- the JSON report: version 3 adds the cause and nothing else --------------------

#: Reports written by the tree before the cause existed (report version 2), and the
#: arguments of the run that wrote each; the same runs now must give the same bytes
#: but for ``report_version`` and each result's ``cause``.
V2_RUNS = {
    "raising": ["--target", "tests.targets.faulty:Raising", "--case", "tool-pairing-*"],
    "hoist": [
        "--target",
        "harness.broken:HoistThinkingAdapter",
        "--target-name",
        "HoistThinkingAdapter",
        "--case",
        "interleaved-two-episodes-one-response",
        "--case",
        "gemini-unsigned-back-to-back-thoughts-merge",
    ],
    "invoke": [
        "--target",
        "harness.broken:InvokeOnlyRecoveryAdapter",
        "--target-name",
        "InvokeOnlyRecoveryAdapter",
        "--case",
        "xml-bare-function-dialect-recovered",
    ],
    "stopping": [
        "--target",
        "tests.targets.stopping:StopsAfterFirstResponse",
        "--case",
        "tool-pairing-parallel-calls-results-first",
    ],
}
V2_CAUSES = {
    "raising": {"crash", "not-applicable"},
    "hoist": {"violations", "pinned"},
    "invoke": {"ended-early"},
    "stopping": {"halted"},
}


@pytest.mark.parametrize("name", sorted(V2_RUNS))
def test_version_3_differs_from_version_2_only_by_the_bump_and_the_cause(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # the reasons' paths are relative to where the run starts
    out = tmp_path / "now.json"
    main(["run", "-q", "--progress", "off", *V2_RUNS[name], "--json", str(out)])
    old_path = REPO / "tests" / "report_v2" / f"{name}.json"
    old = json.loads(untimed(old_path.read_text(encoding="utf-8")))
    now = json.loads(untimed(out.read_text(encoding="utf-8")))
    assert (old["report_version"], now["report_version"], REPORT_VERSION) == (2, 3, 3)
    assert {r["cause"] for r in now["results"]} == V2_CAUSES[name]
    now["report_version"] = 2
    for result in now["results"]:
        del result["cause"]
    assert json.dumps(now, indent=2) == json.dumps(old, indent=2)


def test_a_version_2_report_still_reads_with_no_cause(tmp_path: Path) -> None:
    old_path = REPO / "tests" / "report_v2" / "raising.json"
    report = read_report(old_path)
    assert report.report_version == 2
    assert [r.cause for r in report.results] == [None, None]
    assert "reason:" in to_html(report, None)  # rendered as before, no cause shown
    assert verdicts(old_path) == {
        "tool-pairing-parallel-calls-results-first [anthropic-messages]": "error",
        "tool-pairing-parallel-calls-results-first [openai-chat:openrouter]": "n/a",
    }
