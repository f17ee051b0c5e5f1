"""Sharded runs: ``run --shard K/N`` partitions the plan (balanced by an earlier report's
durations when given), and ``report merge`` gives back the unsharded report, byte for
byte apart from timings, or refuses reports that are not every shard of one run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance._cases.library import bundled_snapshots_dir, load_library
from conformance._cases.load_problem import LoadProblem
from conformance._cli import main
from conformance._reference.adapter import ReferenceAdapter
from conformance._report.merge import merge
from conformance._report.report_schema import Report, Shard, summarize, to_json, untimed
from conformance._runner import Job, plan, shard
from conformance._settings import ShardSpec
from conformance._targets.resolve import target_from_object
from conformance.errors import MergeError
from conformance.verdict import Result


def _jobs() -> list[Job]:
    cases = [loaded.case for loaded in load_library().cases]
    return plan(cases, target_from_object(ReferenceAdapter()))


@pytest.mark.slow  # five runs of the whole plan
def test_four_shards_merged_are_the_unsharded_report(tmp_path: Path) -> None:
    """The whole plan with snapshots (one of them stale): four shards balanced by the
    unsharded run's durations, merged, give its JSON report byte for byte, timings
    aside, stale snapshots included."""
    snapshots = tmp_path / "snapshots"
    shutil.copytree(bundled_snapshots_dir(), snapshots)
    stale = snapshots / "reference" / "anthropic-messages" / "a-case-long-gone.json"
    stale.write_text("{}", encoding="utf-8")
    common = ["run", "-q", "--snapshots", str(snapshots), "--progress", "off"]
    assert main([*common, "--json", str(tmp_path / "whole.json")]) == 0
    whole = (tmp_path / "whole.json").read_text(encoding="utf-8")
    assert '"unused_snapshots"' in whole  # the stale snapshot is part of what is compared
    shards = [tmp_path / f"shard-{k}.json" for k in range(1, 5)]
    for k, path in enumerate(shards, 1):
        durations = ["--durations", str(tmp_path / "whole.json")]
        assert main([*common, "--shard", f"{k}/4", *durations, "--json", str(path)]) == 0
    sizes = [len(json.loads(path.read_text())["results"]) for path in shards]
    assert all(size > 0 for size in sizes)
    merged = tmp_path / "merged.json"
    assert main(["report", "merge", *map(str, reversed(shards)), "-o", str(merged)]) == 0
    assert untimed(merged.read_text(encoding="utf-8")) == untimed(whole)
    assert stale.exists()  # found stale by every shard, deleted by none


def test_a_shard_partition_is_disjoint_complete_and_in_plan_order() -> None:
    jobs = _jobs()
    keys = [(job.case.id, job.column) for job in jobs]
    seconds = {key: float(n % 7) for n, key in enumerate(keys) if n % 5}
    for durations in (None, seconds):
        parts = [shard(jobs, k, 3, durations) for k in (1, 2, 3)]
        seen = [(job.case.id, job.column) for part in parts for job in part]
        assert sorted(seen) == sorted(keys)  # every cell once
        for part in parts:
            assert part == sorted(part, key=jobs.index)  # the plan's order
        assert parts == [shard(jobs, k, 3, durations) for k in (1, 2, 3)]  # deterministic


def test_durations_balance_the_shards() -> None:
    """One cell as long as all the others together gets a shard to itself; a cell the
    report does not know costs the mean of those it does."""
    jobs = [job for job in _jobs() if job.skip is None][:9]
    keys = [(job.case.id, job.column) for job in jobs]
    seconds = {key: 1.0 for key in keys[1:8]} | {keys[0]: 8.0}  # keys[8] unknown
    alone, rest = shard(jobs, 1, 2, seconds), shard(jobs, 2, 2, seconds)
    assert [(j.case.id, j.column) for j in alone] == [keys[0]]
    assert len(rest) == 8
    # Without durations the cells are dealt round-robin: the long one is not alone.
    assert len(shard(jobs, 1, 2)) == 5


@pytest.mark.parametrize("text", ["3", "0/4", "5/4", "a/b", "1/0", "-1/4", "1/4/2"])
def test_a_bad_shard_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="--shard"):
        ShardSpec.parse(text)
    with pytest.raises(ValueError, match="K/N"):
        shard([], 5, 4)


def _result(case: str, verdict: str = "pass") -> Result:
    return Result(case=case, wire="anthropic-messages", dialect=None, verdict=verdict)


def _shard_report(index: int, cases: list[str], **update: object) -> Report:
    results = tuple(_result(case) for case in cases)
    report = Report(
        target="t",
        target_kind="adapter",
        results=results,
        summary=summarize(results),
        load_errors=(LoadProblem(file="cases/x.yaml", line=3, field="id", message="bad"),),
        shard=Shard(index=index, count=2, plan="p", cells=3),
    )
    return report.model_copy(update=update)


def test_merge_keeps_load_errors_once_and_counts_the_summary_again() -> None:
    merged = merge([("b", _shard_report(2, ["c"])), ("a", _shard_report(1, ["b", "a"]))])
    assert [r.case for r in merged.results] == ["a", "b", "c"]
    assert merged.summary["pass"] == 3
    assert len(merged.load_errors) == 1
    assert merged.shard is None
    assert '"shard"' not in to_json(merged)


@pytest.mark.parametrize(
    ("reports", "message"),
    [
        ([_shard_report(1, ["a", "b"])], "shard 2/2 missing"),
        ([_shard_report(1, ["a"]), _shard_report(1, ["b", "c"])], "shard 1/2 is also a"),
        ([_shard_report(1, ["a", "b"]), _shard_report(2, ["b"])], "cell b on anthropic-messages"),
        ([_shard_report(1, ["a"]), _shard_report(2, ["b"])], "hold 2 cells of the plan's 3"),
        (
            [_shard_report(1, ["a"]), _shard_report(2, ["b", "c"], suite_version="9")],
            "suite_version differs",
        ),
        (
            [_shard_report(1, ["a"]), _shard_report(2, ["b", "c"], target="other")],
            "target differs",
        ),
        ([_shard_report(1, ["a"]), _shard_report(2, ["b", "c"], strict=True)], "strict differs"),
        (
            [_shard_report(1, ["a"]), _shard_report(2, ["b", "c"], load_errors=())],
            "load_errors differs",
        ),
        (
            [
                _shard_report(1, ["a"]),
                _shard_report(2, ["b", "c"], shard=Shard(index=2, count=2, plan="q", cells=3)),
            ],
            "planned different cells",
        ),
        (
            [
                _shard_report(1, ["a"]),
                _shard_report(2, ["b", "c"], shard=Shard(index=2, count=3, plan="p", cells=3)),
            ],
            "3 shards and 2",
        ),
        ([_shard_report(1, ["a"]), _shard_report(2, ["b", "c"], shard=None)], "not the report"),
        (
            [_shard_report(1, ["a"]), _shard_report(2, ["b", "c"], incomplete="SIGTERM")],
            "did not finish",
        ),
    ],
)
def test_merge_refuses_what_is_not_every_shard_of_one_run(
    reports: list[Report], message: str
) -> None:
    named = [("ab"[n], report) for n, report in enumerate(reports)]
    with pytest.raises(MergeError, match=message):
        merge(named)


def test_report_merge_exit_statuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """0 merged and green, 1 merged with a failing cell, 2 refused (nothing written)."""
    first, second = tmp_path / "1.json", tmp_path / "2.json"
    first.write_text(to_json(_shard_report(1, ["a"], load_errors=())), encoding="utf-8")
    second.write_text(to_json(_shard_report(2, ["b", "c"], load_errors=())), encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["report", "merge", str(first), str(second), "-o", str(out)]) == 0
    assert "merged 2 shards" in capsys.readouterr().out
    failing = _shard_report(2, ["b", "c"], load_errors=())
    failing = failing.model_copy(update={"results": (_result("b"), _result("c", "fail"))})
    second.write_text(to_json(failing), encoding="utf-8")
    assert main(["report", "merge", str(first), str(second), "-o", str(out)]) == 1
    out.unlink()
    assert main(["report", "merge", str(first), "-o", str(out)]) == 2
    assert "shard 2/2 missing" in capsys.readouterr().out
    assert not out.exists()
    assert main(["run", "-q", "--durations", str(first)]) == 2
    assert "--durations goes with --shard" in capsys.readouterr().out
