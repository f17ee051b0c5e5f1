"""``python -m harness.coverage_doc > docs/coverage.md``: the catalogue coverage table."""

from __future__ import annotations

import sys

from conformance._cases.library import load_library
from conformance._probe.catalogue import reference_catalogue
from conformance._report.coverage import as_markdown, coverage
from conformance.catalogue._entries import catalogue
from conformance.catalogue._seeds import seed_index


def current() -> str:
    """The document as the bundled library, index and probe catalogue make it today."""
    probes = {p.id: p.expect_killed_by for p in reference_catalogue().probes}
    cases = [loaded.case for loaded in load_library().cases]
    return as_markdown(coverage(seed_index(), catalogue(), cases, probes))


if __name__ == "__main__":
    sys.stdout.write(current())
