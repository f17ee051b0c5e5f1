"""The probe runner in-process: verdicts, invalid probes, restoration, isolation."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

import conformance
import conformance._reference
import conformance._reference.consolidate
from conformance._probe.catalogue import Catalogue, load_catalogue, parse_catalogue
from conformance._probe.run import (
    Isolation,
    ProbeOptions,
    control,
    probe_forked,
    probe_in_process,
    run_probes,
)
from conformance._probe.verdicts import MutantResult
from conformance._runner import Job, RunOptions, plan
from conformance._targets.resolve import REFERENCE_SPEC, resolve_target
from tests.probe.toy import SPEC, importable, tree, write_toy
from tests.support import library

#: A few cells that kill the probes below: fast, and enough.
CASES = ("empty-terminal-output-*", "xml-unknown-tool-left-untouched", "refusal-context-reset")


def jobs(spec: str = REFERENCE_SPEC, cases: Sequence[str] = CASES) -> list[Job]:
    target = resolve_target(spec)
    planned = plan((c.case for c in library().cases), target, (), cases)
    checked = control(target, planned, RunOptions(strict=True))
    assert not checked.failing
    return list(checked.killable)


def catalogue(body: str) -> Catalogue:
    return parse_catalogue(f"probes:\n{body}", "test.yaml", Path("."))


def probe(body: str, isolate: Isolation = "none", all_killers: bool = False) -> MutantResult:
    (only,) = catalogue(body).probes
    options = ProbeOptions(RunOptions(strict=True, timeout=5), all_killers, isolate)
    each = probe_forked if isolate == "fork" else probe_in_process
    return each(REFERENCE_SPEC, only, jobs(), options)


OUTPUT = """\
  - id: last-even-if-empty
    module: conformance._reference.output
    find: "text = next((t for t in reversed(texts) if t.strip()), None)"
    replace: "text = texts[-1] if texts else None"
    expect_killed_by: [empty-terminal-output-last-nonempty-text]
    note: n
"""


def reference_sources() -> dict[str, str]:
    folder = Path(conformance._reference.__file__).parent
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.glob("*.py")}


def test_a_mutant_is_killed_by_checks_and_its_expectation_is_met() -> None:
    result = probe(OUTPUT)
    assert result.verdict == "killed"
    assert result.killers[0].case == "empty-terminal-output-last-nonempty-text"
    assert "expect" in result.killers[0].checks
    assert result.expectation_met is True
    assert result.problem is None
    assert result.cells_run == 1  # the expected killer runs first; the run stops there


def test_all_killers_runs_every_cell() -> None:
    first = probe(OUTPUT)
    every = probe(OUTPUT, all_killers=True)
    assert every.cells_run == every.cells_total == len(jobs()) > first.cells_run
    assert len(every.killers) > 1


def test_an_unmet_expectation_is_a_problem() -> None:
    result = probe(OUTPUT.replace("[empty-terminal-output-last-nonempty-text]", "[refusal-*]"))
    assert result.verdict == "killed"
    assert result.unmet == ("refusal-*",)
    assert result.problem == "not killed by the expected refusal-*"


def test_a_mutant_nothing_notices_survives_and_fails_unless_accepted() -> None:
    body = OUTPUT.replace(
        "texts[-1] if texts else None",
        "next((t for t in reversed(texts) if t.strip()), None) or None",
    ).replace("    expect_killed_by: [empty-terminal-output-last-nonempty-text]\n", "")
    result = probe(body)
    assert (result.verdict, result.problem) == ("survived", "survived")
    accepted = probe(body + "    accepted: equivalent\n")
    assert (accepted.verdict, accepted.problem) == ("survived", None)


@pytest.mark.parametrize(
    ("find", "replace", "module", "reason"),
    [
        ("texts", "x", "conformance._reference.output", "`find` matches 4 times"),
        ("no such text", "x", "conformance._reference.output", "`find` matches never"),
        ("if guards.on(", "if guards.on((", "conformance._reference.output", "does not compile"),
        (
            "from __future__ import annotations\n",
            "from __future__ import annotations\nraise RuntimeError('boom')\n",
            "conformance._reference.output",
            "the mutant does not import",
        ),
        (
            "class Violation",
            "class Violations",
            "conformance.verdict",
            "outside the target's package",
        ),
        ("x", "y", "conformance._reference.nothing", "has no Python source file"),
    ],
)
def test_a_probe_that_cannot_be_applied_or_built_is_invalid(
    find: str, replace: str, module: str, reason: str
) -> None:
    body = (
        f"  - id: p\n    module: {module}\n    find: {json.dumps(find)}\n"
        f"    replace: {json.dumps(replace)}\n    note: n\n"
    )
    result = probe(body)
    assert result.verdict == "invalid"
    assert reason in (result.reason or "")
    assert (result.problem or "").startswith("invalid: ")


def test_a_mutant_that_raises_is_crashed_not_killed() -> None:
    body = OUTPUT.replace(
        "text = texts[-1] if texts else None", "raise RuntimeError('mutant')"
    ).replace("    expect_killed_by: [empty-terminal-output-last-nonempty-text]\n", "")
    result = probe(body)
    assert result.verdict == "crashed"
    assert "RuntimeError: mutant" in (result.errors[0].error or "")


def test_a_mutant_that_hangs_is_timeout() -> None:
    body = OUTPUT.replace(
        "text = texts[-1] if texts else None", "while True:\n            pass"
    ).replace("    expect_killed_by: [empty-terminal-output-last-nonempty-text]\n", "")
    (only,) = catalogue(body).probes
    options = ProbeOptions(RunOptions(strict=True, timeout=0.3))
    result = probe_in_process(REFERENCE_SPEC, only, jobs()[:1], options)
    assert result.verdict == "timeout"


def test_the_running_process_is_restored_and_no_file_is_written() -> None:
    before_sources = reference_sources()
    before_module = sys.modules["conformance._reference.consolidate"]
    before_package = conformance._reference
    probe(OUTPUT)
    probe(
        "  - {id: p, module: conformance._reference.output, find: 'if guards.on(', "
        "replace: 'if guards.on((', note: n}\n"
    )
    assert sys.modules["conformance._reference.consolidate"] is before_module
    assert sys.modules["conformance._reference"] is before_package
    assert conformance._reference is before_package  # the parent's attribute too
    assert reference_sources() == before_sources
    # the unmutated reference still passes what the mutant failed
    assert jobs()


def test_a_forked_mutant_gets_the_same_verdict() -> None:
    assert probe(OUTPUT, isolate="fork") == probe(OUTPUT)


def test_a_users_package_is_probed_by_path_and_left_as_it_was(tmp_path: Path) -> None:
    path = write_toy(tmp_path)
    with importable(tmp_path):
        cells = jobs(SPEC, ("empty-terminal-output-*", "chat-empty-final-message-*"))
        before = tree(tmp_path)
        options = ProbeOptions(RunOptions(strict=True))
        results = run_probes(SPEC, load_catalogue(path), cells, options)
    assert [(r.id, r.verdict) for r in results] == [
        ("pick-last-even-if-empty", "killed"),
        ("pick-first", "killed"),
    ]
    assert results[0].expectation_met is True
    assert tree(tmp_path) == before


def test_a_path_outside_the_root_is_invalid(tmp_path: Path) -> None:
    path = write_toy(tmp_path / "inner")
    path.write_text(path.read_text().replace("path: toyadapter/pick.py", "path: ../elsewhere.py"))
    with importable(tmp_path / "inner"):
        cells = jobs(SPEC, ("empty-terminal-output-*",))
        results = run_probes(SPEC, load_catalogue(path), cells, ProbeOptions(RunOptions()))
    assert "outside the catalogue's root" in (results[0].reason or "")


def test_a_forked_mutant_that_kills_its_process_is_crashed() -> None:
    body = OUTPUT.replace(
        "text = texts[-1] if texts else None", "__import__('os')._exit(7)"
    ).replace("    expect_killed_by: [empty-terminal-output-last-nonempty-text]\n", "")
    result = probe(body, isolate="fork")
    assert result.verdict == "crashed"
    assert result.errors[0].error == "the child died (exit 7)"
