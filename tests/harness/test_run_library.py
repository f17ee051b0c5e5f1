"""``run_library.py`` says why when the run it started wrote no report (a usage error
such as an unknown ``--case``), instead of a traceback."""

from __future__ import annotations

import pytest

from harness.targets import run_library


def test_a_run_that_wrote_no_report_is_named_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = run_library.main(["langchain-anthropic", "--label", "t", "--case", "no-such-case"])
    assert status == 2
    err = capsys.readouterr().err
    assert "langchain-anthropic: the run wrote no report (exit 2)" in err
