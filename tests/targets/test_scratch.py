"""A command's scratch folder is removed when its cell ends, and, when a signal ends the
run before the cell's thread gets there, when the interpreter exits."""

from __future__ import annotations

from conformance._targets import scratch
from conformance._targets.scratch import Scratch


def test_a_scratch_folder_is_removed_and_forgotten_when_its_cell_ends() -> None:
    with Scratch() as folder:
        (folder / "case.json").write_text("{}", encoding="utf-8")
        assert folder in scratch._LIVE
    assert not folder.exists()
    assert folder not in scratch._LIVE


def test_a_folder_whose_cell_never_ended_is_removed_at_exit() -> None:
    left = Scratch()  # the cell's thread was abandoned before ``__exit__``
    (left.path / "output.json").write_text("{}", encoding="utf-8")
    assert left.path.exists()
    scratch._remove_left_behind()
    assert not left.path.exists()
    scratch._LIVE.discard(left.path)
