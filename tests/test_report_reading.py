"""One reader serves every command that reads a JSON report written earlier
(``report.reading``): ``report html``, ``report merge``, ``report diff`` and
``run --durations`` each say of a broken file the same thing, naming it, never a
traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance._cli import main
from conformance._report.reading import cell_verdicts, read_json, read_report
from conformance.errors import ReportFileError


@pytest.mark.parametrize(
    ("text", "said"),
    [("{not json", "not "), ("[" * 3000 + "]" * 3000, "nests 3000 levels deep")],
)
def test_every_report_command_reads_a_broken_file_alike(
    text: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(text, encoding="utf-8")
    for argv in (
        ["report", "html", str(broken)],
        ["report", "merge", str(broken), "-o", str(tmp_path / "merged.json")],
        ["report", "diff", str(broken), str(broken)],
        [
            "run",
            "-q",
            "--shard",
            "1/2",
            "--durations",
            str(broken),
            "--case",
            "refusal-context-reset",
        ],
    ):
        assert main(argv) != 0, argv
        printed = capsys.readouterr()
        assert f"{broken}: " in printed.out + printed.err, argv
        assert said in printed.out + printed.err, argv
        assert "Traceback" not in printed.out + printed.err


def test_the_reader_refuses_what_is_not_a_report_and_reads_what_is(tmp_path: Path) -> None:
    odd = tmp_path / "odd.json"
    odd.write_text('{"something": []}', encoding="utf-8")
    with pytest.raises(ReportFileError, match="neither a run report nor a replay report"):
        cell_verdicts(odd)
    with pytest.raises(ReportFileError, match="not a run report"):
        read_report(odd)
    with pytest.raises(ReportFileError, match=r"missing\.json"):
        read_json(tmp_path / "missing.json", "a JSON report")
    # The negative example: a minimal run report diffs.
    odd.write_text('{"results": [{"case": "c", "wire": "gemini", "verdict": "pass"}]}')
    assert cell_verdicts(odd) == {"c [gemini]": "pass"}
