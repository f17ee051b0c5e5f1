"""``ConformanceSuite``: the base class users subclass in their own tests.

    from conformance.pytest.suite import ConformanceSuite

    class TestMyAdapter(ConformanceSuite):
        target = "my_package.adapter:MyAdapter"     # or the class, or an instance

Configured by class attributes, like langchain-tests: pytest runs every case × wire
the target can run; what it cannot run is skipped with the reason, known failures the
target pins are strict xfails, and after the normative checks the emitted request
bodies are compared with syrupy snapshots under ``snapshot_dir/<target>/<wire>/``
(``pytest --snapshot-update`` writes new and changed ones and deletes stale ones).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from conformance.verdict import DEFAULT_EVIDENCE_THRESHOLD, DEFAULT_TIMEOUT, EvidenceThreshold


class ConformanceSuite:
    #: ``"reference"``, ``"module:attr"``, ``"cmd:<shell command>"``, an Adapter or
    #: Client class or instance; ``None`` takes ``--conformance-target`` (or the reference).
    target: ClassVar[Any] = None
    #: Name used for snapshot directories (default: the target's own name).
    target_name: ClassVar[str | None] = None
    #: Only these wires (empty: every wire the target declares).
    wires: ClassVar[tuple[str, ...]] = ()
    #: Only case ids matching these globs (empty: all).
    case_patterns: ClassVar[tuple[str, ...]] = ()
    #: Directories of your own cases, added to the bundled library.
    case_dirs: ClassVar[tuple[str | Path, ...]] = ()
    #: ``should`` violations fail too.
    strict: ClassVar[bool] = False
    #: Seconds one case may take (a heavy library needs 8-20 s on a busy machine).
    timeout: ClassVar[float] = DEFAULT_TIMEOUT
    #: The weakest evidence that may fail a cell (``documented``, ``observed``, ``any``).
    evidence: ClassVar[EvidenceThreshold] = DEFAULT_EVIDENCE_THRESHOLD
    #: Where snapshots live, relative to pytest's rootdir; ``None`` disables them.
    snapshot_dir: ClassVar[str | Path | None] = "snapshots"

    def test_conformance(self, wire_conformance_case: Any, request: Any) -> None:
        from conformance.pytest.cells import check_cell

        check_cell(wire_conformance_case, request)
