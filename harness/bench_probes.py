"""Benchmarks of the probe runner (figures, never assertions).

    python -m harness.bench_probes [--mutmut] [--mutmut-modules output,turns]

* the reference catalogue in-process and with ``--isolate fork``: mutants per second;
* the in-process overhead of a probe: the seconds its cells took on the mutant against
  the seconds the same cells take on the unmutated reference;
* with ``--mutmut`` (mutmut 3 installed in the environment, never a project
  dependency): mutmut on reference modules in a scratch copy of the repository, with a
  pytest file that runs the bundled cases on the reference, and its mutations per
  second beside ours.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from conformance.cases.library import load_library
from conformance.probe.catalogue import reference_catalogue
from conformance.probe.reach import Reach
from conformance.probe.run import Control, ProbeOptions, control, run_probes
from conformance.runner import Job, RunOptions, plan, run_job
from conformance.targets.resolve import REFERENCE_SPEC, resolve_target

REPO = Path(__file__).resolve().parents[1]

MUTMUT_TEST = '''\
"""The bundled cases on the reference adapter (strict), as the probe runner runs them."""

import pytest

from conformance.cases.library import load_library
from conformance.reference.adapter import ReferenceAdapter
from conformance.runner import RunOptions, plan, run_job
from conformance.targets.resolve import target_from_object

TARGET = target_from_object(ReferenceAdapter())
JOBS = [j for j in plan((c.case for c in load_library().cases), TARGET) if not j.skip]


@pytest.mark.parametrize("job", JOBS, ids=[f"{j.case.id}[{j.column}]" for j in JOBS])
def test_cell(job):
    result, _ = run_job(TARGET, job, RunOptions(strict=True))
    assert result.verdict in ("pass", "pinned"), result.reason
'''


def _control() -> Control:
    target = resolve_target(REFERENCE_SPEC)
    jobs = plan((c.case for c in load_library().cases), target)
    return control(
        target, jobs, RunOptions(strict=True), reach=(REFERENCE_SPEC, reference_catalogue())
    )


def _cells() -> list[Job]:
    return list(_control().killable)


def _cpu() -> float:
    """CPU seconds of this process and its finished children: on a machine shared with
    other work, wall time measures the neighbours as much as the code."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + usage.ru_utime + usage.ru_stime


def _unmutated_seconds(jobs: Sequence[Job]) -> dict[tuple[str, str], float]:
    """CPU seconds of each cell on the unmutated reference (best of 3)."""
    target = resolve_target(REFERENCE_SPEC)
    seconds: dict[tuple[str, str], float] = {}
    for _ in range(3):
        for job in jobs:
            started = _cpu()
            run_job(target, job, RunOptions(strict=True))
            spent = _cpu() - started
            key = (job.case.id, job.column)
            seconds[key] = min(seconds.get(key, spent), spent)
    return seconds


def bench_catalogue(all_killers: bool) -> None:
    catalogue = reference_catalogue()
    target = resolve_target(REFERENCE_SPEC)
    jobs = plan((c.case for c in load_library().cases), target)
    control(target, jobs, RunOptions(strict=True))  # warm: the cases' first parse
    started = _cpu()
    control(target, jobs, RunOptions(strict=True))
    plain = _cpu() - started
    started = _cpu()
    checked = _control()
    marked = _cpu() - started
    print(
        f"positive control: {plain:.2f} CPU s; with the reach markers: {marked:.2f} CPU s "
        f"({100 * (marked / plain - 1):+.0f}%, once per run)"
    )
    cells = list(checked.killable)
    unmutated = _unmutated_seconds(cells)
    print(
        f"unmutated reference: {len(cells)} cells in {sum(unmutated.values()):.2f} CPU s "
        f"({1000 * sum(unmutated.values()) / len(cells):.2f} ms per cell, best of 3)"
    )
    mode = "all killers" if all_killers else "first killer"
    for isolate in ("none", "fork"):
        options = ProbeOptions(RunOptions(strict=True), all_killers, isolate)
        cpu = _cpu()
        started = time.perf_counter()
        results = run_probes(REFERENCE_SPEC, catalogue, cells, options, reached=checked.reached)
        seconds = time.perf_counter() - started
        cpu = _cpu() - cpu
        ran = sum(r.cells_run for r in results)
        print(
            f"reference catalogue, isolate {isolate}, {mode}: {len(results)} mutants, "
            f"{ran} cells in {cpu:.2f} CPU s = {len(results) / cpu:.1f} mutants per CPU "
            f"second (wall {seconds:.2f} s = {len(results) / seconds:.1f} mutants/s)"
        )
        if isolate == "none":
            _overhead(results, cells, unmutated, cpu, checked.reached)
            _rebuild()


def _rebuild() -> None:
    """The cost of building a mutated target alone (the mutated module and its
    dependants re-imported, the target resolved, the modules put back)."""
    from conformance.probe.mutate import ProbeInvalid
    from conformance.probe.run import mutant_target

    probes = reference_catalogue().probes
    started = _cpu()
    for probe in probes:
        try:
            with mutant_target(REFERENCE_SPEC, probe):
                pass
        except ProbeInvalid:
            pass
    per = 1000 * (_cpu() - started) / len(probes)
    print(f"building one mutated reference in-process: {per:.1f} CPU ms")


def _overhead(
    results: Sequence[object],
    jobs: Sequence[Job],
    unmutated: dict[tuple[str, str], float],
    seconds: float,
    reached: Reach | None,
) -> None:
    """The whole catalogue's time against the unmutated time of the cells its mutants
    ran (each mutant runs the cells that reach its change, expected killers first)."""
    from conformance.probe.run import _ordered, reaching
    from conformance.probe.verdicts import MutantResult

    catalogue = {p.id: p for p in reference_catalogue().probes}
    same_cells = 0.0
    for result in results:
        assert isinstance(result, MutantResult)
        probe = catalogue[result.id]
        cells = reaching(probe, jobs, reached)
        ordered = _ordered(probe, cells)[: result.cells_run]
        same_cells += sum(unmutated[(j.case.id, j.column)] for j in ordered)
    if same_cells:
        print(
            f"in-process cost: {seconds:.2f} CPU s for the catalogue against "
            f"{same_cells:.2f} CPU s for the same cells unmutated: "
            f"{100 * (seconds / same_cells - 1):+.0f}%"
        )


def bench_mutmut(modules: Sequence[str], limit: float) -> None:
    """mutmut 3 in a scratch copy of the repository (it writes ``mutants/`` there)."""
    mutmut = shutil.which("mutmut", path=str(Path(sys.executable).parent))
    if mutmut is None:
        print("mutmut: not installed in this environment (pip install 'mutmut>=3,<4')")
        return
    with tempfile.TemporaryDirectory(prefix="bench-mutmut-") as folder:
        copy = Path(folder) / "repo"
        shutil.copytree(
            REPO,
            copy,
            ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*_cache", "mutants"),
        )
        shutil.rmtree(copy / "tests")
        (copy / "tests").mkdir()
        (copy / "tests" / "test_cells.py").write_text(MUTMUT_TEST)
        paths = "\n  ".join(f"conformance/reference/{m}.py" for m in modules)
        with (copy / "setup.cfg").open("w") as config:
            config.write(
                "[mutmut]\n"
                f"paths_to_mutate = {paths}\n"
                "tests_dir = tests/\n"
                "also_copy = conformance/\n  cases/\n  snapshots/\n"
            )
        env = {**os.environ, "PYTHONPATH": str(copy)}
        cpu = _cpu()
        started = time.perf_counter()
        try:
            run = subprocess.run(
                [mutmut, "run", "--max-children", "1"],
                cwd=copy,
                env=env,
                capture_output=True,
                text=True,
                timeout=limit,
            )
            output = run.stdout + run.stderr
            finished = True
        except subprocess.TimeoutExpired as expired:
            output = (
                (expired.stdout or b"").decode(errors="replace")
                if isinstance(expired.stdout, bytes)
                else (expired.stdout or "")
            )
            finished = False
        seconds = time.perf_counter() - started
        cpu = _cpu() - cpu
        results = subprocess.run(
            [mutmut, "results", "--all", "true"], cwd=copy, env=env, capture_output=True, text=True
        ).stdout
        done = len(re.findall(r": (killed|survived|timeout|suspicious|segfault)", results))
        total = len(re.findall(r"^\s*\S+__mutmut_\d+", results, re.MULTILINE))
        state = "finished" if finished else f"stopped at the {limit:g} s limit"
        print(
            f"mutmut 3 on {', '.join(modules)}: {done} mutants judged of {total} in "
            f"{seconds:.1f} s ({state}) = {done / seconds:.2f} mutations/s; "
            f"{cpu:.1f} CPU s = {done / cpu if cpu else 0:.2f} mutations per CPU second"
        )
        if not done:
            print("mutmut output (tail):", output[-1500:])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.bench_probes")
    parser.add_argument("--all-killers", action="store_true")
    parser.add_argument("--mutmut", action="store_true", help="also run mutmut 3 (installed)")
    parser.add_argument("--mutmut-modules", default="output", help="reference modules, comma")
    parser.add_argument("--mutmut-limit", type=float, default=600.0, metavar="S")
    args = parser.parse_args(argv)
    bench_catalogue(args.all_killers)
    if args.mutmut:
        bench_mutmut(args.mutmut_modules.split(","), args.mutmut_limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
