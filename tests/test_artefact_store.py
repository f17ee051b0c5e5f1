"""The one per-cell artefact store (``paths.ArtefactStore``): snapshots, saved exchanges
and recordings all get their paths from it, so a hostile target, column, case or wire
name, or a link under the root, cannot make any of the three write outside its root."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from conformance._paths import ArtefactStore, file_name
from conformance.errors import UnsafePath
from conformance.http import HttpRequest, HttpResponse

HOSTILE = ["..", ".", "../outside", "/tmp/abs", "a/b", "line\nbreak", "", "a\\b", "x\x00y"]


def _files(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*") if p.is_file())


@pytest.mark.parametrize("name", HOSTILE)
def test_the_store_refuses_a_hostile_target_column_or_case(name: str, tmp_path: Path) -> None:
    store = ArtefactStore(tmp_path / "root")
    with pytest.raises(UnsafePath, match="the target name"):
        store.cell(name, "openai-chat", "a-case", "json")
    with pytest.raises(UnsafePath, match="the column"):
        store.cell("t", name, "a-case", "json")
    with pytest.raises(UnsafePath):
        store.cell("t", "openai-chat", name, "json")
    with pytest.raises(UnsafePath):
        store.file("anthropic-messages", name)


def test_the_store_places_a_good_cell_where_it_always_was(tmp_path: Path) -> None:
    """The negative example: good names keep their place, the ``:`` -> ``+`` rule too."""
    store = ArtefactStore(tmp_path)
    cell = store.cell("my-adapter_2.1", "openai-chat:deepseek", "a-case", "json")
    assert cell == tmp_path / "my-adapter_2.1" / "openai-chat+deepseek" / "a-case.json"
    wire = store.file("anthropic-messages", "tests", "test_x[p=1].json")
    assert wire == tmp_path / "anthropic-messages" / "tests" / "test_x[p=1].json"
    store.write(cell, "{}\n")
    assert cell.read_text(encoding="utf-8") == "{}\n"
    assert [p.name for p in cell.parent.iterdir()] == ["a-case.json"]  # no partial left


def test_a_link_under_the_root_that_points_out_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    (root / "t").mkdir(parents=True)
    (root / "t" / "openai-chat").symlink_to(outside, target_is_directory=True)
    store = ArtefactStore(root)
    with pytest.raises(UnsafePath, match="outside"):
        store.cell("t", "openai-chat", "a-case", "json")
    with pytest.raises(UnsafePath, match="outside"):
        store.write(root / "t" / "openai-chat" / "a-case.json", "{}")
    assert _files(outside) == []


def test_file_name_keeps_a_cassette_name_and_defuses_the_rest() -> None:
    assert file_name("test_x[p=1]", "cassette") == "test_x[p=1]"
    assert file_name("a b/c", "cassette") == "a_b_c"
    assert file_name("..", "_") == "_"
    assert file_name("", "cassette") == "cassette"


# --------------------------------------------------------------- the three users


@pytest.mark.parametrize("case", ["../../../escaped", "/tmp/escaped", "a/../../../escaped"])
def test_a_snapshot_cannot_be_written_outside_its_root(case: str, tmp_path: Path) -> None:
    from conformance._snapshots import SnapshotStore

    root = tmp_path / "a" / "b" / "snaps"
    store = SnapshotStore(root, "t", update=True)
    transcript = cast(Any, SimpleNamespace(exchanges=[]))
    with pytest.raises(UnsafePath):
        store.check("openai-chat", case, transcript)
    with pytest.raises(UnsafePath):
        SnapshotStore(root, "../t", update=True).check("openai-chat", "a-case", transcript)
    assert _files(tmp_path) == []
    # The negative example: a good case is written under the root.
    assert store.check("openai-chat", "a-case", transcript) == "new"
    assert _files(tmp_path) == [root / "t" / "openai-chat" / "a-case.json"]


@pytest.mark.parametrize("case", ["../../../escaped", "/tmp/escaped"])
def test_saved_exchanges_cannot_be_written_outside_their_root(case: str, tmp_path: Path) -> None:
    from conformance._exchanges import save_exchanges
    from conformance.verdict import Result

    root = tmp_path / "a" / "b" / "saved"

    def transcript(case_id: str) -> Any:
        brief = SimpleNamespace(id=case_id)
        return SimpleNamespace(case=brief, wire="openai-chat", dialect=None, exchanges=[])

    result = Result(case="c", wire="openai-chat", verdict="pass")
    with pytest.raises(UnsafePath):
        save_exchanges(root, "t", transcript(case), result)
    with pytest.raises(UnsafePath):
        save_exchanges(root, "..", transcript("a-case"), result)
    assert _files(tmp_path) == []
    written = save_exchanges(root, "t", transcript("a-case"), result)
    assert _files(tmp_path) == [written] == [root / "t" / "openai-chat" / "a-case.json"]


REQUEST = HttpRequest(
    "POST",
    "/v1/messages",
    b'{"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]}',
    headers={"content-type": "application/json"},
)
ANSWER = HttpResponse(200, b"{}", (("content-type", "application/json"),))


def test_a_recording_cannot_be_written_outside_its_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wire named to leave ``out`` (an outside wire package's), or a link placed under
    ``out``, is said on stderr and not recorded; nothing lands outside."""
    import conformance._recording.proxy as proxy

    out = tmp_path / "a" / "b" / "out"
    monkeypatch.setattr(proxy, "wire_of", lambda request: "../../../escaped")
    recorder = proxy.Recorder(out, "test")
    recorder.add(REQUEST, ANSWER, "complete", None)
    recorder.close()
    assert _files(tmp_path) == []
    assert "not recorded" in capsys.readouterr().err
    assert len(recorder.refused) == 1

    monkeypatch.undo()
    outside = tmp_path / "outside"
    outside.mkdir()
    out.mkdir(parents=True)
    (out / "anthropic-messages").symlink_to(outside, target_is_directory=True)
    linked = proxy.Recorder(out, "test")
    linked.add(REQUEST, ANSWER, "complete", None)
    linked.close()
    assert _files(outside) == []
    assert linked.files == []
    assert len(linked.refused) == 1

    # The negative example: the same exchange is recorded under a plain ``out``.
    plain = proxy.Recorder(tmp_path / "plain", "test")
    plain.add(REQUEST, ANSWER, "complete", None)
    plain.close()
    assert [p.parent.name for p in _files(tmp_path / "plain")] == ["anthropic-messages"]


def test_an_imported_cassette_cannot_be_written_outside_its_root(tmp_path: Path) -> None:
    from conformance._recording.importing import _file_name

    out = tmp_path / "out"
    placed = _file_name(out, "anthropic-messages", Path("../../x/cas.yaml"), 1, 1)
    assert placed == out / "anthropic-messages" / "_" / "_" / "x" / "cas.json"
    with pytest.raises(UnsafePath):
        _file_name(out, "../escaped", Path("cas.yaml"), 1, 1)
