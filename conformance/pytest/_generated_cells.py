"""The columns a ``GeneratedSuite`` searches, and the search of one (the property of
``conformance.generate._properties``, its counterexample printed as a case file)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance._runner import RunOptions
from conformance._targets.resolve import ResolvedTarget
from conformance.pytest._cells import _target, misconfigured, run_options, suite_setting
from conformance.pytest._generated import COLUMN_FIXTURE, GeneratedSuite


@dataclass(frozen=True)
class Column:
    """One column of a generated-shapes test and how to search it."""

    column: str
    target: ResolvedTarget
    options: RunOptions
    profile: str
    examples: int | None
    seed: int | None
    database: Path | None


def parametrize_columns(metafunc: pytest.Metafunc) -> None:
    """One test per column the suite's target speaks (narrowed by its ``wires`` and
    ``--conformance-wire``)."""
    from conformance.generate._profiles import default_database, default_profile
    from conformance.wires._registry import columns

    cls = metafunc.cls
    if cls is None or not issubclass(cls, GeneratedSuite):
        raise pytest.UsageError(f"the {COLUMN_FIXTURE} fixture belongs to GeneratedSuite tests")
    config = metafunc.config
    target = _target(cls, config)
    wires = set(suite_setting(cls, config, "wire"))
    chosen = [
        c
        for c in columns()
        if target.speaks(c) and (not wires or c in wires or c.split(":")[0] in wires)
    ]
    if not chosen:
        misconfigured(f"{cls.__name__}: {target.name} speaks none of the selected wires")
    options = run_options(cls, config)
    profile = suite_setting(cls, config, "profile") or default_profile()
    seed = suite_setting(cls, config, "seed")
    database = default_database(profile, Path(str(config.rootpath)))
    values = [
        Column(c, target, options, profile, cls.generate_examples, seed, database) for c in chosen
    ]
    metafunc.parametrize(COLUMN_FIXTURE, values, ids=chosen)


def check_column(column: Column, request: Any) -> None:
    """Search one column; fail with the shrunk counterexample's case file."""
    from conformance.generate._case_file import case_yaml, counterexample_case
    from conformance.generate._properties import Search, failing_check, search

    spec = Search(
        column.target,
        column.column,
        column.profile,
        column.seed,
        column.examples,
        column.database,
        column.options,
    )
    outcome = search(spec)
    found = outcome.counterexample
    if found is None:
        return
    check = failing_check(found.result)
    case = counterexample_case(found.case, column.column, check, outcome.seed, column.target.spec)
    header = (
        f"Generated counterexample: seed={outcome.seed}, profile {column.profile}, "
        f"target {column.target.name}; failing check: {check}"
    )
    lines = [f"  {v.check}: {v.message}" for v in found.result.violations[:3]]
    pytest.fail(
        "\n".join(
            [
                f"{column.column}: a generated conversation fails ({check}); "
                "the shrunk counterexample as a case file:",
                *lines,
                case_yaml(case, header),
            ]
        ),
        pytrace=False,
    )
