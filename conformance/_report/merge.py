"""Sharded runs: pick a shard's cells (``run --shard K/N``), and merge the shards' JSON
reports into the one report the whole run writes (``report merge``).

The partition itself is the runner's (``_runner.shard``): it depends on the plan only, so
each job of a CI matrix computes its own part without talking to the others, and no
home-made scheduler is involved.  A merged report is byte-identical to the unsharded
run's, timing fields aside: the results are sorted the same way and the summary is
counted again; every shard carries the whole run's load errors and stale snapshots (a
shard loads the whole library and sweeps against the whole plan), which must agree.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from conformance._report.report_schema import Report, Shard, summarize
from conformance._runner import Job, plan_digest, shard
from conformance._settings import ShardSpec
from conformance.errors import MergeError, ReportFileError


def durations(path: Path) -> dict[tuple[str, str], float]:
    """The seconds each cell took in the JSON report at ``path`` (``--durations``)."""
    from conformance._report.reading import read_report

    try:
        report = read_report(path)
    except ReportFileError as error:
        raise MergeError(f"--durations {error}") from None
    return {r.key: r.seconds for r in report.results if r.seconds is not None}


def select_shard(
    jobs: Sequence[Job],
    spec: ShardSpec,
    settings: Iterable[str],
    seconds: dict[tuple[str, str], float] | None = None,
) -> tuple[list[Job], Shard]:
    """The cells of shard ``spec`` of the planned ``jobs``, and what its report says of
    it (the plan's digest over ``settings`` too, and the plan's size)."""
    part = shard(jobs, spec.index, spec.count, seconds)
    described = Shard(
        index=spec.index, count=spec.count, plan=plan_digest(jobs, settings), cells=len(jobs)
    )
    return part, described


#: Report fields every shard of one run holds alike (the results and the summary are
#: the shard's own).
_SHARED = (
    "report_version",
    "suite_version",
    "target",
    "target_kind",
    "bundled_target",
    "strict",
    "evidence",
    "load_errors",
    "unused_snapshots",
)


def merge(reports: Sequence[tuple[str, Report]]) -> Report:
    """One report of the whole run from its shards' reports (named for the errors);
    ``MergeError`` when they are not every shard of one run, each once."""
    if not reports:
        raise MergeError("report merge: give the JSON reports of every shard")
    first_name, first = reports[0]
    shards: dict[int, str] = {}
    for name, report in reports:
        if report.shard is None:
            raise MergeError(f"{name}: not the report of a shard (`run --shard K/N --json`)")
        if report.incomplete is not None:
            raise MergeError(f"{name}: the shard did not finish ({report.incomplete})")
        _same_run(first_name, first, name, report)
        if report.shard.index in shards:
            raise MergeError(
                f"{name}: shard {report.shard.index}/{report.shard.count} is also "
                f"{shards[report.shard.index]}"
            )
        shards[report.shard.index] = name
    assert first.shard is not None
    missing = [
        f"{k}/{first.shard.count}" for k in range(1, first.shard.count + 1) if k not in shards
    ]
    if missing:
        raise MergeError(f"report merge: shard {', '.join(missing)} missing")
    owner: dict[tuple[str, str], str] = {}
    for name, report in reports:
        for result in report.results:
            if result.key in owner:
                case, wire = result.key
                raise MergeError(f"{name}: cell {case} on {wire} is also in {owner[result.key]}")
            owner[result.key] = name
    if len(owner) != first.shard.cells:
        raise MergeError(
            f"report merge: the shards hold {len(owner)} cells of the plan's {first.shard.cells}"
        )
    results = tuple(sorted((r for _, rep in reports for r in rep.results), key=lambda r: r.key))
    return first.model_copy(
        update={"results": results, "summary": summarize(results), "shard": None}
    )


def _same_run(first_name: str, first: Report, name: str, report: Report) -> None:
    for field in _SHARED:
        if getattr(report, field) != getattr(first, field):
            raise MergeError(
                f"{name} and {first_name} are not shards of one run: {field} differs "
                f"({_shown(getattr(report, field))} and {_shown(getattr(first, field))})"
            )
    if report.shard is None or first.shard is None:
        return  # refused by the caller
    if report.shard.count != first.shard.count:
        raise MergeError(
            f"{name} and {first_name} are not shards of one run: "
            f"{report.shard.count} shards and {first.shard.count}"
        )
    if (report.shard.plan, report.shard.cells) != (first.shard.plan, first.shard.cells):
        raise MergeError(
            f"{name} and {first_name} are not shards of one run: they planned different "
            "cells or settings (--case, --wire, --cases, the library, --timeout, --snapshots)"
        )


def _shown(value: object) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


#: ``report merge`` exits 0 when the merged run passed, 1 when it holds a fail, an
#: error or a load error (as ``run`` would have) or cannot be written, and 2 when the
#: reports cannot be read or are not every shard of one run.
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def merge_files(paths: Sequence[Path], out: Path) -> tuple[int, str]:
    """``report merge A.json B.json … -o OUT.json``: the exit status and the line to
    print (the merged summary, or why nothing was written)."""
    from conformance._paths import write_report
    from conformance._report.reading import read_report
    from conformance._report.report_schema import summary_line, to_json

    try:
        merged = merge([(str(path), read_report(path)) for path in paths])
    except (ReportFileError, MergeError) as error:
        return EXIT_USAGE, f"wire-conformance: {error}"
    failure = write_report(out, to_json(merged))
    if failure is not None:
        return EXIT_FAILED, f"wire-conformance: {failure}"
    line = f"merged {len(paths)} shards into {out}: {summary_line(merged)}"
    return (EXIT_OK if merged.ok else EXIT_FAILED), line
