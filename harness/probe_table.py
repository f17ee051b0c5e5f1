"""The reference catalogue's probe matrix in ``docs/probes.md``, generated from a run.

    python -m harness.probe_table --write

Runs ``wire-conformance probe --target reference`` in-process (first killer per
mutant) and puts the table between the markers of ``docs/probes.md``; without
``--write`` it prints the table.  ``tests/probe/test_probe_docs.py`` regenerates it and
compares, so the documented matrix cannot drift from the catalogue or the cases.
"""

from __future__ import annotations

import sys
from pathlib import Path

from conformance._cases.library import load_library
from conformance._probe.catalogue import reference_catalogue
from conformance._probe.report import ProbeReport, control_summary, markdown_table
from conformance._probe.run import ProbeOptions, control, run_probes
from conformance._runner import RunOptions, plan
from conformance._targets.resolve import REFERENCE_SPEC, resolve_target

DOC = Path(__file__).resolve().parents[1] / "docs" / "probes.md"
BEGIN = "<!-- probe-matrix: generated from a run, do not edit -->\n"
END = "<!-- probe-matrix: end -->\n"


def reference_report() -> ProbeReport:
    """The reference catalogue run on the bundled library, as the command runs it."""
    catalogue = reference_catalogue()
    target = resolve_target(REFERENCE_SPEC)
    jobs = plan((c.case for c in load_library().cases), target, (), catalogue.cases)
    options = ProbeOptions(RunOptions(strict=catalogue.strict))
    checked = control(target, jobs, options.run, reach=(REFERENCE_SPEC, catalogue))
    mutants = run_probes(
        REFERENCE_SPEC, catalogue, checked.killable, options, reached=checked.reached
    )
    return ProbeReport(
        target="reference",
        catalogues=(catalogue.source,),
        strict=catalogue.strict,
        all_killers=False,
        control=control_summary(checked.results),
        mutants=tuple(mutants),
    )


def matrix(report: ProbeReport | None = None) -> str:
    """The table for ``report``, by default a fresh run of the reference catalogue (a
    caller that already holds the run's report passes it: one run serves both)."""
    report = reference_report() if report is None else report
    counts = ", ".join(f"{n} {v}" for v, n in report.counts.items() if n)
    head = (
        f"{len(report.mutants)} mutants on the {report.control.killable} cells the "
        f"unmutated reference passes (strict): {counts}.\n\n"
    )
    return head + markdown_table(report)


def splice(document: str, table: str) -> str:
    """``document`` with the text between the markers replaced by ``table``."""
    start = document.index(BEGIN) + len(BEGIN)
    end = document.index(END)
    return document[:start] + "\n" + table + "\n" + document[end:]


def main(argv: list[str]) -> int:
    table = matrix()
    if "--write" in argv:
        DOC.write_text(splice(DOC.read_text(encoding="utf-8"), table), encoding="utf-8")
    else:
        sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
