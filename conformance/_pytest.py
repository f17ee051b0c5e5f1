"""The pytest side of ``ConformanceSuite``: parametrize cells, judge them, snapshot them.

Kept out of ``pytest_plugin`` so that installing the suite costs other test sessions
nothing until a ``ConformanceSuite`` subclass is collected.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.cases.library import load_library
from conformance.cases.load_error import LoadError
from conformance.cases.loader import CaseSet
from conformance.report.terminal import details
from conformance.runner import Job, RunOptions, plan, run_job
from conformance.snapshots import emitted_bodies, snapshot_path
from conformance.suite import ConformanceSuite
from conformance.targets.resolve import ResolvedTarget, resolve_target, target_from_object

_LIBRARY = pytest.StashKey[dict[tuple[Path, ...], CaseSet]]()


class ConformanceWarning(UserWarning):
    """A `should` violation: accepted by the provider, but costly (cache, continuity)."""


@dataclass(frozen=True)
class Cell:
    """One parametrized case × wire for one target."""

    job: Job
    target: ResolvedTarget
    options: RunOptions


@dataclass(frozen=True)
class BrokenCaseFile:
    """A case file that did not load: its test fails with the loader's message."""

    error: LoadError


def _target(cls: type[ConformanceSuite], config: pytest.Config) -> ResolvedTarget:
    spec: Any = (
        cls.target
        if cls.target is not None
        else (config.getoption("--conformance-target") or "reference")
    )
    if isinstance(spec, str):
        return resolve_target(spec, cls.target_name)
    return target_from_object(spec, name=cls.target_name)


def _library(config: pytest.Config, extra: tuple[Path, ...]) -> CaseSet:
    loaded = config.stash.setdefault(_LIBRARY, {})
    if extra not in loaded:
        loaded[extra] = load_library(list(extra))
    return loaded[extra]


def parametrize(metafunc: pytest.Metafunc) -> None:
    cls = metafunc.cls
    if cls is None or not issubclass(cls, ConformanceSuite):
        raise pytest.UsageError(
            "the wire_conformance_case fixture belongs to ConformanceSuite tests"
        )
    config = metafunc.config
    root = Path(str(config.rootpath))
    extra = tuple(
        [
            *(root / Path(d) for d in cls.case_dirs),
            *map(Path, config.getoption("--conformance-cases")),
        ]
    )
    target = _target(cls, config)
    library = _library(config, extra)
    timeout = config.getoption("--conformance-timeout") or cls.timeout
    options = RunOptions(
        timeout=timeout, strict=cls.strict or config.getoption("--conformance-strict")
    )
    wires = set(cls.wires) | set(config.getoption("--conformance-wire"))
    patterns = list(cls.case_patterns) + list(config.getoption("--conformance-case"))
    values: list[Any] = [BrokenCaseFile(error) for error in library.errors]
    ids = [f"case-file-error-{i}" for i in range(len(values))]
    for job in plan((c.case for c in library.cases), target, wires, patterns):
        values.append(Cell(job, target, options))
        ids.append(f"{job.case.id}@{job.column}")
    metafunc.parametrize("wire_conformance_case", values, ids=ids)


def _snapshot_extension(root: Path, target: str, column: str, case_id: str) -> type[Any]:
    from syrupy.extensions.json import JSONSnapshotExtension

    directory = str(snapshot_path(root, target, column, case_id).parent)

    class RequestBodies(JSONSnapshotExtension):
        @classmethod
        def dirname(cls, *, test_location: Any) -> str:
            return directory

        @classmethod
        def get_snapshot_name(cls, *, test_location: Any, index: Any = 0) -> str:
            return case_id

    return RequestBodies


def check_cell(
    suite: ConformanceSuite, cell: Cell | BrokenCaseFile, request: pytest.FixtureRequest
) -> None:
    if isinstance(cell, BrokenCaseFile):
        pytest.fail(f"case file error: {cell.error}", pytrace=False)
    result, transcript = run_job(cell.target, cell.job, cell.options)
    if result.verdict == "n/a":
        pytest.skip(f"n/a: {result.reason}")
    if result.verdict == "xfail":
        pytest.xfail(result.reason or "pinned by the target")
    if result.verdict in ("fail", "error"):
        pytest.fail("\n".join(details(result)), pytrace=False)
    for warning in result.warnings:
        warnings.warn(
            ConformanceWarning(f"{result.case}@{result.wire}: {warning.check}: {warning.message}"),
            stacklevel=1,
        )
    if suite.snapshot_dir is not None and transcript is not None:
        root = Path(str(request.config.rootpath)) / suite.snapshot_dir
        snapshot = request.getfixturevalue("snapshot")
        extension = _snapshot_extension(root, cell.target.name, cell.job.column, cell.job.case.id)
        with warnings.catch_warnings():
            # Our layout (<dir>/<target>/<wire>/<case>.json) is deliberate, not misplaced.
            warnings.filterwarnings("ignore", message=r"\s*Can not relate snapshot")
            assert emitted_bodies(transcript) == snapshot(extension_class=extension)
    if result.verdict == "pinned":
        pytest.xfail(f"pinned limitation shown as documented: {result.reason}")
