"""A command's scratch folder is removed when its cell ends, and, when a signal ends the
run before the cell's thread gets there, when the interpreter exits."""

from __future__ import annotations

import os
import secrets
import signal
import tempfile
from pathlib import Path

import pytest

from conformance._interrupt import Interrupted
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


def test_a_signal_right_after_the_folder_is_made_leaves_nothing_at_exit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ordering a signal can hit: the folder exists, ``Scratch`` has not returned (the
    interruption is raised in the main thread between any two steps).  What the
    interpreter's exit removes must already include it."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    make = os.mkdir

    def made_then_interrupted(path: str | os.PathLike[str], mode: int = 0o777) -> None:
        make(path, mode)
        raise Interrupted(signal.SIGTERM)

    monkeypatch.setattr(os, "mkdir", made_then_interrupted)
    with pytest.raises(Interrupted):
        Scratch()
    monkeypatch.setattr(os, "mkdir", make)
    (made,) = tmp_path.iterdir()  # the interruption came after the folder was made
    scratch._remove_left_behind()
    assert list(tmp_path.iterdir()) == []
    scratch._LIVE.discard(made)


def test_a_taken_name_is_never_registered_as_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Negative: a name already on disk (another's folder) is passed over and left alone."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    tokens = iter(["taken", "free"])
    monkeypatch.setattr(secrets, "token_hex", lambda _: next(tokens))
    (tmp_path / "conformance-cmd-taken").mkdir()
    with Scratch() as folder:
        assert folder.name == "conformance-cmd-free"
        assert tmp_path / "conformance-cmd-taken" not in scratch._LIVE
    scratch._remove_left_behind()
    assert [p.name for p in tmp_path.iterdir()] == ["conformance-cmd-taken"]
