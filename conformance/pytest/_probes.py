"""Probe catalogues from pytest: ``--conformance-probes FILE`` adds one test item per
probe, run on ``--conformance-target``.

The items share one positive control (run by the first item that needs it); an item
fails for exactly what fails ``wire-conformance probe``: a red control, an unaccepted
survivor, an invalid probe, an unmet ``expect_killed_by``.  Imported by the plugin only
when the option is given.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance._probe.catalogue import Catalogue, load_catalogue, merge, reference_catalogue
from conformance._probe.command import probe_subject
from conformance._probe.run import (
    CommandRoot,
    Control,
    ProbeOptions,
    control,
    probe_command,
    probe_in_process,
    reach_of,
)
from conformance._probe.verdicts import MutantResult
from conformance._targets.resolve import ResolvedTarget
from conformance.errors import (
    ManifestError,
    ProbeCatalogueError,
    ProbeInvalid,
    ProbeUsageError,
    TargetError,
)
from conformance.verdict import DEFAULT_TIMEOUT

#: ``--conformance-probes reference``: the catalogue shipped for the bundled reference.
REFERENCE = "reference"


class ProbeFailure(Exception):
    """What fails a probe item, said in one message (no traceback)."""


def load_catalogues(names: list[str]) -> Catalogue:
    """The catalogues named on the command line, as one; a usage error names the file."""
    try:
        return merge(
            [reference_catalogue() if n == REFERENCE else load_catalogue(Path(n)) for n in names]
        )
    except ProbeCatalogueError as error:
        raise pytest.UsageError(f"--conformance-probes: {error}") from None


class ProbeRun:
    """The target, the cells, and the control every probe item of a session shares."""

    def __init__(self, config: pytest.Config, catalogue: Catalogue) -> None:
        self.config = config
        self.catalogue = catalogue
        self._checked: Control | None = None
        self._subject: tuple[ResolvedTarget, str | CommandRoot] | None = None

    def subject(self) -> tuple[ResolvedTarget, str | CommandRoot]:
        if self._subject is None:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            spec = self.config.getoption("--conformance-target") or "reference"
            try:
                self._subject = probe_subject(spec)
            except (ProbeUsageError, TargetError, ManifestError) as error:
                raise ProbeFailure(f"--conformance-target: {error}") from None
        return self._subject

    def options(self) -> ProbeOptions:
        from conformance._runner import RunOptions

        strict = bool(self.config.getoption("--conformance-strict")) or self.catalogue.strict
        timeout = self.config.getoption("--conformance-timeout") or DEFAULT_TIMEOUT
        return ProbeOptions(RunOptions(timeout=timeout, strict=strict))

    def checked(self) -> Control:
        """The positive control, run once."""
        if self._checked is None:
            from conformance._cases.library import load_library
            from conformance._runner import plan

            target, subject = self.subject()
            dirs = [Path(d) for d in self.config.getoption("--conformance-cases")]
            cases = [loaded.case for loaded in load_library(dirs).cases]
            wires = self.config.getoption("--conformance-wire")
            jobs = plan(cases, target, wires, self.catalogue.cases)
            patterns = self.config.getoption("--conformance-case")
            if patterns:
                jobs = [j for j in jobs if any(fnmatch.fnmatchcase(j.case.id, p) for p in patterns)]
            self._checked = control(
                target, jobs, self.options().run, reach=reach_of(subject, self.catalogue)
            )
        return self._checked

    def probe(self, probe_id: str) -> MutantResult:
        checked = self.checked()
        if checked.failing:
            cells = ", ".join(f"{r.case}[{r.wire}] {r.verdict}" for r in checked.failing)
            raise ProbeFailure(f"the unmutated target is red, so no probe proves anything: {cells}")
        probe = next(p for p in self.catalogue.probes if p.id == probe_id)
        _, subject = self.subject()
        if isinstance(subject, CommandRoot):
            return probe_command(subject, probe, checked.killable, self.options())
        return probe_in_process(subject, probe, checked.killable, self.options(), checked.reached)


def describe(result: MutantResult) -> str:
    """Why a mutant fails the probe run, with its evidence."""
    lines = [f"probe {result.id} ({result.where}): {result.problem}", f"  removes: {result.note}"]
    if result.verdict == "survived":
        lines.append(f"  every one of the {result.cells_run} cells passed on the mutant")
    for killer in result.killers:
        lines.append(f"  killed by {killer.cell}: {', '.join(killer.checks)}")
    for error in result.errors:
        lines.append(f"  errored in {error.cell}: {error.error}")
    return "\n".join(lines)


class ProbeItem(pytest.Item):
    """One probe of the catalogue."""

    def __init__(self, *, run: ProbeRun, probe_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.probe_id = probe_id

    def runtest(self) -> None:
        try:
            result = self.run.probe(self.probe_id)
        except ProbeInvalid as error:  # pragma: no cover - the runner reports these itself
            raise ProbeFailure(f"probe {self.probe_id}: invalid: {error}") from None
        self.user_properties.append(("verdict", result.verdict))
        if result.problem is not None:
            raise ProbeFailure(describe(result))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ProbeFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"probe {self.probe_id}"


class ProbeCatalogueNode(pytest.File):
    """The catalogues given with ``--conformance-probes``, as one collector."""

    def __init__(self, *, catalogue: Catalogue, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.catalogue = catalogue

    def collect(self) -> Iterator[ProbeItem]:
        run = ProbeRun(self.config, self.catalogue)
        for probe in self.catalogue.probes:
            yield ProbeItem.from_parent(self, name=probe.id, run=run, probe_id=probe.id)


def probe_items(session: pytest.Session) -> list[ProbeItem]:
    """One item per probe of the catalogues given on the command line."""
    names: list[str] = session.config.getoption("--conformance-probes")
    catalogue = load_catalogues(names)
    source = Path(catalogue.source) if catalogue.source else session.config.rootpath
    path = source if source.is_absolute() else session.config.rootpath / source
    node = ProbeCatalogueNode.from_parent(session, path=path, catalogue=catalogue)
    return list(node.collect())
