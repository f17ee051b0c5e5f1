"""The probe runner's fast paths change no verdict: a mutant runs only on the cells
that reach its change (learnt in the control), a mutant inside one function swaps that
function's code, and a rebuild re-imports only the mutated module's dependants."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from conformance._cases.library import load_library
from conformance._probe.catalogue import Probe, reference_catalogue
from conformance._probe.modules import dependants, mutated_modules, source_code
from conformance._probe.mutate import compiled
from conformance._probe.reach import MARKER, Reach, ReachRecorder, instrumented, touched
from conformance._probe.run import ProbeOptions, control, probe_in_process, reaching
from conformance._probe.swap import swap_for, swapped
from conformance._runner import RunOptions, plan
from conformance._targets.resolve import REFERENCE_SPEC, resolve_target

SOURCE = textwrap.dedent(
    '''\
    """A module."""

    LIMIT = 3


    def clip(values):
        """Keep the first LIMIT values."""
        kept = []
        for value in values:
            if len(kept) >= LIMIT:
                break
            kept.append(value)
        return kept


    def cached(f):
        return f


    @cached
    def wrapped(x):
        return x + 1


    class Box:
        def size(self, values):
            return len(clip(values))
    '''
)


def probe(find: str, replace: str) -> Probe:
    return Probe(id="p", module="m", find=find, replace=replace, note="n")


def test_reach_is_decided_inside_a_function_body_only() -> None:
    assert touched(probe("LIMIT = 3", "LIMIT = 4"), SOURCE) is None  # runs at import
    assert touched(probe('"""Keep the first', '"""Keep the'), SOURCE) is None  # a docstring
    marks = touched(probe("break", "continue"), SOURCE)
    assert marks is not None
    assert [m.place[0] for m in marks] == [11]


def test_a_marker_records_only_the_cells_that_reach_the_change() -> None:
    marks = touched(probe("break", "continue"), SOURCE)
    assert marks is not None
    recorder = ReachRecorder()
    namespace: dict[str, object] = {MARKER: recorder}
    exec(instrumented(SOURCE, "m.py", {"p": marks}), namespace)
    clip = namespace["clip"]
    assert callable(clip)
    assert clip([1, 2]) == [1, 2]
    assert recorder.reached == set()
    assert clip([1, 2, 3, 4]) == [1, 2, 3]
    assert recorder.reached == {"p"}


def test_reach_leaves_out_unreached_cells_and_keeps_the_verdict() -> None:
    catalogue = reference_catalogue()
    chosen = next(p for p in catalogue.probes if p.id == "guard-omit-reasoning-in-user-input")
    target = resolve_target(REFERENCE_SPEC)
    jobs = plan((c.case for c in load_library().cases), target, (), ("user-input-*", "xml-*"))
    options = ProbeOptions(RunOptions(strict=True))
    plain = control(target, jobs, options.run)
    marked = control(target, jobs, options.run, reach=(REFERENCE_SPEC, catalogue))
    assert plain.reached is None
    assert isinstance(marked.reached, Reach)
    assert [r.verdict for r in marked.results] == [r.verdict for r in plain.results]
    every = probe_in_process(REFERENCE_SPEC, chosen, plain.killable, options)
    reached = probe_in_process(REFERENCE_SPEC, chosen, marked.killable, options, marked.reached)
    assert (every.verdict, every.killers, every.errors) == (
        reached.verdict,
        reached.killers,
        reached.errors,
    )
    assert every.cells_unreached == 0
    assert every.cells_run == len(plain.killable)
    assert reached.cells_unreached > 0
    assert reached.cells_run + reached.cells_unreached == reached.cells_total == every.cells_total
    left = reaching(chosen, marked.killable, marked.reached)
    assert all(j.case.id.startswith("user-input-") for j in left)


def test_swap_needs_an_undecorated_top_level_function_or_method(tmp_path: Path) -> None:
    (tmp_path / "swapmod.py").write_text(SOURCE)
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("swapmod")
        filename = module.__file__
        assert filename is not None
        assert swap_for(probe("LIMIT = 3", "LIMIT = 1"), SOURCE, filename, "swapmod") is None
        assert swap_for(probe("x + 1", "x + 2"), SOURCE, filename, "swapmod") is None
        swap = swap_for(probe("len(clip(values))", "0"), SOURCE, filename, "swapmod")
        assert swap is not None
        assert [f.__qualname__ for f, _ in swap] == ["Box.size"]
        box = module.Box()
        original = module.Box.size.__code__
        seen = []

        def run_then_fail() -> None:
            with swapped(swap):
                seen.append(box.size([1, 2]))  # an instance made before sees the mutant
                raise RuntimeError

        with pytest.raises(RuntimeError):
            run_then_fail()
        assert seen == [0]
        assert module.Box.size.__code__ is original
        assert box.size([1, 2]) == 2
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("swapmod", None)


def test_a_rebuild_reimports_only_the_mutated_module_and_its_dependants() -> None:
    resolve_target(REFERENCE_SPEC)
    rebuilt = dependants("conformance._reference.output", "conformance._reference")
    assert rebuilt == {
        "conformance._reference.output",
        "conformance._reference.adapter",
        "conformance._reference",
    }
    kept = sys.modules["conformance._reference.consolidate"]
    output = sys.modules["conformance._reference.output"]
    path = Path(output.__file__ or "")
    code = compiled(path.read_text(encoding="utf-8"), str(path))
    with mutated_modules("conformance._reference", "conformance._reference.output", code):
        fresh = importlib.import_module("conformance._reference.adapter")
        assert sys.modules["conformance._reference.consolidate"] is kept
        assert sys.modules["conformance._reference.output"] is not output
        assert fresh.consolidate is kept.consolidate
    assert sys.modules["conformance._reference.output"] is output
    assert source_code(str(path)) is source_code(str(path))  # compiled once
