"""Loading recordings: located errors for a cut, reordered, duplicated, edited or
secret-holding file; a file is never rewritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance._cli import main
from conformance._recording.load import bundled_recordings_dir, load_recording
from conformance.errors import RecordingError

SHIPPED = (
    bundled_recordings_dir() / "anthropic-messages" / "interleaved-episodes-across-tool-loop.json"
)


def _copy(tmp_path: Path, edit: object = None, text: str | None = None) -> Path:
    path = tmp_path / "rec.json"
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    if callable(edit):
        edit(data)
    path.write_text(text if text is not None else json.dumps(data), encoding="utf-8")
    return path


def test_a_shipped_recording_loads() -> None:
    recording = load_recording(SHIPPED)
    assert recording.metadata.synthetic
    assert recording.metadata.wire == "anthropic-messages"


def test_a_cut_file_names_line_and_column(tmp_path: Path) -> None:
    path = _copy(tmp_path, text=SHIPPED.read_text(encoding="utf-8")[:5000])
    with pytest.raises(RecordingError, match=r"line \d+ column \d+: not JSON"):
        load_recording(path)


def test_reordered_exchanges_are_refused(tmp_path: Path) -> None:
    path = _copy(tmp_path, lambda d: d["exchanges"].reverse())
    with pytest.raises(RecordingError, match=r"exchanges\.0: number 4 where 1 was due"):
        load_recording(path)


def test_a_duplicated_exchange_is_refused(tmp_path: Path) -> None:
    path = _copy(tmp_path, lambda d: d["exchanges"].insert(1, d["exchanges"][0]))
    with pytest.raises(RecordingError, match=r"exchanges\.1: number 1 where 2 was due"):
        load_recording(path)


def test_a_hand_edited_recording_is_refused(tmp_path: Path) -> None:
    def edit(data: dict[str, list[dict[str, dict[str, object]]]]) -> None:
        data["exchanges"][0]["response"]["status"] = 200
        data["exchanges"][0]["request"]["path"] = "/v1/messages?edited"

    path = _copy(tmp_path, edit)
    with pytest.raises(RecordingError, match="digest: the exchanges do not match"):
        load_recording(path)


def test_a_recording_holding_a_secret_is_refused(tmp_path: Path) -> None:
    from conformance._recording.file_format import Recording, digest_of

    recording = load_recording(SHIPPED)
    first = recording.exchanges[0]
    leaky = first.model_copy(
        update={"request": first.request.model_copy(update={"headers": {"x-api-key": "k" * 30}})}
    )
    exchanges = (leaky, *recording.exchanges[1:])
    bad = Recording(metadata=recording.metadata, exchanges=exchanges, digest=digest_of(exchanges))
    path = tmp_path / "leak.json"
    path.write_text(bad.to_json(), encoding="utf-8")
    with pytest.raises(
        RecordingError, match=r"exchanges\.0\.request\.headers\.x-api-key: holds a credential"
    ):
        load_recording(path)


def test_an_unknown_wire_is_named(tmp_path: Path) -> None:
    path = _copy(tmp_path, lambda d: d["metadata"].update(wire="carrier-pigeon"))
    with pytest.raises(RecordingError, match=r"metadata\.wire: unknown wire carrier-pigeon"):
        load_recording(path)


def test_one_broken_file_among_good_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    good.write_bytes(SHIPPED.read_bytes())
    broken = tmp_path / "broken.json"
    broken.write_text(SHIPPED.read_text(encoding="utf-8")[:3000], encoding="utf-8")
    before = broken.read_bytes()
    report = tmp_path / "replay.json"
    code = main(["replay", str(tmp_path), "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 1
    where = tmp_path.name
    assert f"ERROR {where}/broken.json" in out
    assert f"PASS  {where}/good.json" in out
    statuses = {r["file"]: r["status"] for r in json.loads(report.read_text())["recordings"]}
    assert statuses == {f"{where}/broken.json": "error", f"{where}/good.json": "pass"}
    assert broken.read_bytes() == before  # never rewritten in place


def test_schema_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recording", "--schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "wire-conformance recording"
    assert "exchanges" in schema["properties"]
