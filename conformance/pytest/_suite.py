"""``ConformanceSuite``: the base class users subclass in their own tests.

    from conformance import ConformanceSuite

    class TestMyAdapter(ConformanceSuite):
        target = "my_package.adapter:MyAdapter"     # or the class, or an instance

Configured by class attributes (documented one by one below and in docs/pytest.md;
their defaults, choices and pytest options are the settings of ``conformance._settings``):
pytest runs every case × wire of a wire the target declares; cells of other wires are
not collected (one summary line counts them), cells the target cannot run for a missing
capability are skipped with the reason, known failures the target pins are strict
xfails, and after the normative checks the emitted request bodies are compared with
syrupy snapshots under ``snapshot_dir/<target>/<wire>/`` (``pytest --snapshot-update``
writes new and changed ones and deletes stale ones).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from conformance._settings import suite_default
from conformance.verdict import EvidenceThreshold


class ConformanceSuite:
    """Subclass it in a test module and set ``target``; every other attribute is optional.

    A selection that selects nothing (a ``case_patterns`` glob or ``--conformance-case``
    that matches no case, an unknown wire, a target that speaks none of the selected
    wires) fails collection with one line, never an empty green run.  A run on the
    bundled reference adapter (``target = None`` with no ``--conformance-target``) says
    so in the session summary.
    """

    #: The code under test: ``"module:attr"`` (an Adapter or Client class, instance or
    #: factory, imported from ``sys.path``: set ``pythonpath = ["."]`` under
    #: ``[tool.pytest.ini_options]`` for a module at the project root),
    #: ``"cmd:<shell command>"``, ``"reference"``, or the class or instance itself.
    #: ``None`` takes ``--conformance-target``, else the bundled reference adapter.
    target: ClassVar[Any] = suite_default("target")
    #: The target's name in failure texts and its snapshot directory
    #: (``snapshot_dir/<target_name>/``); ``None``: ``--conformance-target-name``, else the
    #: target's own ``name`` (a command's is ``cmd-<program>``, see docs/targets.md).
    target_name: ClassVar[str | None] = suite_default("target_name")
    #: Only these wires or ``wire:dialect`` columns (empty: every wire the target
    #: declares); ``--conformance-wire`` adds to them.
    wires: ClassVar[tuple[str, ...]] = suite_default("wires")
    #: Only case ids matching these globs, e.g. ``("interleaved-*",)`` (empty: all);
    #: ``--conformance-case`` adds to them.  A glob that matches no case is an error.
    case_patterns: ClassVar[tuple[str, ...]] = suite_default("case_patterns")
    #: Directories of your own case files, relative to pytest's rootdir, added to the
    #: bundled library (docs/writing-cases.md); ``--conformance-cases`` adds to them.
    case_dirs: ClassVar[tuple[str | Path, ...]] = suite_default("case_dirs")
    #: ``should`` violations (accepted by the provider but costly) fail too, as with
    #: ``--conformance-strict``.
    strict: ClassVar[bool] = suite_default("strict")
    #: Seconds one cell may take before it is an ``error`` (a heavy client library needs
    #: 8-20 s on a busy machine); ``--conformance-timeout`` overrides it.
    timeout: ClassVar[float] = suite_default("timeout")
    #: The weakest evidence that may fail a cell: ``documented``, ``observed`` (default)
    #: or ``any``; a violation resting on weaker evidence is a warning.
    evidence: ClassVar[EvidenceThreshold] = suite_default("evidence")
    #: Where snapshots live, relative to pytest's rootdir; ``None`` runs without them.
    #: Before the target's first snapshots exist, cells are judged without them and the
    #: summary says to record them with ``pytest --snapshot-update``.
    snapshot_dir: ClassVar[str | Path | None] = suite_default("snapshot_dir")

    def test_conformance(self, wire_conformance_case: Any, request: Any) -> None:
        """One case × wire: judged, then compared with its snapshot."""
        from conformance.pytest._cells import check_cell

        check_cell(wire_conformance_case, request)
