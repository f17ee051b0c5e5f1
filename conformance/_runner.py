"""Run cases on a target: plan the case × wire matrix, hold each conversation against a
fresh scripted provider, judge the transcript, and collect one result per cell.

The runner knows a target only as its kind's ``hold`` (``conformance._targets.kind``): a
crashing or hanging target is an ``error`` result with the reason; the run goes on.
"""

from __future__ import annotations

import fnmatch
import hashlib
import time
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from conformance._cases.model_name import session_model
from conformance._cases.schema import Case
from conformance._checks.registry import MORE_VIOLATIONS, run_checks
from conformance._decide import decide
from conformance._exchanges import save_exchanges
from conformance._provider.scripted import ScriptedProvider
from conformance._targets.api import CaseBrief, ToolDef
from conformance._targets.kind import Outcome, Stage
from conformance._targets.resolve import ResolvedTarget
from conformance._transcript import Transcript
from conformance.verdict import (
    DEFAULT_EVIDENCE_THRESHOLD,
    DEFAULT_TIMEOUT,
    Cause,
    EvidenceThreshold,
    NotApplicable,
    Result,
    Severity,
    Violation,
)
from conformance.vocabulary import ToolCall
from conformance.wires._registry import get_wire, split_column
from conformance.wires.roles import Wire

if TYPE_CHECKING:
    from conformance._cases.loader import CaseOutline

    # Only a parameter's type: the store (and syrupy, pytest under it) is imported by
    # the caller that builds one, so a run without --snapshots never pays for them.
    from conformance._snapshots import SnapshotStore


@dataclass(frozen=True)
class Job:
    """One cell of the matrix: a case on a column (``wire`` or ``wire:dialect``);
    ``skip`` is the reason it is ``n/a``, ``cause`` that reason as data, and ``missing``
    the capabilities it needs that the target lacks.

    ``held`` is the case, or its outline (``CaseOutline``): a plan of outlines holds no
    case, and a cell reads its case back when it runs (``loaded``), so a run's memory
    follows the cells in flight, not the library."""

    held: Case | CaseOutline
    column: str
    skip: str | None = None
    cause: NotApplicable | None = None
    missing: tuple[str, ...] = ()

    @property
    def case(self) -> Case:
        """The case; read back anew at each use when the job holds an outline (a cell
        takes ``loaded`` once)."""
        held = self.held
        return held if isinstance(held, Case) else held.case()

    @property
    def case_id(self) -> str:
        return self.held.id

    def loaded(self) -> Job:
        """This job holding its case itself, for the time its cell runs."""
        return self if isinstance(self.held, Case) else replace(self, held=self.case)

    @property
    def wire(self) -> str:
        return split_column(self.column)[0]

    @property
    def dialect(self) -> str | None:
        return split_column(self.column)[1]


@dataclass(frozen=True)
class RunOptions:
    timeout: float = DEFAULT_TIMEOUT
    strict: bool = False
    snapshots: SnapshotStore | None = None
    #: The weakest evidence that may fail a cell (``conformance.verdict.meets``).
    evidence: EvidenceThreshold = DEFAULT_EVIDENCE_THRESHOLD
    #: Where every cell's requests and responses are written (``conformance._exchanges``).
    save_exchanges: Path | None = None
    #: Case id -> its file relative to its library root (``LoadedCase.shown``), for reports.
    files: Mapping[str, str] = field(default_factory=dict)
    #: What answers the target: the scripted provider, or a replay of a recording.
    provider: Callable[[Case, Wire, str | None], ScriptedProvider] = ScriptedProvider


def plan(
    cases: Iterable[Case | CaseOutline],
    target: ResolvedTarget,
    wires: Collection[str] = (),
    patterns: Collection[str] = (),
) -> list[Job]:
    """Every case × wire to run, sorted; cells the target cannot run carry the reason."""
    jobs: list[Job] = []
    for case in sorted(cases, key=lambda c: c.id):
        if patterns and not any(fnmatch.fnmatchcase(case.id, p) for p in patterns):
            continue
        for column in sorted(case.wires):
            if wires and column not in wires and split_column(column)[0] not in wires:
                continue
            missing = tuple(sorted(case.needs - target.capabilities))
            if not target.speaks(column):
                jobs.append(
                    Job(case, column, f"the target does not declare {column}", "undeclared-wire")
                )
            elif missing:
                reason = f"needs capability {', '.join(missing)}, {target.capability_gap}"
                jobs.append(Job(case, column, reason, "missing-capability", missing))
            else:
                jobs.append(Job(case, column))
    return jobs


def shard(
    jobs: Sequence[Job],
    index: int,
    count: int,
    seconds: Mapping[tuple[str, str], float] | None = None,
) -> list[Job]:
    """The cells of shard ``index`` (1-based) of ``count``: a partition of ``jobs`` that
    depends only on the plan (and ``seconds``), so every machine of a CI matrix computes
    the same one.  With the per-cell ``seconds`` of an earlier report, the cells are
    dealt longest first to the shard with the least time so far (a cell the report does
    not know costs the mean of those it does, an ``n/a`` cell nothing); without, they are
    dealt round-robin in plan order.  Each shard keeps the plan's order."""
    if not 1 <= index <= count:
        raise ValueError(f"shard {index}/{count}: give K/N with 1 <= K <= N")
    if not seconds:
        return [job for n, job in enumerate(jobs) if n % count == index - 1]
    durations = seconds
    known = [durations[key] for job in jobs if (key := (job.case_id, job.column)) in durations]
    typical = sum(known) / len(known) if known else 1.0

    def cost(job: Job) -> float:
        return 0.0 if job.skip else durations.get((job.case_id, job.column), typical)

    totals = [0.0] * count
    mine: set[int] = set()
    for n in sorted(range(len(jobs)), key=lambda n: (-cost(jobs[n]), n)):
        lightest = min(range(count), key=lambda k: (totals[k], k))
        totals[lightest] += cost(jobs[n])
        if lightest == index - 1:
            mine.add(n)
    return [job for n, job in enumerate(jobs) if n in mine]


def plan_digest(jobs: Sequence[Job], settings: Iterable[str] = ()) -> str:
    """A digest of a planned selection (every cell, in order) and the run's settings
    that change results: shards of one run share it, so reports of another selection,
    library or setting are never merged as one."""
    digest = hashlib.sha256()
    for line in (*settings, "", *(f"{job.case_id}@{job.column}" for job in jobs)):
        digest.update(line.encode() + b"\n")
    return digest.hexdigest()


def nothing_runs(jobs: Sequence[Job], target: ResolvedTarget) -> str | None:
    """Why no cell of a planned selection runs (``None`` when one does): every one is
    ``n/a``, counted by cause, with the capabilities missing and how to declare them."""
    if not jobs or any(job.skip is None for job in jobs):
        return None
    undeclared = sorted({job.column for job in jobs if job.cause == "undeclared-wire"})
    missing = sorted({c for job in jobs for c in job.missing})
    parts = []
    if undeclared:
        parts.append(
            f"{sum(job.cause == 'undeclared-wire' for job in jobs)} on wires the target "
            f"{target.name} does not declare ({', '.join(undeclared)})"
        )
    if missing:
        parts.append(
            f"{sum(job.cause == 'missing-capability' for job in jobs)} need capability "
            f"{', '.join(missing)}, {target.capability_gap}"
        )
    return f"every one of the {len(jobs)} selected cells is n/a: " + "; ".join(parts)


def session_for(case: Case, wire: str, dialect: str | None) -> CaseBrief:
    """What the target is told about the conversation (the contract document, in-process)."""
    given = case.given
    return CaseBrief(
        case=case.id,
        wire=wire,
        dialect=dialect,
        model=session_model(case, get_wire(wire), dialect),
        system=given.system,
        prompts=tuple(turn.user for turn in given.turns),
        tools=tuple(ToolDef(t.name, t.description, t.parameters, t.result) for t in given.tools),
        thinking=given.options.thinking,
        max_tokens=given.options.max_tokens,
        store=given.options.store,
        include=given.options.include,
        tool_choice=given.options.tool_choice,
        prefill=given.options.prefill,
        betas=given.options.betas,
        history=given.history,
        results={i: (r.content, r.is_error) for i, r in given.results.items()},
        result_arguments={
            b.id: b.arguments
            for r in given.responses
            for b in r.blocks
            if isinstance(b, ToolCall) and b.id in given.results
        },
    )


def _stage(job: Job, provider: ScriptedProvider, wire: Wire, timeout: float) -> Stage:
    session = session_for(job.case, job.wire, job.dialect)
    return Stage(
        session=session,
        provider=provider,
        endpoint=wire.endpoint(session.model, True),
        wants_output=job.case.expects_output,
        timeout=timeout,
    )


def _record(transcript: Transcript, outcome: Outcome, provider: ScriptedProvider) -> None:
    """Copy what the kind saw, and what the provider recorded, into the transcript."""
    transcript.output, transcript.output_error = outcome.output, outcome.output_error
    transcript.stopped, transcript.error = outcome.stopped, outcome.error_report
    transcript.error_cause = outcome.error_cause
    transcript.refused, transcript.halted = outcome.refused, outcome.halted
    transcript.stdout_tail, transcript.stderr_tail = outcome.stdout_tail, outcome.stderr_tail
    with provider.lock:
        transcript.exchanges = list(provider.exchanges)


def _not_applicable(job: Job, reason: str, cause: NotApplicable) -> Result:
    return Result(
        case=job.case.id,
        wire=job.column,
        dialect=job.dialect,
        verdict="n/a",
        features=job.case.features,
        reason=reason,
        cause=Cause.NOT_APPLICABLE,
        not_applicable=cause,
        missing=job.missing,
    )


def run_job(
    target: ResolvedTarget, job: Job, options: RunOptions
) -> tuple[Result, Transcript | None]:
    """Run one cell and judge it; the result names the case's title and file, and the
    wall time it took (a timing field: see ``Result.seconds``)."""
    started = time.perf_counter()
    job = job.loaded()
    result, transcript = _judge_job(target, job, options)
    where: dict[str, object] = {"title": job.case.title, "file": options.files.get(job.case.id)}
    if len(result.violations) > MAX_KEPT_VIOLATIONS:
        where["violations"] = capped(result.violations, "must")
    if len(result.warnings) > MAX_KEPT_VIOLATIONS:
        where["warnings"] = capped(result.warnings, "should")
    if not job.skip:
        where["seconds"] = round(time.perf_counter() - started, 3)
    return result.model_copy(update=where), transcript


#: The violations (and, apart, the warnings) a cell's result keeps: a target that loops
#: (10 000 requests, each breaking a rule) would otherwise make a report of megabytes.
#: At most ``MAX_PER_CHECK`` of one check are kept, so a flood of one check does not hide
#: the others (the expectations).  The verdict is judged on all of them; the last kept
#: entry counts the others.
MAX_KEPT_VIOLATIONS = 100
MAX_PER_CHECK = 20


def capped(found: tuple[Violation, ...], severity: Severity) -> tuple[Violation, ...]:
    """``found`` when it is short; else at most ``MAX_PER_CHECK`` of each check and
    ``MAX_KEPT_VIOLATIONS`` in all, in their order, the last one counting the rest."""
    if len(found) <= MAX_KEPT_VIOLATIONS:
        return found
    kept: list[Violation] = []
    left: Counter[str] = Counter()
    per_check: Counter[str] = Counter()
    for violation in found:
        per_check[violation.check] += 1
        if per_check[violation.check] <= MAX_PER_CHECK and len(kept) < MAX_KEPT_VIOLATIONS - 1:
            kept.append(violation)
        else:
            left[violation.check] += 1
    counted = ", ".join(f"{n} {check}" for check, n in sorted(left.items()))
    more = MORE_VIOLATIONS.violation(
        f"{sum(left.values())} more not kept in the report ({counted}); a cell "
        f"keeps {MAX_PER_CHECK} of each check and {MAX_KEPT_VIOLATIONS} in all",
        severity=severity,
    )
    return (*kept, more)


def _judge_job(
    target: ResolvedTarget, job: Job, options: RunOptions
) -> tuple[Result, Transcript | None]:
    if job.skip:
        return _not_applicable(job, job.skip, job.cause or "undeclared-wire"), None
    wire = get_wire(job.wire)
    names = target.tool_names
    played = job if names is None else replace(job, held=names.apply(job.case))
    provider = options.provider(played.case, wire, job.dialect)
    transcript = Transcript(job.case, job.column, job.dialect)
    outcome = target.kind.hold(_stage(played, provider, wire, target.timeout or options.timeout))
    if outcome.declined is not None:
        return _not_applicable(job, outcome.declined, "declined"), None
    _record(transcript, outcome, provider)
    if names is not None:  # the checks and the reports speak the case's tool names
        transcript.exchanges = names.restore(transcript.exchanges)
    violations = run_checks(transcript, wire)
    pin = target.pin_for(job.case.id, job.column)
    result = decide(
        job.case, job.column, pin, transcript, violations, options.strict, options.evidence
    )
    if options.snapshots is not None:
        state, diff = options.snapshots.compare(job.column, job.case.id, transcript)
        result = result.model_copy(update={"snapshot": state, "snapshot_diff": diff})
    if options.save_exchanges is not None:
        save_exchanges(options.save_exchanges, target.name, transcript, result)
    return result, transcript


def run_jobs(
    target: ResolvedTarget,
    jobs: Sequence[Job],
    options: RunOptions,
    on_result: Callable[[Result], None] | None = None,
    *,
    keep: bool = True,
) -> list[Result]:
    """Run every job in order; ``on_result`` sees each result as it is decided.
    ``keep=False``: the results go to ``on_result`` only, and none is returned (a run
    that streams them to its reports holds none of the cells it finished)."""
    results: list[Result] = []
    for job in jobs:
        result = run_job(target, job, options)[0]  # its transcript (and case) let go now
        if keep:
            results.append(result)
        if on_result is not None:
            on_result(result)
    return results


#: Cells submitted ahead of the one whose result is awaited, per worker: enough that a
#: worker never waits for the next cell, few enough that memory follows the cells in
#: flight, not the library.
CELLS_AHEAD_PER_WORKER = 4


def run_jobs_parallel(
    target: ResolvedTarget,
    jobs: Sequence[Job],
    options: RunOptions,
    workers: int,
    on_result: Callable[[Result], None] | None = None,
    *,
    keep: bool = True,
) -> list[Result]:
    """``run_jobs`` with up to ``workers`` cells at once for a kind that allows it (a
    command: each cell its own loopback port, process group and scratch folder); results
    come in job order, so reports do not depend on timing.  Other kinds run one cell at
    a time.  ``keep``: as for ``run_jobs``."""
    if workers <= 1 or not target.kind.parallel:
        return run_jobs(target, jobs, options, on_result, keep=keep)
    results: list[Result] = []
    waiting = iter(jobs)
    # Cells are submitted a few per worker ahead, not all at once: a finished future
    # holds its cell's transcript (every exchange) until it is read, so a whole library
    # submitted up front held every transcript until the run ended.
    ahead: deque[Future[tuple[Result, Transcript | None]]] = deque()
    try:
        with ThreadPoolExecutor(workers, thread_name_prefix="conformance-cell") as pool:

            def submit_next() -> None:
                job = next(waiting, None)
                if job is not None:
                    ahead.append(pool.submit(run_job, target, job, options))

            for _ in range(workers * CELLS_AHEAD_PER_WORKER):
                submit_next()
            try:
                while ahead:
                    result = ahead.popleft().result()[0]
                    submit_next()
                    if keep:
                        results.append(result)
                    if on_result is not None:
                        on_result(result)
            except BaseException:  # an interruption: end what runs, start nothing more
                for future in ahead:
                    future.cancel()
                target.kind.abandon()
                raise
    finally:  # every cell has ended: later runs start commands again
        target.kind.reopen()
    return results
