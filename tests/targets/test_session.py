"""Session mode of the command kind: one process holds many cells, and isolation stays
what a process per cell gives (a crash, a hang, a broken protocol, a conversation left
running and state kept from the previous cell each cost that cell alone, with the
verdict a process would get, and a fresh session takes the next cell)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance._runner import Job, RunOptions, plan, run_job, run_jobs_parallel
from conformance._targets.manifest import BUNDLED_MANIFESTS, load_manifest
from conformance._targets.resolve import ResolvedTarget, resolve_target
from conformance._targets.session import SessionKind, end_every_session, end_sessions
from conformance.verdict import Result
from tests.support import library

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
MISBEHAVING = HERE / "misbehaving_session.py"
CAPABILITIES = (
    '["history", "output-selection", "xml-recovery", "pause-resume", "tool-choice", '
    '"prefill", "betas"]'
)
#: Time a cell is given: generous (a loaded machine starts Python slowly), a hang guard.
TIMEOUT = 120.0
#: What a hanging cell is given (the cells before and after it get ``TIMEOUT``).
HANG_TIMEOUT = 3.0


@pytest.fixture(autouse=True)
def no_session_outlives_its_test() -> Iterator[None]:
    yield
    end_every_session()


def manifest(tmp_path: Path, command: str, session: bool, **env: str) -> ResolvedTarget:
    """A manifest target running ``command`` from the repository root."""
    variables = ", ".join(f"{name} = {json.dumps(value)}" for name, value in env.items())
    path = tmp_path / f"target-{'session' if session else 'process'}.toml"
    path.write_text(
        f'name = "misbehaving"\nkind = "command"\ncommand = {json.dumps(command)}\n'
        f"cwd = {json.dumps(str(ROOT))}\nsession = {str(session).lower()}\n"
        f'wires = ["anthropic-messages"]\ncapabilities = {CAPABILITIES}\n'
        f"env = {{ {variables} }}\n",
        encoding="utf-8",
    )
    return resolve_target(str(path))


def misbehaving(tmp_path: Path, mode: str, session: bool, at: int) -> tuple[ResolvedTarget, Path]:
    pids = tmp_path / f"pids-{mode}-{session}"
    command = f'"$CONFORMANCE_PYTHON" {MISBEHAVING}'
    target = manifest(
        tmp_path, command, session, MISBEHAVE=mode, MISBEHAVE_AT=str(at), PIDS=str(pids)
    )
    return target, pids


def cells(target: ResolvedTarget, count: int = 3) -> list[Job]:
    """The first ``count`` cells the reference passes on anthropic-messages."""
    jobs = [j for j in plan((c.case for c in library().cases), target) if j.skip is None]
    return jobs[:count]


def hold(
    target: ResolvedTarget, jobs: list[Job], timeouts: list[float] | None = None
) -> list[Result]:
    return [
        run_job(
            target, job, RunOptions(strict=True, timeout=(timeouts or [TIMEOUT] * len(jobs))[i])
        )[0]
        for i, job in enumerate(jobs)
    ]


def pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text(encoding="utf-8").split()]


def judged(result: Result) -> tuple[str, str | None]:
    return result.verdict, result.reason


def test_the_manifest_flag_makes_a_session_kind_and_the_bundled_manifests_differ_in_it() -> None:
    assert isinstance(resolve_target("reference-command").kind, SessionKind)
    assert not isinstance(resolve_target("reference-command-process").kind, SessionKind)
    session, process = (
        load_manifest(BUNDLED_MANIFESTS[name])
        for name in ("reference-command", "reference-command-process")
    )
    assert session.session
    assert not process.session
    assert session.command == process.command  # one command, both modes


def test_a_session_must_be_a_command(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('name = "x"\nkind = "m:A"\nsession = true\n', encoding="utf-8")
    with pytest.raises(ValueError, match="`session` are for kind `command` only"):
        load_manifest(path)


@pytest.mark.slow
def test_one_process_holds_every_cell_of_a_worker(tmp_path: Path) -> None:
    target, seen = misbehaving(tmp_path, "none", session=True, at=0)
    results = hold(target, cells(target))
    assert [r.verdict for r in results] == ["pass"] * 3
    assert len(set(pids(seen))) == 1


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["crash", "unfinished"])
def test_a_cell_that_crashes_or_leaves_its_conversation_running_gets_the_process_verdict(
    tmp_path: Path, mode: str
) -> None:
    """The session is ended; the misbehaving cell is judged as the same code run as a
    process; the next cell is held by a fresh session and passes."""
    target, seen = misbehaving(tmp_path, mode, session=True, at=2)
    jobs = cells(target)
    first, broken, after = hold(target, jobs)
    process, _ = misbehaving(tmp_path, mode, session=False, at=1)
    (alone,) = hold(process, jobs[1:2])
    assert judged(broken) == judged(alone)
    assert broken.verdict != "pass"
    assert (first.verdict, after.verdict) == ("pass", "pass")
    held_by = pids(seen)
    assert held_by[0] == held_by[1] != held_by[2]


@pytest.mark.slow
def test_a_crash_reports_the_exit_status_and_the_cells_stderr(tmp_path: Path) -> None:
    target, _ = misbehaving(tmp_path, "crash", session=True, at=2)
    _, crashed, _ = hold(target, cells(target))
    assert crashed.reason is not None
    assert "status 3" in crashed.reason
    assert crashed.stderr_tail is not None
    assert "crashing on purpose" in crashed.stderr_tail


@pytest.mark.slow
def test_a_hang_is_a_timeout_error_and_the_next_cell_gets_a_fresh_session(
    tmp_path: Path,
) -> None:
    target, seen = misbehaving(tmp_path, "hang", session=True, at=2)
    first, hung, after = hold(target, cells(target), [TIMEOUT, HANG_TIMEOUT, TIMEOUT])
    assert hung.verdict == "error"
    assert hung.reason is not None
    assert f"did not finish within {HANG_TIMEOUT:g} s" in hung.reason
    assert (first.verdict, after.verdict) == ("pass", "pass")
    held_by = pids(seen)
    assert held_by[0] == held_by[1] != held_by[2]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "says"),
    [("garbage", "its answer is not JSON"), ("wrong-cell", "it answered for cell 'other'")],
)
def test_protocol_garbage_is_an_error_with_the_reason(tmp_path: Path, mode: str, says: str) -> None:
    target, seen = misbehaving(tmp_path, mode, session=True, at=2)
    first, broken, after = hold(target, cells(target))
    assert broken.verdict == "error"
    assert broken.reason is not None
    assert "broke the session protocol" in broken.reason
    assert says in broken.reason
    assert (first.verdict, after.verdict) == ("pass", "pass")
    held_by = pids(seen)
    assert held_by[1] != held_by[2]


@pytest.mark.slow
def test_a_session_that_keeps_the_previous_cells_conversation_fails(tmp_path: Path) -> None:
    """Each cell has its own provider: a conversation carried over from the previous
    cell replays the wrong history (and no later cell of the session passes); the same
    adapter run once per cell passes every cell."""
    command = '"$CONFORMANCE_PYTHON" -m conformance.agent tests.targets.leaky_adapter:LeakyAdapter'
    leaky = manifest(tmp_path, command, session=True)
    jobs = cells(leaky)
    first, *later = hold(leaky, jobs)
    assert first.verdict == "pass"
    assert all(r.verdict in ("fail", "error") for r in later)
    alone = manifest(tmp_path, command, session=False)
    assert [r.verdict for r in hold(alone, jobs)] == ["pass"] * len(jobs)


@pytest.mark.slow
def test_parallel_workers_each_hold_their_own_session(tmp_path: Path) -> None:
    target, seen = misbehaving(tmp_path, "none", session=True, at=0)
    jobs = cells(target, 6)
    results = run_jobs_parallel(target, jobs, RunOptions(strict=True, timeout=TIMEOUT), 2)
    assert [r.key for r in results] == [(j.case.id, j.column) for j in jobs]
    assert {r.verdict for r in results} == {"pass"}
    assert 1 <= len(set(pids(seen))) <= 2


@pytest.mark.slow
def test_the_python_helper_runs_a_cell_once_outside_a_session(tmp_path: Path) -> None:
    """Without ``CONFORMANCE_SESSION`` the same script is a per-process command."""
    target, seen = misbehaving(tmp_path, "none", session=False, at=0)
    results = hold(target, cells(target, 2))
    assert [r.verdict for r in results] == ["pass", "pass"]
    assert len(set(pids(seen))) == 2
    assert sys.executable  # the manifest's $CONFORMANCE_PYTHON


@pytest.mark.slow
def test_ending_a_kinds_sessions_ends_its_processes(tmp_path: Path) -> None:
    """A probed mutant's sessions run in its scratch copy: they end with it."""
    target, seen = misbehaving(tmp_path, "none", session=True, at=0)
    assert isinstance(target.kind, SessionKind)
    hold(target, cells(target, 1))
    (pid,) = pids(seen)
    assert running(pid)
    end_sessions(target.kind)
    assert not running(pid)


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie left to an init that does not reap is
    not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in "ZX"
