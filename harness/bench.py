"""Benchmarks of the suite itself (figures, never assertions).

    python -m harness.bench [--seconds S] [--scale N] [--lint-scale N] [--memory-scale N]
                            [--kinds [--jobs N]]
                            [--cell [--cells N]]

* case loading, cold (YAML parsed) and warm (the cache of proven cases), on the bundled
  library copied ``--scale`` times under fresh ids, by the wall clock and per CPU second,
  as a ratio to issue 26's goals; ``cases --lint`` on the library copied
  ``--lint-scale`` times (about 20 000 cases), cold and warm, with its peak memory;
* with ``--memory-scale N``: the peak memory of ``run -q`` writing the JSON and JUnit
  reports, on the library copied N times;
* in-process case-runs per second on the reference adapter, without snapshots and with
  them (ms per case, compared against stored snapshot files);
* a streamed response over a keep-alive loopback connection (ms each);
* per wire: render and parse throughput of the wire module, and case-runs per second;
* with ``--kinds`` (``harness.bench_kinds``): one cell per target kind, and the whole
  library as a command at ``-j 1`` and ``-j N``;
* with ``--cell`` (``harness.bench_cell``): the suite's own cost per cell of a command
  target, broken down, once per cell and as a session.
"""

from __future__ import annotations

import argparse
import gc
import http.client
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from conformance._cases.library import bundled_cases_dir, case_dirs, vocabulary
from conformance._cases.loader import load_dirs
from conformance._cases.parse_cache import RACY_SECONDS, ParseCache
from conformance._provider.loopback import LoopbackServer
from conformance._reference.adapter import ReferenceAdapter
from conformance._runner import Job, RunOptions, plan, run_job, run_jobs
from conformance._snapshots import SnapshotStore
from conformance._targets.resolve import target_from_object
from conformance.http import HttpRequest, HttpResponse
from conformance.vocabulary import ScriptedResponse
from conformance.wires._registry import get_wire, split_column
from conformance.wires._sse import format_event
from conformance.wires.context import RenderContext, ValidationContext


def rate(task: Callable[[], int], seconds: float) -> float:
    """Items per second of ``task`` (which returns how many items it did), over ``seconds``."""
    task()  # warm up imports and caches
    gc.collect()  # start every measurement from the same heap
    done, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += task()
    return done / elapsed


def scaled_library(scale: int, into: Path) -> Path:
    """The bundled cases copied ``scale`` times, each copy with its own ids."""
    into.mkdir(parents=True, exist_ok=True)
    shutil.copy(bundled_cases_dir() / "FEATURES.txt", into / "FEATURES.txt")
    for path in bundled_cases_dir().rglob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        for n in range(scale):
            target = into / path.parent.name / f"{path.stem}-x{n}.yaml"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(
                re.sub(r"^id: (.*)$", rf"id: \1-x{n}", text, count=1, flags=re.M), encoding="utf-8"
            )
    return into


#: The goals of issue 26 for loading: cases per second, cold and warm, and the seconds
#: ``cases --lint`` may take on a library of ``LINT_CASES`` cases.
COLD_GOAL, WARM_GOAL, LINT_GOAL, LINT_CASES = 3_000, 10_000, 10.0, 20_000


def cpu_rate(task: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Items per second of ``task``, by the wall clock and by the process's CPU time (on
    a machine others load too, the CPU figure is the one that compares across runs)."""
    task()
    gc.collect()
    done, start, cpu = 0, time.perf_counter(), time.process_time()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += task()
    return done / elapsed, done / max(time.process_time() - cpu, 1e-9)


def bench_loading(seconds: float, scale: int, lint_scale: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        library = scaled_library(scale, Path(tmp) / "cases")
        built = time.time()
        words = vocabulary([library])
        count = len(load_dirs([library], words, ParseCache(None)).cases)
        cold = cpu_rate(lambda: len(load_dirs([library], words, ParseCache(None)).cases), seconds)
        cache = ParseCache(Path(tmp) / "cache")
        # Files younger than RACY_SECONDS are always read and hashed; a library is older.
        time.sleep(max(0.0, built + RACY_SECONDS - time.time()))
        load_dirs([library], words, cache)
        load_dirs([library], words, cache)  # the signatures are stored once old enough
        warm = cpu_rate(lambda: len(load_dirs([library], words, cache).cases), seconds)
    print(
        f"case loading ({count} cases): cold {cold[0]:,.0f} cases/s ({cold[1]:,.0f} per CPU "
        f"second, {cold[1] / COLD_GOAL:.2f}x the goal), warm (cache of proven cases) "
        f"{warm[0]:,.0f} cases/s ({warm[1]:,.0f} per CPU second, {warm[1] / WARM_GOAL:.2f}x "
        f"the goal); warm/cold {warm[1] / cold[1]:.1f}x"
    )
    if lint_scale:
        bench_lint(lint_scale)


#: A small process that starts the measured command and prints its resource usage (CPU
#: seconds, peak KB): a child's peak starts at its parent's size, because Linux keeps
#: the larger of the memory a process had before ``exec`` and after, so a command
#: started straight from the bench (which has loaded libraries by then) would report at
#: least the bench's own size.  This parent is a bare interpreter, a few MB.
_MEASURING = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
print(usage.ru_utime + usage.ru_stime, usage.ru_maxrss, file=sys.stderr)
sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
"""


def measured(command: list[str], environment: dict[str, str]) -> tuple[str, float, float, float]:
    """A command's standard output, wall seconds, CPU seconds and peak memory (MB), all
    of that one process (``_MEASURING``): ``RUSAGE_CHILDREN``'s peak is the largest of
    every child so far, so a run measured after the lint reported the lint's peak."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-S", "-c", _MEASURING, *command],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    cpu, peak = done.stderr.split()[-2:]
    return done.stdout, wall, float(cpu), int(peak) / 1024


def bench_memory(scale: int) -> None:
    """Peak memory of ``run -q`` writing the JSON and JUnit reports, on the library copied
    ``scale`` times (70: about 20 000 cases), in a process of its own as a user runs it
    (issue 26: memory should follow the cells in flight, not the library)."""
    with tempfile.TemporaryDirectory() as tmp:
        library = scaled_library(scale, Path(tmp) / "cases")
        environment = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "xdg")}
        environment.pop("WIRE_CONFORMANCE_NO_CACHE", None)
        command = [sys.executable, "-m", "conformance", "run", "-q", "--cases", str(library)]
        command += ["--json", str(Path(tmp) / "r.json"), "--junit", str(Path(tmp) / "r.xml")]
        out, wall, cpu, peak = measured(command, environment)
        summary = out.strip().splitlines()[-1] if out.strip() else "?"
    print(f"run -q --json --junit ({summary}): peak {peak:,.0f} MB, {wall:.1f} s ({cpu:.1f} s CPU)")


def bench_lint(scale: int) -> None:
    """``cases --lint`` on the library copied ``scale`` times (70: about 20 000 cases),
    cold (no cache) and warm, in a process of its own as a user runs it."""
    with tempfile.TemporaryDirectory() as tmp:
        library = scaled_library(scale, Path(tmp) / "cases")
        environment = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "xdg")}
        environment.pop("WIRE_CONFORMANCE_NO_CACHE", None)
        command = [sys.executable, "-m", "conformance", "cases", "--lint", "--cases", str(library)]
        figures = []
        for label in ("cold", "warm"):
            out, wall, cpu, peak = measured(command, environment)
            figures.append(
                f"{label} {wall:.1f} s ({cpu:.1f} s CPU, {cpu / LINT_GOAL:.2f} of the "
                f"{LINT_GOAL:.0f} s budget; peak {peak:,.0f} MB)"
            )
        counted = out.strip().splitlines()[-1] if out.strip() else "?"
    print(f"cases --lint ({counted}): {', '.join(figures)}")


def bench_runs(seconds: float) -> None:
    target = target_from_object(ReferenceAdapter())
    cases = [c.case for c in load_dirs(case_dirs(), vocabulary(), ParseCache(None)).cases]
    jobs = [j for j in plan(cases, target) if j.skip is None]
    plain = rate(lambda: len(run_jobs(target, jobs, RunOptions())), seconds)
    with tempfile.TemporaryDirectory() as tmp:
        store = SnapshotStore(Path(tmp), target.name, update=True)
        run_jobs(target, jobs, RunOptions(snapshots=store))
        checked = RunOptions(snapshots=SnapshotStore(Path(tmp), target.name))
        snap = rate(lambda: len(run_jobs(target, jobs, checked)), seconds)
    print(
        f"reference case-runs ({len(jobs)} cells): {plain:,.0f} runs/s without snapshots "
        f"({1000 / plain:.2f} ms/case); {snap:,.0f} runs/s with snapshots "
        f"({1000 / snap:.2f} ms/case)"
    )
    by_column: dict[str, list[Job]] = {}
    for job in jobs:
        by_column.setdefault(job.column, []).append(job)
    for column, column_jobs in sorted(by_column.items()):
        bench_wire(column, column_jobs, target, seconds)


def bench_wire(column: str, jobs: list[Job], target: object, seconds: float) -> None:
    """Render and parse throughput of one wire on the library's shapes, and case-runs/s."""
    wire_name, dialect = split_column(column)
    wire = get_wire(wire_name)
    rendered: list[tuple[ScriptedResponse, RenderContext]] = []
    for job in jobs:
        for index, response in enumerate(job.case.given.responses):
            how = RenderContext(index, job.case.id, job.case.given.options.model, True, dialect)
            rendered.append((response, how))
    renders = rate(lambda: len([wire.render(r, c) for r, c in rendered]), seconds / 3)
    requests: list[tuple[HttpRequest, ValidationContext]] = []
    for job in jobs:
        _, transcript = run_job(target_from_object(ReferenceAdapter()), job, RunOptions())
        given = job.case.given
        known = ValidationContext(1, given.options, given.responses, given.history, dialect)
        requests += [(e.request, known) for e in transcript.exchanges] if transcript else []
    parses = rate(lambda: len([wire.parse(r, c) for r, c in requests]), seconds / 3)
    resolved = target_from_object(ReferenceAdapter())
    runs = rate(lambda: len(run_jobs(resolved, jobs, RunOptions())), seconds / 3)
    print(
        f"  {column}: render {renders:,.0f} responses/s, parse {parses:,.0f} requests/s, "
        f"{runs:,.0f} case-runs/s ({len(jobs)} cells)"
    )


def _streamed(request: HttpRequest) -> HttpResponse:
    events = tuple(format_event("content_block_delta", {"n": n}) for n in range(8))
    return HttpResponse(200, b"".join(events), (("content-type", "text/event-stream"),), events)


def bench_loopback(seconds: float) -> None:
    """Streamed responses (8 SSE events, one write each) per second over one keep-alive
    loopback connection: Nagle's algorithm would hold each event for the last one's ACK."""
    with LoopbackServer(_streamed) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)

        def one() -> int:
            connection.request("POST", "/v1/messages", body=b"{}")
            connection.getresponse().read()
            return 1

        per_second = rate(one, seconds)
        connection.close()
    print(f"loopback: streamed response (8 events, keep-alive)  {1000 / per_second:8.3f} ms each")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--scale", type=int, default=20, help="copies of the library to load")
    parser.add_argument(
        "--lint-scale",
        type=int,
        default=70,
        help="copies of the library `cases --lint` checks (70: about 20 000 cases; 0: skip)",
    )
    parser.add_argument(
        "--memory-scale",
        type=int,
        default=0,
        help="copies of the library `run -q` runs for its peak memory (70: about 20 000 "
        "cases; 0: skip)",
    )
    parser.add_argument(
        "--kinds", action="store_true", help="also time the target kinds and -j (slow)"
    )
    parser.add_argument("--jobs", type=int, default=4, help="-j for the parallel command run")
    parser.add_argument(
        "--cell", action="store_true", help="the suite's cost per command cell, broken down"
    )
    parser.add_argument("--cells", type=int, default=40, help="cells timed per --cell figure")
    args = parser.parse_args()
    if args.cell:
        from harness.bench_cell import bench_cell

        bench_cell(args.cells)
        return
    if args.kinds:
        from harness.bench_kinds import bench_kinds

        bench_kinds(args.jobs)
        return
    bench_loopback(args.seconds)
    bench_loading(args.seconds, args.scale, args.lint_scale)
    if args.memory_scale:
        bench_memory(args.memory_scale)
    bench_runs(args.seconds)


if __name__ == "__main__":
    main()
