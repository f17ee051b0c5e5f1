"""``wire-conformance probe``: exit codes, reports, the control, interruptions."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest

from conformance._cli import main
from tests.probe.toy import CATALOGUE, SPEC, importable, tree, write_toy

REPO = Path(__file__).resolve().parents[2]


def test_schema_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "--schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "wire-conformance probe catalogue"


def test_a_users_catalogue_runs_and_writes_its_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalogue = write_toy(tmp_path)
    before = tree(tmp_path, caches=True)
    with importable(tmp_path):
        code = main(
            [
                "probe",
                "--target",
                SPEC,
                "--probes",
                str(catalogue),
                "--json",
                str(tmp_path / "r.json"),
                "--markdown",
                str(tmp_path / "r.md"),
            ]
        )
    out = capsys.readouterr().out
    assert code == 0, out
    # the mutants were live in this process only: the tree holds the reports, nothing else
    assert tree(tmp_path, caches=True) == {
        **before,
        "r.json": (tmp_path / "r.json").read_bytes(),
        "r.md": (tmp_path / "r.md").read_bytes(),
    }
    assert "pick-last-even-if-empty  killed    empty-terminal-output-last-nonempty-text" in out
    report = json.loads((tmp_path / "r.json").read_text())
    assert (report["format"], report["version"]) == ("wire-conformance-probes", 2)
    assert report["summary"]["ok"] is True
    assert [m["verdict"] for m in report["mutants"]] == ["killed", "killed"]
    assert "| `pick-first` | `toyadapter/pick.py` | killed |" in (tmp_path / "r.md").read_text()


def test_a_survivor_or_an_invalid_probe_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalogue = write_toy(tmp_path)
    catalogue.write_text(
        CATALOGUE.replace('replace: "iter(texts)"', 'replace: "reversed(list(texts))"')
        + "  - {id: twice, path: toyadapter/pick.py, find: t, replace: u, note: n}\n"
    )
    with importable(tmp_path):
        code = main(
            [
                "probe",
                "--target",
                SPEC,
                "--probes",
                str(catalogue),
                "--junit",
                str(tmp_path / "r.xml"),
            ]
        )
    out = capsys.readouterr().out
    assert code == 1
    junit = ElementTree.parse(tmp_path / "r.xml").getroot()
    assert (junit.get("tests"), junit.get("failures")) == ("3", "2")
    failed = {c.get("name"): c.find("failure") for c in junit.iter("testcase")}
    assert failed["pick-last-even-if-empty"] is None
    assert failed["pick-first"] is not None
    assert failed["pick-first"].get("message") == "survived"
    assert "PROBLEM pick-first: survived" in out
    assert "PROBLEM twice: invalid: `find` matches" in out


def test_a_target_red_before_any_mutant_stops_and_names_the_cells(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        [
            "probe",
            "--target",
            "harness.broken.merge_episodes:MergeEpisodesAdapter",
            "--probes",
            str(REPO / "conformance/_probe/reference.yaml"),
            "--case",
            "gemini-back-to-back-*",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("the unmutated target fails; no mutant was run. Failing cells:")
    assert "gemini-back-to-back-signed-thoughts-split[gemini] fail" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--target", "cmd:true", "--probes", "/dev/null"], "/dev/null: a catalogue is a mapping"),
        (["--target", "harness.broken.merge_episodes:MergeEpisodesAdapter"], "--probes FILE"),
        (["--probes", "/nonexistent.yaml"], "/nonexistent.yaml: No such file"),
    ],
)
def test_usage_errors_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["probe", *argv]) == 2
    assert message in capsys.readouterr().err


#: A probe whose mutant (``toy.hold``) holds its cell once it is live.
HOLDING = """\
  - id: hold
    path: toyadapter/pick.py
    find: "return next((t for t in reversed(texts) if t.strip()), None)"
    replace: 'return __import__("tests.probe.toy", fromlist=["hold"]).hold("MARKER")'
    note: the output rule never returns
"""


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_leaves_the_tree_byte_identical(
    tmp_path: Path, signum: signal.Signals
) -> None:
    """A signal while a mutant is live (its code swapped into the running target) ends
    the run with 128 + the signal and leaves the tree as it found it.  The mutant says
    when it is live (a file outside the tree) and holds its cell until the signal, so the
    signal lands mid-probe on any machine at any load: no delay to guess."""
    root = tmp_path / "root"
    marker = tmp_path / "live"
    catalogue = write_toy(root)
    catalogue.write_text(
        CATALOGUE.split("probes:\n")[0] + "probes:\n" + HOLDING.replace("MARKER", str(marker))
    )
    before = tree(root, caches=True)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": f"{root}:{REPO}"}
    command = [sys.executable, "-m", "conformance", "probe", "--target", SPEC]
    command += ["--probes", str(catalogue), "--all-killers", "-q"]
    process = subprocess.Popen(
        command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 300  # a hang guard, not a budget
        while not marker.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), process.poll()
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 128 + signum, err
    assert tree(root, caches=True) == before


MANIFEST = """\
name = "toy-command"
kind = "command"
command = '"$CONFORMANCE_PYTHON" -m conformance.agent toyadapter.adapter:ToyAdapter'
env = { PYTHONPATH = "." }
wires = ["anthropic-messages", "openai-chat"]
capabilities = ["history", "output-selection", "xml-recovery", "pause-resume"]
build = "test -f toyadapter/pick.py && echo built > BUILT"
"""


#: The manifest as a session (contract v2): one process per worker and mutant instead of
#: one per cell, several times cheaper.
SESSION_MANIFEST = MANIFEST.replace("build = ", "contract = 2\nsession = true\nbuild = ")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("jobs", "manifest"), [("1", SESSION_MANIFEST), ("3", MANIFEST)], ids=["1-session", "3"]
)
def test_a_command_target_is_probed_in_a_scratch_copy_of_its_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str, manifest: str
) -> None:
    """In both modes: a process per cell (contract v1) and a session."""
    catalogue = write_toy(tmp_path)
    catalogue.write_text(CATALOGUE.replace('"chat-empty-final-message-*"', ""))
    (tmp_path / "toy.toml").write_text(manifest)
    before = tree(tmp_path, caches=True)
    code = main(
        [
            "probe",
            "--target",
            str(tmp_path / "toy.toml"),
            "--probes",
            str(catalogue),
            "--json",
            str(tmp_path.parent / "command.json"),
            "-j",
            jobs,
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    report = json.loads((tmp_path.parent / "command.json").read_text())
    assert [m["verdict"] for m in report["mutants"]] == ["killed", "killed"]
    # the same killers at -j 1 and -j 3: the expected killer first, stopping there
    assert report["mutants"][0]["killers"][0]["case"] == "empty-terminal-output-last-nonempty-text"
    assert tree(tmp_path, caches=True) == before  # no BUILT file, no mutant, no cache


@pytest.mark.slow
def test_a_failing_build_makes_the_probe_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalogue = write_toy(tmp_path)
    (tmp_path / "toy.toml").write_text(
        MANIFEST.replace('build = "test -f', 'build = "echo no compiler >&2; exit 3; test -f')
    )
    code = main(
        [
            "probe",
            "--target",
            str(tmp_path / "toy.toml"),
            "--probes",
            str(catalogue),
            "--case",
            "empty-terminal-output-last-nonempty-text",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "invalid   the build failed (exit 3): no compiler" in out


def test_the_progress_line_counts_and_estimates() -> None:
    import time as clock

    from conformance._probe.command import progress_line
    from conformance._probe.verdicts import MutantResult

    done = [
        MutantResult(id="a", where="m", note="n", verdict="killed"),
        MutantResult(id="b", where="m", note="n", verdict="survived"),
    ]
    line = progress_line(done, 4, clock.monotonic() - 2.0)
    assert line.startswith("2/4 mutants, 1 killed, 1 survived, ETA 2 s")


def test_case_narrows_the_catalogues_selection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalogue = write_toy(tmp_path)
    with importable(tmp_path):
        code = main(
            [
                "probe",
                "--target",
                SPEC,
                "--probes",
                str(catalogue),
                "--case",
                "chat-empty-*",
                "--case",
                "refusal-*",
                "--json",
                str(tmp_path / "r.json"),
            ]
        )
    capsys.readouterr()
    report = json.loads((tmp_path / "r.json").read_text())
    assert code == 1  # the expected killer is outside the selection: unmet
    assert report["control"]["cells"] == 7  # chat-empty-final-message-* only (2 cases, 7 cells)
