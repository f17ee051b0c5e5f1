"""The extension points, proved by a distribution outside the suite (``outside_package/``:
a toy wire, a case pack of two cases, one rule, two named targets): pip installs it into
a temporary directory, and every face of the suite run from a subprocess with that
directory on its path sees the wire, its cases and its rule, which refuses a target
that forgets its tokens.  Nothing in ``conformance/`` names the toy wire."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import conformance

#: One worker holds the module, so its module fixture is built once (``--dist loadgroup``).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("outside-package")]

OUTSIDE = Path(__file__).parent / "outside_package"
#: The directory ``conformance`` is imported from, so the subprocesses run this tree.
ROOT = Path(conformance.__file__).resolve().parents[1]
CASES = ("toy-echo-token-replayed", "toy-echo-two-tokens-in-order")
RULE = "toy-echo/token-minted"


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a Python that has the outside distribution installed: pip
    installs a copy of it (its build writes beside its source) into a target directory."""
    work = tmp_path_factory.mktemp("outside")
    source = work / "source"
    shutil.copytree(OUTSIDE, source, ignore=shutil.ignore_patterns("__pycache__"))
    site = work / "site"
    pip = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation"]
    pip += ["--no-index", "--disable-pip-version-check", "--quiet", "--target", str(site)]
    subprocess.run([*pip, str(source)], check=True, capture_output=True)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    environ["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    return environ


def suite(environ: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "conformance", *args]
    return subprocess.run(command, env=environ, cwd=cwd, capture_output=True, text=True)


def test_checks_lists_the_toy_wires_rule(environment: dict[str, str], tmp_path: Path) -> None:
    listed = suite(environment, "checks", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert RULE in listed.stdout


def test_cases_lint_reads_the_case_pack(environment: dict[str, str], tmp_path: Path) -> None:
    linted = suite(environment, "cases", "--lint", cwd=tmp_path)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    listed = suite(environment, "cases", cwd=tmp_path)
    assert all(case in listed.stdout for case in CASES), listed.stdout


def test_run_holds_the_toy_wire_and_its_rule_refuses_a_forgetful_target(
    environment: dict[str, str], tmp_path: Path
) -> None:
    verdicts: dict[str, dict[str, str]] = {}
    for target in ("toy-echo-client", "toy-echo-forgetful"):
        report = tmp_path / f"{target}.json"
        args = ("run", "--target", target, "--wire", "toy-echo", "--json", str(report))
        ran = suite(environment, *args, cwd=tmp_path)
        assert report.is_file(), ran.stdout + ran.stderr
        results = json.loads(report.read_text(encoding="utf-8"))["results"]
        verdicts[target] = {r["case"]: r["verdict"] for r in results}
        if target == "toy-echo-forgetful":
            assert RULE in report.read_text(encoding="utf-8")
    assert verdicts == {
        "toy-echo-client": dict.fromkeys(CASES, "pass"),
        "toy-echo-forgetful": dict.fromkeys(CASES, "fail"),
    }


def test_the_pytest_plugin_collects_the_toy_wires_cells(
    environment: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "test_toy.py").write_text(
        "from conformance import ConformanceSuite\n\n\n"
        "class TestToy(ConformanceSuite):\n"
        '    target = "toy-echo-client"\n'
        '    wires = ("toy-echo",)\n'
        "    snapshot_dir = None\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-p", "no:xdist"]
    ran = subprocess.run(command, env=environment, cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "2 passed" in ran.stdout, ran.stdout


def test_nothing_in_the_package_names_the_toy_wire() -> None:
    named = [
        path.relative_to(ROOT)
        for path in (ROOT / "conformance").rglob("*")
        if path.is_file() and path.suffix in {".py", ".yaml", ".txt", ".toml"}
        for text in [path.read_text(encoding="utf-8", errors="replace")]
        if "toy-echo" in text or "toy_wire_pack" in text
    ]
    assert named == []
