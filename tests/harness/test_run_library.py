"""``run_library.py`` says why when the run it started wrote no report (a usage error
such as an unknown ``--case``), instead of a traceback."""

from __future__ import annotations

import pytest

from harness.targets import run_library
from harness.targets.libraries import LIBRARIES


def test_a_run_that_wrote_no_report_is_named_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = run_library.main(["langchain-anthropic", "--label", "t", "--case", "no-such-case"])
    assert status == 2
    err = capsys.readouterr().err
    assert "langchain-anthropic: the run wrote no report (exit 2)" in err


@pytest.mark.parametrize(("mode", "line"), [("process", "false"), ("session", "true")])
@pytest.mark.parametrize("name", ["litellm", "ai-sdk"])
def test_a_mode_overrides_the_manifests_session_line(name: str, mode: str, line: str) -> None:
    """``--mode`` runs a wrapper in the mode asked whatever its manifest says (both
    modes of one wrapper are compared on the whole library), beside the manifest."""
    library = LIBRARIES[name]
    written = run_library.mode_manifest(library, mode)
    try:
        original = (written.parent / "target.toml").read_text(encoding="utf-8").splitlines()
        lines = written.read_text(encoding="utf-8").splitlines()
        assert [x for x in lines if x.startswith("session")] == [f"session = {line}"]
        assert [x for x in lines if not x.startswith("session")] == [
            x for x in original if not x.startswith("session")
        ]
    finally:
        written.unlink()
