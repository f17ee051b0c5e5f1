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

from conformance._cases.library import load_library
from conformance._probe.catalogue import Catalogue, reference_catalogue
from conformance._probe.reach import Reach
from conformance._probe.run import Control, ProbeOptions, control, run_probes
from conformance._probe.verdicts import MutantResult
from conformance._runner import Job, RunOptions, plan, run_job
from conformance._targets.resolve import REFERENCE_SPEC, resolve_target
from conformance.errors import ProbeInvalid

REPO = Path(__file__).resolve().parents[1]

MUTMUT_TEST = '''\
"""The bundled cases on the reference adapter (strict), as the probe runner runs them."""

import pytest

from conformance._cases.library import load_library
from conformance._reference.adapter import ReferenceAdapter
from conformance._runner import RunOptions, plan, run_job
from conformance._targets.resolve import target_from_object

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
            _overhead(catalogue, cells, options, checked.reached)
            _rebuild()


def _same_cells(
    results: Sequence[MutantResult], jobs: Sequence[Job], reached: Reach | None
) -> list[Job]:
    """The cells the catalogue's mutants ran, in order (each mutant runs the cells that
    reach its change, expected killers first)."""
    from conformance._probe.run import _ordered, reaching

    catalogue = {p.id: p for p in reference_catalogue().probes}
    same: list[Job] = []
    for result in results:
        probe = catalogue[result.id]
        same.extend(_ordered(probe, reaching(probe, jobs, reached))[: result.cells_run])
    return same


def _overhead(
    catalogue: Catalogue, jobs: Sequence[Job], options: ProbeOptions, reached: Reach | None
) -> None:
    """The catalogue's CPU time against the CPU time of the same cells, in the same
    order, on the unmutated reference: three alternated rounds, the median ratio."""
    target = resolve_target(REFERENCE_SPEC)
    ratios = []
    for _ in range(3):
        started = _cpu()
        results = run_probes(REFERENCE_SPEC, catalogue, jobs, options, reached=reached)
        probes = _cpu() - started
        same = _same_cells(results, jobs, reached)
        started = _cpu()
        for job in same:
            run_job(target, job, options.run)
        unmutated = _cpu() - started
        ratios.append((probes / unmutated, probes, unmutated))
    ratio, probes, unmutated = sorted(ratios)[1]
    print(
        f"in-process cost: {probes:.2f} CPU s for the catalogue against {unmutated:.2f} CPU s "
        f"for the same {len(same)} cells unmutated: {100 * (ratio - 1):+.0f}% "
        f"(median of 3 alternated rounds)"
    )


def _rebuild() -> None:
    """The cost of building a mutated target alone (the mutated module and its
    dependants re-imported, the target resolved, the modules put back)."""
    from conformance._probe.run import mutant_target

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
        paths = "\n  ".join(f"conformance/_reference/{m}.py" for m in modules)
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
