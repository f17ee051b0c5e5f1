"""The suite's own cost per cell of a command target, broken down (figures, never
assertions; ratios are of figures measured in this one run).

    python -m harness.bench --cell [--cells N]

* a do-nothing command (``cmd:`` a shell script doing ``exit 90``), once per cell: the
  wall time of a cell, the suite's CPU time per cell, and the process alone (start and
  wait, no suite) it cannot go below;
* the parts of a process cell, each timed alone: the loopback provider's start and close,
  the scratch folder with the case document, the descendant scan (only the processes
  started since the command, and every process of the machine);
* the same do-nothing command as a session (one process, a JSON line per cell): the
  suite's floor per cell in session mode;
* the reference adapter in-process (the provider, the checks and the verdict, no
  transport), as a command once per cell and as a session.
"""

from __future__ import annotations

import resource
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from conformance._cases.library import case_dirs, vocabulary
from conformance._cases.loader import load_dirs
from conformance._cases.parse_cache import ParseCache
from conformance._provider.loopback import LoopbackServer
from conformance._runner import Job, RunOptions, plan, run_job
from conformance._targets.descendants import PidWindow, end_marked, new_marker
from conformance._targets.resolve import ResolvedTarget, resolve_target
from conformance._targets.scratch import Scratch
from conformance._targets.session import end_every_session
from conformance.http import HttpRequest, HttpResponse, json_response

#: A session that answers every cell at once with status 90 (``n/a``), as the shell
#: script does as a process.
DO_NOTHING_SESSION = """\
import sys
from conformance.examples.command_session import serve_or_run
serve_or_run(lambda: 90)
"""


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _each(task: Callable[[], object], count: int) -> float:
    """Milliseconds per call of ``task`` over ``count`` calls (after one to warm up)."""
    task()
    started = time.perf_counter()
    for _ in range(count):
        task()
    return 1000 * (time.perf_counter() - started) / count


def _cells(target: ResolvedTarget, count: int) -> list[Job]:
    cases = [c.case for c in load_dirs(case_dirs(), vocabulary(), ParseCache(None)).cases]
    return [j for j in plan(cases, target) if j.skip is None][:count]


def _per_cell(target: ResolvedTarget, jobs: list[Job]) -> tuple[float, float]:
    """Wall and suite-CPU milliseconds per cell over ``jobs`` (one cell run first to
    start a session, not counted)."""
    run_job(target, jobs[0], RunOptions(timeout=60))
    cpu, started = _cpu(), time.perf_counter()
    for job in jobs:
        run_job(target, job, RunOptions(timeout=60))
    count = len(jobs)
    return 1000 * (time.perf_counter() - started) / count, 1000 * (_cpu() - cpu) / count


def _answer(request: HttpRequest) -> HttpResponse:
    return json_response(200, {})


def bench_cell(cells: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "exit90.sh"
        script.write_text("#!/bin/sh\nexit 90\n", encoding="utf-8")
        script.chmod(0o755)
        session_script = Path(tmp) / "exit90_session.py"
        session_script.write_text(DO_NOTHING_SESSION, encoding="utf-8")
        manifest = Path(tmp) / "exit90-session.toml"
        shell = f"{shlex.quote(sys.executable)} {shlex.quote(str(session_script))}"
        manifest.write_text(
            f'name = "exit90-session"\nkind = "command"\ncommand = {shell!r}\n'
            "session = true\ncontract = 1\n",
            encoding="utf-8",
        )
        process_target = resolve_target(f"cmd:{script}")
        session_target = resolve_target(str(manifest))
        jobs = _cells(process_target, cells)
        wall, cpu = _per_cell(process_target, jobs)
        alone = _each(
            lambda: subprocess.run([str(script)], start_new_session=True, check=False), cells
        )
        server = _each(lambda: LoopbackServer(_answer).start().close(), cells)

        def scratch() -> None:
            with Scratch() as folder:
                (folder / "case.json").write_text("{}", encoding="utf-8")

        folder = _each(scratch, cells)
        marker = new_marker()
        window = PidWindow.open()
        recent = _each(lambda: end_marked(marker, 1.0, window), cells)
        every = _each(lambda: end_marked(marker, 1.0, None), cells)
        session_wall, session_cpu = _per_cell(session_target, _cells(session_target, cells))
        reference = resolve_target("reference")
        in_process, _ = _per_cell(reference, _cells(reference, cells))
        command = resolve_target("reference-command")
        once = resolve_target("reference-command-process")
        held, _ = _per_cell(command, _cells(command, cells))
        started, _ = _per_cell(once, _cells(once, max(4, cells // 8)))
        end_every_session()
    overhead = wall - alone
    rows = [
        ("do-nothing command, once per cell: wall per cell", wall),
        ("  the process alone (start, wait; no suite)", alone),
        ("  the suite's overhead (wall − process alone)", overhead),
        ("  the suite's CPU per cell", cpu),
        ("  loopback provider start and close", server),
        ("  scratch folder and case document", folder),
        ("  descendant scan, processes started since the command", recent),
        ("  descendant scan, every process of the machine (before)", every),
        ("do-nothing command as a session: wall per cell", session_wall),
        ("  the suite's CPU per cell", session_cpu),
        ("reference in-process: per cell", in_process),
        ("reference-command as a session: per cell", held),
        ("reference-command-process (once per cell): per cell", started),
    ]
    print(f"cost per cell ({cells} cells each; ratio: to the do-nothing command's wall)")
    for label, value in rows:
        print(f"  {label}: {value:.2f} ms ({value / wall:.2f}×)")
