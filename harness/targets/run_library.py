"""Run the suite on one real library and keep the result for ``REPORT.md``.

``python harness/targets/run_library.py LIBRARY`` (what each tox env runs) runs
``wire-conformance run`` on ``harness/targets/LIBRARY/target.toml`` with the Python it is
started with, writes the JSON report to ``harness/targets/results/LIBRARY-VERSION.json``
and a timing file beside it, prints the wall time and the cost per cell, and exits with
the run's status. ``--baseline-python PY`` adds an A/B run: the same manifest on another
interpreter (an older release of the library) as ``--baseline``.  ``--mode process`` or
``--mode session`` runs the manifest in that mode whatever its ``session`` line says, so
both modes of one wrapper can be compared on the whole library.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from harness.targets.libraries import LIBRARIES, Library

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def installed_version(library: Library, python: str, env: dict[str, str]) -> str:
    """The version of the library the run drives, asked of the interpreter (or Node)."""
    if library.node_package:
        home = env.get(library.home_variable or "", "")
        package = Path(home, "node_modules", *library.node_package.split("/"), "package.json")
        try:
            return str(json.loads(package.read_text(encoding="utf-8"))["version"])
        except (OSError, ValueError, KeyError):
            return "not-installed"
    probe = (
        "from importlib.metadata import version as v\n"
        f"try: print(v({library.distribution!r}))\n"
        "except Exception: print('not-installed')\n"
    )
    done = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "not-installed"


def baseline_manifest(library: Library, baseline: str) -> Path:
    """The library's manifest, renamed and pointed at the older release: run by the
    interpreter ``baseline`` (Python), or with its home variable set to it (Node)."""
    source = HERE / library.name / "target.toml"
    text = source.read_text(encoding="utf-8")
    text = text.replace(f'name = "{library.name}"', f'name = "{library.name}-baseline"', 1)
    # Pins name the defects of the pinned release; the older one is judged without them.
    text = text[: text.index("[pins]")] + "[pins]\n" if "[pins]" in text else text
    if library.home_variable:
        variable = json.dumps(library.home_variable)
        text = text.replace(
            "[pins]", f"env = {{ {variable} = {json.dumps(baseline)} }}\n\n[pins]", 1
        )
    else:
        text = text.replace('"$CONFORMANCE_PYTHON"', json.dumps(baseline))
    target = HERE / library.name / ".baseline-target.toml"
    target.write_text(text, encoding="utf-8")
    return target


def mode_manifest(library: Library, mode: str) -> Path:
    """The library's manifest with its ``session`` line set for ``mode`` (``session``: one
    process holds many cells; ``process``: one process per cell), beside the original
    so the command's relative paths still hold."""
    source = HERE / library.name / "target.toml"
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    lines = [line for line in lines if not line.startswith("session =")]
    at = next(i for i, line in enumerate(lines) if line.startswith("contract ="))
    lines.insert(at + 1, f"session = {'true' if mode == 'session' else 'false'}\n")
    target = HERE / library.name / f".{mode}-target.toml"
    target.write_text("".join(lines), encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("library", choices=sorted(LIBRARIES))
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument(
        "--baseline",
        help="the older release for an A/B run: its Python interpreter, or for a Node "
        "library the folder whose node_modules holds it",
    )
    parser.add_argument(
        "--label", default="", help="added to the result's name: a run of part of the plan"
    )
    parser.add_argument(
        "--mode",
        choices=("manifest", "process", "session"),
        default="manifest",
        help="run the command once per cell (process) or as a session, whatever the "
        "manifest says (default: as the manifest says)",
    )
    options, rest = parser.parse_known_args(argv)  # the rest goes to `run` as it is
    library = LIBRARIES[options.library]
    env = dict(os.environ)
    version = installed_version(library, sys.executable, env)
    if version == "not-installed":
        print(f"{library.name}: {library.install_hint} is not installed here", file=sys.stderr)
    RESULTS.mkdir(exist_ok=True)
    stem = f"{library.name}-{version}" + (f"-{options.label}" if options.label else "")
    manifest = HERE / library.name / "target.toml"
    if options.mode != "manifest":
        manifest = mode_manifest(library, options.mode)
    command = [
        sys.executable, "-m", "conformance", "run",
        "--target", str(manifest),
        "-j", str(options.jobs), "--format", "list", "--json", str(RESULTS / f"{stem}.json"),
    ]  # fmt: skip
    old = None
    if options.baseline:
        old_env = {**env, library.home_variable or "": options.baseline}
        old = installed_version(library, options.baseline, old_env)
        command += [
            "--baseline",
            str(baseline_manifest(library, options.baseline)),
            "--ab-json",
            str(RESULTS / f"{stem}-vs-{old}.json"),
        ]
    command += rest
    started = time.monotonic()
    status = subprocess.run(command, env=env, check=False).returncode
    wall = time.monotonic() - started
    report_path = RESULTS / f"{stem}.json"
    if not report_path.is_file():  # a usage error (an unknown --case): run said why
        print(f"{library.name}: the run wrote no report (exit {status})", file=sys.stderr)
        return status or 2
    report = json.loads(report_path.read_text(encoding="utf-8"))
    ran = sum(1 for r in report["results"] if r["verdict"] != "n/a")
    per_cell = wall / ran if ran else 0.0
    timing = {"library": library.name, "version": version, "wall_seconds": round(wall, 1),
              "cells_run": ran, "cells": len(report["results"]), "jobs": options.jobs,
              "seconds_per_cell": round(per_cell, 2), "mode": options.mode,
              # An A/B run's wall covers the baseline's run too: not the library's figure.
              **({"baseline": old} if old else {}),
              # Orders a version's runs in REPORT.md: a later run's cells override.
              "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}  # fmt: skip
    (RESULTS / f"{stem}.timing.json").write_text(json.dumps(timing, indent=2) + "\n")
    both = f", with the baseline {old}'s run" if old else ""
    print(f"{library.name} {version}: wall {wall:.1f} s for {ran} cells run "
          f"(-j {options.jobs}{both}), {per_cell:.2f} s per cell")  # fmt: skip
    return status


if __name__ == "__main__":
    raise SystemExit(main())
