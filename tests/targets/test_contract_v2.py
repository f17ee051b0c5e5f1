"""Command contract v2: the output file is judged as an adapter's selected output, the
saved history reaches the command, and the reserved exit codes give ``n/a``, a ``fail``
(a refused response is never a pass) and an ``error`` (history that does not load)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from conformance._runner import Job, RunOptions, plan, run_job
from conformance._targets.command import CommandKind, CommandResult, command_outcome
from conformance._targets.command_contract import (
    EXIT_HISTORY_UNLOADABLE,
    EXIT_RESPONSE_REFUSED,
    EXIT_WIRE_UNSUPPORTED,
    read_output,
)
from conformance._targets.resolve import ResolvedTarget
from conformance.verdict import Result
from tests.support import library

AGENT = "conformance.agent conformance._reference.adapter:ReferenceAdapter"
OUTPUT_CASE = "empty-terminal-output-never-tool-result"
EVERYTHING = frozenset({"history", "output-selection", "xml-recovery", "pause-resume"})


def ended(code: int, stderr: str = "") -> CommandResult:
    return CommandResult(exit_code=code, timed_out=False, stdout_tail="", stderr_tail=stderr)


def test_reserved_exit_codes_say_what_happened() -> None:
    declined = command_outcome(ended(EXIT_WIRE_UNSUPPORTED, "log\nno gemini here\n"), 5)
    assert declined.declined == "the command does not speak this wire: no gemini here"
    refused = command_outcome(ended(EXIT_RESPONSE_REFUSED, "SDK: bad event\n"), 5)
    assert refused.refused == "SDK: bad event"
    assert refused.error is None
    history = command_outcome(ended(EXIT_HISTORY_UNLOADABLE, "bad block\n"), 5)
    assert history.error == "the command could not load the saved history: bad block"
    other = command_outcome(ended(3), 5)
    assert other.stopped == "the command exited with status 3"
    assert (other.declined, other.refused, other.error) == (None, None, None)


def test_the_decisive_line_survives_a_librarys_warnings_printed_after_it() -> None:
    """Issue 25 item 15: a library warned over several lines after printing why it
    stopped, and the reason became the warning's last line."""
    from conformance._targets.command_contract import last_line

    node = (
        "RefusedError: the stream's second content block has no index\n"
        "(node:4242) Warning: Closing file descriptor 21 on garbage collection\n"
        "(Use `node --trace-warnings ...` to show where the warning was created)\n"
    )
    refused = command_outcome(ended(EXIT_RESPONSE_REFUSED, node), 5)
    assert refused.refused == "RefusedError: the stream's second content block has no index"
    python = (
        "stopped: the provider sent an overloaded error\n"
        "/venv/lib/sdk/_client.py:88: DeprecationWarning: `proxies` is deprecated\n"
        "  warnings.warn(\n"
        "sys:1: ResourceWarning: unclosed <socket.socket fd=5>\n"
    )
    assert last_line(python) == "stopped: the provider sent an overloaded error"
    # negative: a warning alone is still a message; a line after the warning counts
    assert last_line("x.py:1: UserWarning: only this\n") == "x.py:1: UserWarning: only this"
    assert last_line("a: Warning: w\nthe end\n") == "the end"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not JSON"),
        ("[]", "expected a JSON object"),
        ('{"text": 3, "complete": true}', "`text` must be a string"),
        ('{"text": "a", "complete": "yes"}', "`complete` must be true or false"),
        ('{"text": "a", "complete": true, "stop": "done"}', "`stop` 'done' is not one of"),
        ('{"text": "a", "complete": true, "why": 1}', "unknown keys why"),
    ],
)
def test_a_malformed_output_file_says_why(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "output.json"
    path.write_text(content, encoding="utf-8")
    read = read_output(path)
    assert read.output is None
    assert read.error is not None
    assert message in read.error


def test_a_missing_output_file_is_no_output(tmp_path: Path) -> None:
    assert read_output(tmp_path / "absent.json").error == (
        "the command wrote no output file (CONFORMANCE_OUTPUT)"
    )


def command_target(shell: str) -> ResolvedTarget:
    return ResolvedTarget(
        spec=shell,
        name="v2",
        kind=CommandKind(shell, contract=2),
        wires=None,
        capabilities=EVERYTHING,
    )


def run_cell(shell: str, case_id: str, column: str = "anthropic-messages") -> Result:
    target = command_target(shell)
    jobs = [j for j in plan([c.case for c in library().cases], target) if j.case.id == case_id]
    job = next(j for j in jobs if j.column == column)
    return run_job(target, job, RunOptions(timeout=30))[0]


def script(tmp_path: Path, body: str, name: str = "agent.py") -> str:
    path = tmp_path / name
    path.write_text("import os, sys\n" + body, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("code", "verdict", "reason"),
    [
        (EXIT_WIRE_UNSUPPORTED, "n/a", "does not speak this wire: sorry"),
        (EXIT_RESPONSE_REFUSED, "fail", "refused a response the provider sends: sorry"),
        (EXIT_HISTORY_UNLOADABLE, "error", "could not load the saved history: sorry"),
    ],
)
def test_reserved_exits_reach_the_verdict(
    tmp_path: Path, code: int, verdict: str, reason: str
) -> None:
    shell = script(tmp_path, f"print('sorry', file=sys.stderr)\nsys.exit({code})\n")
    result = run_cell(shell, OUTPUT_CASE)
    assert result.verdict == verdict
    assert result.reason is not None
    assert reason in result.reason


@pytest.mark.slow
def test_the_output_file_is_judged_like_an_adapters_output(tmp_path: Path) -> None:
    """The reference agent passes; the same agent whose output file is then overwritten
    with a wrong text, or with garbage, fails on the output expectation."""
    agent = f"{shlex.quote(sys.executable)} -m {AGENT}"
    assert run_cell(agent, OUTPUT_CASE).verdict == "pass"
    wrong = script(
        tmp_path,
        "import subprocess\n"
        f"code = subprocess.call({agent!r}, shell=True)\n"
        "open(os.environ['CONFORMANCE_OUTPUT'], 'w').write("
        '\'{"text": "something else", "complete": true, "stop": "end"}\')\n'
        "sys.exit(code)\n",
    )
    assert run_cell(wrong, OUTPUT_CASE).verdict == "fail"
    garbage = script(
        tmp_path,
        "import subprocess\n"
        f"code = subprocess.call({agent!r}, shell=True)\n"
        "open(os.environ['CONFORMANCE_OUTPUT'], 'w').write('{')\n"
        "sys.exit(code)\n",
    )
    result = run_cell(garbage, OUTPUT_CASE)
    assert result.verdict == "fail"
    assert any("malformed" in v.message for v in result.violations)


#: The one case that accepts a stop before the first request (a configuration the
#: provider refuses, refused locally): an early exit there is explained, not reported.
REFUSED_LOCALLY = "anthropic-adaptive-only-model-manual-config-sent-adaptive"


def first_job(target: ResolvedTarget) -> Job:
    """The first cell the target runs where an exit before any request is unexplained."""
    cases = [c.case for c in library().cases if c.case.id != REFUSED_LOCALLY]
    return next(j for j in plan(cases, target) if j.skip is None)


@pytest.mark.slow
def test_a_v1_command_is_told_nothing_of_v2(tmp_path: Path) -> None:
    shell = script(
        tmp_path,
        "import json\n"
        "doc = json.load(open(os.environ['CONFORMANCE_CASE']))\n"
        "bad = doc['version'] != 1 or 'history' in doc or 'CONFORMANCE_OUTPUT' in os.environ\n"
        "sys.exit(7 if bad else 5)\n",
    )
    target = ResolvedTarget(spec=shell, name="v1", kind=CommandKind(shell), wires=None)
    job = first_job(target)
    result = run_job(target, job, RunOptions(timeout=30))[0]
    assert result.reason == "the command exited with status 5"


def test_the_agent_refuses_an_unloadable_history_with_its_exit_code() -> None:
    from conformance.agent.runner import AgentError, load_history

    with pytest.raises(AgentError) as raised:
        load_history([{"role": "narrator", "blocks": []}])
    assert raised.value.code == EXIT_HISTORY_UNLOADABLE
    assert "cannot load the saved history" in str(raised.value)
    with pytest.raises(AgentError):
        load_history({"not": "a list"})


@pytest.mark.slow
def test_a_manifest_tells_the_command_its_model_and_runs_it_in_its_folder(
    tmp_path: Path,
) -> None:
    from conformance._targets.resolve import resolve_target

    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "check.py").write_text(
        "import json, os, sys\n"
        "doc = json.load(open(os.environ['CONFORMANCE_CASE']))\n"
        "ok = doc['model'] == 'my-model' and os.environ['MODE'] == 'x' and doc['version'] == 2\n"
        "sys.exit(5 if ok else 7)\n",
        encoding="utf-8",
    )
    manifest = tmp_path / "target.toml"
    manifest.write_text(
        'name = "m"\nkind = "command"\ncommand = \'"$CONFORMANCE_PYTHON" check.py\'\n'
        'cwd = "agent"\nenv = { MODE = "x" }\nmodel = "my-model"\ntimeout = 20\n',
        encoding="utf-8",
    )
    target = resolve_target(str(manifest))
    job = first_job(target)
    result = run_job(target, job, RunOptions(timeout=30))[0]
    assert result.reason == "the command exited with status 5"


DROPPED = "truncation-no-finish-mid-tool-use"


@pytest.mark.slow
def test_a_command_that_exits_non_zero_on_a_dropped_stream_passes(tmp_path: Path) -> None:
    """The reference agent told only the first prompt gets the dropped stream and ends;
    the wrapper then exits 1, as a CLI does on a cut stream.  Only what it sent is
    judged (it ran no partial call): ``pass``, where it was an ``error`` before."""
    agent = f"{shlex.quote(sys.executable)} -m {AGENT}"
    shell = script(
        tmp_path,
        "import json, subprocess\n"
        "path = os.environ['CONFORMANCE_CASE']\n"
        "doc = json.load(open(path))\n"
        "doc['prompts'] = doc['prompts'][:1]\n"
        "json.dump(doc, open(path, 'w'))\n"
        f"subprocess.call({agent!r}, shell=True)\n"
        "print('stream ended early', file=sys.stderr)\n"
        "sys.exit(1)\n",
    )
    for column in ("anthropic-messages", "openai-chat:openrouter"):
        result = run_cell(shell, DROPPED, column)
        assert (result.verdict, result.requests) == ("pass", 1), result


@pytest.mark.slow
def test_stopping_before_the_dropped_stream_is_still_an_error(tmp_path: Path) -> None:
    """The widening covers a stop after the cut only: a command that sends nothing and
    exits non-zero is still an ``error``."""
    result = run_cell(script(tmp_path, "sys.exit(1)\n"), DROPPED)
    assert result.verdict == "error"


@pytest.mark.slow
def test_an_interrupted_parallel_run_ends_every_running_command(tmp_path: Path) -> None:
    """An exception while a ``-j`` run waits (a signal becomes one) ends the commands
    running on the other threads at once, not after their timeout."""
    import threading
    import time

    from conformance._runner import run_jobs_parallel

    target = command_target(script(tmp_path, "import time\ntime.sleep(30)\n"))
    jobs = [j for j in plan([c.case for c in library().cases], target) if j.skip is None][:4]

    class Stop(Exception):
        pass

    def stop(_result: Result) -> None:
        raise Stop

    first = command_target(script(tmp_path, "sys.exit(0)\n", "quick.py"))
    started = time.monotonic()
    with pytest.raises(Stop):
        run_jobs_parallel(first, jobs[:1], RunOptions(timeout=30), 2, stop)
    threading.Timer(1.0, target.kind.abandon).start()  # as the failing waiter would
    results = run_jobs_parallel(target, jobs, RunOptions(timeout=900), 4)
    assert {r.reason for r in results} == {"the command did not finish within 900 s"}
    # Ended by ``abandon`` after about a second, not by the 900 s timeout (which the
    # reason shares: an abandoned command is reported as not finished in time).  The
    # bound is a hang guard hundreds of times the expected second, not a speed budget.
    assert time.monotonic() - started < 600
    # and the next run starts commands again
    assert run_cell(script(tmp_path, "sys.exit(0)\n", "again.py"), OUTPUT_CASE).reason == (
        "the target stopped after 0 of 3 scripted responses"
    )


def test_the_exit_codes_are_one_table_in_the_docs_with_an_example_each() -> None:
    """Issue 25 item 15: two library authors exited 91 on a provider error event."""
    from conformance._targets import command_contract

    docs = (Path(__file__).parents[2] / "docs" / "targets.md").read_text(encoding="utf-8")
    rows = [line for line in docs.splitlines() if line.startswith("| ")]
    codes = [v for k, v in vars(command_contract).items() if k.startswith("EXIT_")]
    assert sorted(codes) == [90, 91, 92, 93]
    for code in [0, *codes]:
        (row,) = [r for r in rows if r.startswith(f"| {code} |")]
        assert row.count(" | ") == 3, row  # four columns: meaning, verdict, example
    (other,) = [r for r in rows if r.startswith("| 1, 2, 3")]
    assert "A provider error surfaced by the library is one of these, not 91" in other
