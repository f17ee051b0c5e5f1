"""Probe a target: the positive control, then every probe of the catalogue.

In-process targets (``reference``, ``module:attr``) get each mutant rebuilt in the
running process (``conformance._probe.modules``), or in a forked child with
``isolate="fork"`` (for a target that holds global state); the runner and the target
kinds are untouched: a mutated target is an ordinary ``ResolvedTarget`` whose kind
holds the mutated object.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Literal

from conformance._probe.catalogue import Catalogue, Probe
from conformance._probe.modules import (
    in_scope,
    module_file,
    module_for_path,
    mutated_modules,
    rebuilt_modules,
    scope_of,
)
from conformance._probe.mutate import compiled, mutated_source
from conformance._probe.reach import MARKER, Mark, Reach, ReachRecorder, instrumented, touched
from conformance._probe.scratch_root import mutant_command
from conformance._probe.swap import swap_for, swapped
from conformance._probe.verdicts import (
    Killer,
    MutantResult,
    cell_matches,
    invalid,
    judge,
    observe,
)
from conformance._runner import Job, RunOptions, run_job, run_jobs_parallel
from conformance._targets.kind import let_process_exits_through
from conformance._targets.resolve import REFERENCE_SPEC, ResolvedTarget, resolve_target
from conformance.errors import ProbeInvalid, ProbeUsageError, TargetError
from conformance.verdict import Cause, Result

Isolation = Literal["none", "fork"]


@dataclass(frozen=True)
class ProbeOptions:
    run: RunOptions
    all_killers: bool = False
    isolate: Isolation = "none"
    #: Cells of a command target held at once (``-j``); in-process kinds run one.
    workers: int = 1


@dataclass(frozen=True)
class Control:
    """The unmutated target's run: the cells a mutant can kill (those that pass), the
    ones left out (pinned, xfail, n/a) and the ones that failed (the run stops)."""

    results: tuple[Result, ...]
    killable: tuple[Job, ...]
    #: Which probes each cell reaches (in-process targets), else ``None``.
    reached: Reach | None = None

    @property
    def failing(self) -> tuple[Result, ...]:
        return tuple(r for r in self.results if r.verdict in ("fail", "error"))


def in_process_spec(spec: str) -> str:
    """The ``module:attr`` of an in-process target, or ``ProbeUsageError``."""
    spec = REFERENCE_SPEC if spec == "reference" else spec
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ProbeUsageError(f"{spec!r}: a target is reference, module:attr or a command")
    return spec


def control(
    target: ResolvedTarget,
    jobs: Sequence[Job],
    options: RunOptions,
    workers: int = 1,
    reach: tuple[str, Catalogue] | None = None,
) -> Control:
    """The unmutated target on every cell.  With ``reach`` (an in-process target's
    ``module:attr`` and the catalogue) it runs with the probes' reach markers, so each
    mutant later runs only on the cells that reach its change
    (``conformance._probe.reach``)."""
    plan = None if reach is None or target.kind.parallel else _reach_plan(*reach)
    if reach is None or plan is None:
        results = run_jobs_parallel(target, jobs, options, workers)
        killable = tuple(j for j, r in zip(jobs, results, strict=True) if r.verdict == "pass")
        return Control(tuple(results), killable)
    spec = reach[0]
    scope, codes, decided = plan
    recorder = ReachRecorder()
    cells: dict[tuple[str, str], frozenset[str]] = {}
    marked_results = []
    with rebuilt_modules(scope, codes, {MARKER: recorder}):
        marked: ResolvedTarget | None
        try:
            marked = resolve_target(spec)
        except Exception:  # a package that cannot be imported twice: every cell runs
            marked = None
        for job in jobs if marked is not None else ():
            assert marked is not None
            recorder.reached = set()
            marked_results.append(run_job(marked, job, options)[0])
            cells[(job.case.id, job.column)] = frozenset(recorder.reached)
    if marked is None:
        return control(target, jobs, options, workers)
    killable = tuple(j for j, r in zip(jobs, marked_results, strict=True) if r.verdict == "pass")
    return Control(tuple(marked_results), killable, Reach(cells, decided))


def _reach_plan(
    spec: str, catalogue: Catalogue
) -> tuple[str, dict[str, CodeType], frozenset[str]] | None:
    """The scope, each probed module's source compiled with its probes' markers, and
    the probes whose reach the markers decide; ``None`` when no probe's can be."""
    scope = scope_of(in_process_spec(spec).partition(":")[0])
    marks: dict[str, dict[str, list[Mark]]] = {}
    sources: dict[str, tuple[Path, str]] = {}
    for probe in catalogue.probes:
        try:
            _, name, path, source = _mutant(spec, probe)
            mutated_source(probe, source)  # a probe that does not apply: no markers
        except ProbeInvalid:
            continue
        found = touched(probe, source)
        if found is not None:
            marks.setdefault(name, {})[probe.id] = found
            sources[name] = (path, source)
    if not marks:
        return None
    codes = {
        name: instrumented(sources[name][1], str(sources[name][0]), probes)
        for name, probes in marks.items()
    }
    decided = frozenset(p for probes in marks.values() for p in probes)
    return scope, codes, decided


def reach_of(subject: str | CommandRoot, catalogue: Catalogue) -> tuple[str, Catalogue] | None:
    """What ``control`` needs to learn each cell's reach: an in-process target's."""
    return (subject, catalogue) if isinstance(subject, str) else None


def _ordered(probe: Probe, jobs: Sequence[Job]) -> list[Job]:
    """The expected killers' cells first: the default run can stop sooner."""

    def expected(job: Job) -> bool:
        return any(cell_matches(p, job.case.id, job.column) for p in probe.expect_killed_by)

    return sorted(jobs, key=lambda job: not expected(job))


def _settled(probe: Probe, killers: Sequence[Killer], ran: set[int], jobs: Sequence[Job]) -> bool:
    """Whether a first-killer run may stop: killed, and every expectation either met or
    with no cell left to meet it."""
    if not killers:
        return False
    for pattern in probe.expect_killed_by:
        met = any(cell_matches(pattern, k.case, k.wire) for k in killers)
        left = any(
            cell_matches(pattern, j.case.id, j.column) for i, j in enumerate(jobs) if i not in ran
        )
        if not met and left:
            return False
    return True


def run_cells(
    probe: Probe,
    target: ResolvedTarget,
    jobs: Sequence[Job],
    options: ProbeOptions,
    unreached: int = 0,
) -> MutantResult:
    """Run the mutated target on the control's passing cells (``unreached`` more were
    left out: they never execute the changed code)."""
    ordered = _ordered(probe, jobs)
    killers: list[Killer] = []
    errors: list[Killer] = []
    ran: set[int] = set()
    # A kind that holds cells at once (a command) runs ``workers`` cells per step; the
    # steps are fixed, so where a first-killer run stops does not depend on timing.
    step = options.workers if target.kind.parallel else 1
    for start in range(0, len(ordered), step):
        chunk = ordered[start : start + step]
        if len(chunk) == 1:
            results = [run_job(target, chunk[0], options.run)[0]]
        else:
            results = run_jobs_parallel(target, chunk, options.run, len(chunk))
        for offset, result in enumerate(results):
            ran.add(start + offset)
            killer, error = observe(result)
            if killer is not None:
                killers.append(killer)
            if error is not None:
                errors.append(error)
        if not options.all_killers and _settled(probe, killers, ran, ordered):
            break
    return judge(probe, killers, errors, len(ran), len(ordered) + unreached, unreached)


def _mutated_module(probe: Probe, scope: str) -> str:
    if probe.module is not None:
        name = probe.module
    else:
        assert probe.path is not None
        root = Path(probe.root_dir)
        path = (root / probe.path).resolve()
        if not path.is_relative_to(root):
            raise ProbeInvalid(f"{probe.path} is outside the catalogue's root {root}")
        found = module_for_path(path, scope)
        if found is None:
            raise ProbeInvalid(f"{probe.path} is not a module the target imports (in {scope})")
        name = found
    if not in_scope(name, scope):
        raise ProbeInvalid(f"module {name!r} is outside the target's package {scope!r}")
    return name


def _mutant(spec: str, probe: Probe) -> tuple[str, str, Path, str]:
    """The scope, the module mutated, its file and its original source."""
    scope = scope_of(spec.partition(":")[0])
    name = _mutated_module(probe, scope)
    path = module_file(name)
    return scope, name, path, path.read_text(encoding="utf-8")


@contextmanager
def mutant_target(spec: str, probe: Probe, fresh: bool = False) -> Iterator[ResolvedTarget]:
    """The target with the probe's mutant, valid inside the block: the changed
    function's code swapped in place when that is enough, else (or with ``fresh``) the
    mutated module and its dependants re-imported."""
    scope, name, path, source = _mutant(spec, probe)
    mutated = mutated_source(probe, source)
    swap = None if fresh else swap_for(probe, source, str(path), name)
    if swap is not None:
        with swapped(swap):
            yield resolve_target(spec)
        return
    code = compiled(mutated, str(path))
    with mutated_modules(scope, name, code):
        try:
            importlib.import_module(name)
        except Exception as error:  # the mutant's own import fails: its fault, reported
            raise ProbeInvalid(f"the mutant does not import: {error!r}") from None
        try:
            target = resolve_target(spec)
        except TargetError as error:
            raise ProbeInvalid(f"the mutant does not import: {error}") from None
        yield target


def reaching(probe: Probe, jobs: Sequence[Job], reached: Reach | None) -> list[Job]:
    """The cells that reach the probe's change on the unmutated target (all of them
    when that is unknown), in the order given."""
    if reached is None:
        return list(jobs)
    return [j for j in jobs if reached.reaches(probe.id, j.case.id, j.column)]


def probe_in_process(
    spec: str,
    probe: Probe,
    jobs: Sequence[Job],
    options: ProbeOptions,
    reached: Reach | None = None,
    fresh: bool = False,
) -> MutantResult:
    """The mutant in this process (``fresh``: its modules re-imported, never swapped)."""
    cells = reaching(probe, jobs, reached)
    try:
        with mutant_target(spec, probe, fresh) as target:
            return run_cells(probe, target, cells, options, len(jobs) - len(cells))
    except ProbeInvalid as error:
        return invalid(probe, str(error))


def probe_forked(
    spec: str,
    probe: Probe,
    jobs: Sequence[Job],
    options: ProbeOptions,
    reached: Reach | None = None,
) -> MutantResult:
    """``probe_in_process`` in a forked child: nothing the mutant does to global state
    reaches this process.  A child that dies without a verdict is ``crashed``."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, write the verdict, exit without cleanup handlers
        status = 0
        try:
            os.close(read_end)
            let_process_exits_through()  # a mutant's os._exit is the crash reported here
            result = probe_in_process(spec, probe, jobs, options, reached, fresh=True)
            with os.fdopen(write_end, "w", encoding="utf-8") as out:
                out.write(result.model_dump_json())
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    try:
        with os.fdopen(read_end, encoding="utf-8") as answer:
            text = answer.read()
        _, status = os.waitpid(pid, 0)
    except BaseException:  # an interruption: the child ends with us
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    if text:
        return MutantResult.model_validate(json.loads(text))
    code = os.waitstatus_to_exitcode(status)
    died = f"signal {-code}" if code < 0 else f"exit {code}"
    death = Killer(case="*", wire="*", error=f"the child died ({died})", cause=Cause.CRASH)
    return judge(probe, [], [death], 0, 0)


@dataclass(frozen=True)
class CommandRoot:
    """A command target to probe: the resolved target, the root copied for each mutant
    and the build run in the copy."""

    target: ResolvedTarget
    root: Path
    build: str | None = None
    build_timeout: float = 600.0


def probe_command(
    command: CommandRoot, probe: Probe, jobs: Sequence[Job], options: ProbeOptions
) -> MutantResult:
    try:
        with mutant_command(
            command.target, command.root, probe, command.build, command.build_timeout
        ) as target:
            return run_cells(probe, target, jobs, options)
    except ProbeInvalid as error:
        return invalid(probe, str(error))


def run_probes(
    spec: str | CommandRoot,
    catalogue: Catalogue,
    jobs: Sequence[Job],
    options: ProbeOptions,
    on_mutant: Callable[[MutantResult], None] | None = None,
    reached: Reach | None = None,
) -> list[MutantResult]:
    """Every probe of ``catalogue`` on the cells ``jobs`` (the control's passing ones):
    ``spec`` is an in-process target's ``module:attr``, or a command target's root;
    ``reached``, the control's record of the lines each cell executed."""
    results = []
    for probe in catalogue.probes:
        if isinstance(spec, CommandRoot):
            result = probe_command(spec, probe, jobs, options)
        elif options.isolate == "fork":
            result = probe_forked(spec, probe, jobs, options, reached)
        else:
            result = probe_in_process(spec, probe, jobs, options, reached)
        results.append(result)
        if on_mutant is not None:
            on_mutant(result)
    return results
