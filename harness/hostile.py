"""Every hostile input at once: build them in a temporary folder and run the suite on them.

    python -m harness.hostile

Each step runs the command line in a child process and prints its figures, never
asserted: the exit status, the wall time, the child's peak RSS (``wait4``: the suite's
process and the children it reaped), and what was left behind: files in the step's own
``TMPDIR`` and live processes carrying the step's token (the harness then ends them).
"left behind: nothing" is the figure every step must show.  What it builds:

* a case folder with an alias bomb, a case nested 900 levels deep, a FIFO, a dangling
  and a looping ``*.yaml`` link and a linked family folder;
* a deeply nested SSE body for ``decode``;
* a command target that prints 30 MB, leaves a ``setsid`` grandchild behind, and sends a
  deeply nested body, a body above the 32 MiB cap and a request with malformed framing;
* a 95 000-event scripted stream held by the reference adapter (a case file expands to
  at most 100 000 values; ``tests/test_fault_injection.py`` holds a 300 000-event
  stream built in memory);
* through ``record`` from a loopback upstream (``harness.hostile_recording``): secrets in
  every position the sanitizer used to miss, an answer above the 64 MiB cap, and a
  48 MiB answer recorded and replayed, each with its peak RSS and CPU time.
* issue 24: a ``setsid env -i`` grandchild holding the output pipes; a probe scratch
  copy of a folder with a FIFO and ``TMPDIR`` inside it; SIGTERM to ``run`` (the reports
  say incomplete), ``replay``, ``record``, ``generate``, a pytest session, and during the
  imports; an in-process target calling ``os._exit(0)``; headers that never finish; a
  chunk size of 2^80; a 0-byte snapshot; a dangling link and a newline in a recording's
  name; a target that loops through 10 000 requests (the report's size).

Each line says what the suite answered (``check:``) besides the figures.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

AGENT = r"""
import os, socket, subprocess, sys, urllib.error, urllib.request
base = os.environ["ANTHROPIC_BASE_URL"]
sys.stdout.write("x" * 30_000_000 + "\n")
subprocess.Popen(["setsid", "sleep", "300"], start_new_session=True)
def post(body):
    request = urllib.request.Request(base + "/v1/messages", data=body, method="POST")
    try:
        urllib.request.urlopen(request).read()
    except urllib.error.HTTPError as error:
        print(error.code, error.read()[:120], file=sys.stderr)
post(b'{"messages":' + b"[" * 5000 + b"]" * 5000 + b"}")
post(b" " * (17 * 1024 * 1024))
host, port = base.removeprefix("http://").split(":")
with socket.create_connection((host, int(port))) as raw:
    raw.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n")
    print(raw.recv(200)[:40], file=sys.stderr)
"""


def hostile_cases(folder: Path) -> Path:
    cases = folder / "cases"
    family = cases / "family"
    family.mkdir(parents=True)
    rows = ['a: &a ["x","x","x","x","x","x","x","x","x"]'] + [
        f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]"
        for p, n in zip("abcdefgh", "bcdefghi", strict=True)
    ]
    (family / "bomb.yaml").write_text("\n".join(rows) + "\n")
    (family / "deep.yaml").write_text("id: deep\ngiven: " + "[" * 900 + "]" * 900 + "\n")
    os.mkfifo(family / "pipe.yaml")
    (family / "dangling.yaml").symlink_to(folder / "nowhere.yaml")
    (family / "loop-a.yaml").symlink_to(family / "loop-b.yaml")
    (family / "loop-b.yaml").symlink_to(family / "loop-a.yaml")
    elsewhere = folder / "elsewhere"
    elsewhere.mkdir()
    (cases / "linked").symlink_to(elsewhere, target_is_directory=True)
    return cases


def huge_stream_cases(folder: Path, events: int = 95_000) -> Path:
    cases = folder / "stream-cases" / "split-signatures"
    cases.mkdir(parents=True)
    chunks = ", ".join(["1"] * events)
    (cases / "huge-stream.yaml").write_text(
        f"""id: huge-stream
title: One answer streamed as {events} one-character deltas
provenance: [{{rule: 1}}]
features: [split-signatures]
wires:
  anthropic-messages: Text deltas are streamed one event each.
given:
  turns:
    - user: Say x many times
      responses:
        - stop: end
          blocks: [{{kind: text, text: "{"x" * events}", chunks: [{chunks}]}}]
expect:
  - requests: 1
"""
    )
    return cases.parent


@dataclass
class Figures:
    """What one step cost and left behind."""

    status: int
    seconds: float
    peak_mb: float
    left: list[str]
    output: str
    cpu_seconds: float = 0.0  # the child's and its reaped children's user + system time


#: This checkout, first on the children's path (the installed package may be another).
CHECKOUT = str(Path(__file__).resolve().parents[1])


def _token_processes(token: str) -> list[int]:
    """Live processes whose command line or environment carries ``token``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            seen = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
        except (OSError, IndexError):
            continue
        if token.encode() in seen and state not in "ZX":
            found.append(int(entry.name))
    return found


def measure(
    argv: list[str],
    token: str,
    *,
    cwd: Path | None = None,
    send: signal.Signals | None = None,
    when: Callable[[Path, str], bool] | None = None,
    timeout: float = 600,
    extra: dict[str, str] | None = None,
) -> Figures:
    """Run ``argv`` with its own ``TMPDIR``; ``send`` the signal once ``when(tmpdir,
    output so far)`` holds.  A child still running after ``timeout`` s is killed (HUNG)."""
    tmp = Path(tempfile.mkdtemp(prefix="hostile-tmp-"))
    log = tmp.parent / f"{tmp.name}.log"
    path = os.pathsep.join(p for p in (CHECKOUT, os.environ.get("PYTHONPATH")) if p)
    environment = {**os.environ, "PYTHONPATH": path, "TMPDIR": str(tmp), "HOSTILE": token}
    environment.update(extra or {})
    start = time.monotonic()
    with log.open("wb") as out:
        child = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, env=environment, cwd=cwd
        )
    pending = send
    hung = False
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if pending is not None and when is not None and when(tmp, log.read_text(errors="replace")):
            child.send_signal(pending)
            pending = None
        if time.monotonic() - start > timeout:
            child.kill()
            hung = True
        time.sleep(0.05)
    seconds = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    left = [f"file {p.relative_to(tmp)}" for p in sorted(tmp.rglob("*"))]
    for pid in _token_processes(token):
        left.append(f"process {pid}")
        os.kill(pid, signal.SIGKILL)
    if hung:
        left.append("HUNG: killed after the harness's timeout")
    output = log.read_text(errors="replace")
    log.unlink()
    subprocess.run(["rm", "-rf", str(tmp)], check=False)
    cpu = usage.ru_utime + usage.ru_stime
    return Figures(child.returncode, seconds, usage.ru_maxrss / 1024, left, output, cpu)


def show(name: str, figures: Figures, check: str = "") -> None:
    left = ", ".join(figures.left[:5]) or "nothing"
    print(
        f"{name}: exit {figures.status} in {figures.seconds:.1f} s "
        f"(cpu {figures.cpu_seconds:.1f} s), peak RSS {figures.peak_mb:.0f} MB, "
        f"left behind: {left}"
    )
    if check:
        print(f"    check: {check}")
    else:
        for line in figures.output.strip().splitlines()[-2:]:
            print(f"    {line[:160]}")


def step(name: str, argv: list[str]) -> None:
    token = f"hostile-{os.getpid()}-{time.monotonic_ns()}"
    show(name, measure(argv, token))


def started(tmp: Path, output: str) -> bool:
    """A command target's scratch folder exists: its slow command runs."""
    return any(tmp.iterdir())


def cells(report: Path) -> list[dict[str, Any]]:
    try:
        return list(json.loads(report.read_text())["results"])
    except (OSError, ValueError, KeyError):
        return []


def judged(report: Path) -> str:
    """The first judged cell of a run report: its verdict and the first line of why."""
    for cell in cells(report):
        if cell["verdict"] != "n/a":
            violations = cell.get("violations") or [{}]
            why = cell.get("reason") or violations[0].get("message")
            return f"{cell['verdict']}: {str(why).splitlines()[0][:110]}"
    return "no judged cell (no report?)"


def recording_steps(folder: Path) -> None:
    """Issue 24's recording classes: secrets in every position through ``record`` (none
    may reach disk), an answer above the 64 MiB cap (streamed on, not recorded, memory
    bounded), and one below it recorded and replayed."""
    suite = [sys.executable, "-m", "conformance"]
    hostile = [sys.executable, "-m", "harness.hostile_recording"]
    step("record: secrets in every position", [*hostile, "secrets", str(folder / "sec")])
    step(
        "record: a 100 MiB answer (above the cap)", [*hostile, "answer", "100", str(folder / "big")]
    )
    step("record: a 48 MiB answer", [*hostile, "answer", "48", str(folder / "answer")])
    step(
        "replay: the 48 MiB answer",
        [*suite, "replay", "--timeout", "300", str(folder / "answer")],
    )


def main() -> None:
    suite = [sys.executable, "-m", "conformance"]
    with tempfile.TemporaryDirectory(prefix="conformance-hostile-") as scratch:
        folder = Path(scratch)
        cases = hostile_cases(folder)
        step("hostile case files", [*suite, "cases", "--lint", "--cases", str(cases)])
        deep = folder / "deep.sse"
        deep.write_text("event: message_start\ndata: " + '{"a":' * 5000 + "1" + "}" * 5000)
        step("deep SSE decode", [*suite, "decode", "--wire", "anthropic-messages", str(deep)])
        agent = folder / "agent.py"
        agent.write_text(AGENT)
        command = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(agent))}"
        step(
            "hostile command target",
            [
                *suite,
                *("run", "-q", "--target", command, "--wire", "anthropic-messages"),
                *("--case", "xml-*", "--timeout", "20", "--json", str(folder / "r" / "r.json")),
            ],
        )
        stream = huge_stream_cases(folder)
        step(
            "95k-event stream",
            [*suite, "run", "-q", "--cases", str(stream), "--case", "huge-stream"],
        )
        recording_steps(folder)
        issue_24(folder, suite)


PARTIAL_HEADERS = """
import os, socket, time
host, port = os.environ["ANTHROPIC_BASE_URL"].removeprefix("http://").split(":")
raw = socket.create_connection((host, int(port)))
raw.sendall(HEAD)
time.sleep(300)
"""

#: A target that sends malformed requests in a loop (``looping(count)``): what floods a
#: report with violations.
_LOOPING = """
import os, urllib.error, urllib.request
for n in range({count}):
    request = urllib.request.Request(
        os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", data=b'{"model": 1}', method="POST"
    )
    try:
        urllib.request.urlopen(request).read()
    except urllib.error.HTTPError as error:
        error.read()
"""


def looping(count: int) -> str:
    """The looping target's source, sending ``count`` malformed requests."""
    return _LOOPING.replace("{count}", str(count))


HARD_EXIT = """
import os
from conformance import Adapter


class HardExit(Adapter):
    name = "hard-exit"
    wires = frozenset({"anthropic-messages"})

    def open(self, session):
        os._exit(0)
"""

SCRATCH_COPY = """
import os, sys, tempfile
from pathlib import Path
from conformance._probe.scratch_root import scratch_copy
root = Path(sys.argv[1])
with scratch_copy(root) as copy:
    print("copied:", sorted(str(p.relative_to(copy)) for p in copy.rglob("*")))
"""

SELF_SIGNAL = """
import importlib.abc, os, signal, sys

class Signal(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "conformance._cli":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGTERM)
        return None

sys.meta_path.insert(0, Signal())
from conformance.__main__ import main
sys.exit(main(sys.argv[1:]))
"""

PYTEST_SUITE = """
from conformance.pytest._suite import ConformanceSuite

class TestSlow(ConformanceSuite):
    target = "cmd:sleep 60; : TOKEN"
    case_patterns = ("xml-*",)
    wires = ("anthropic-messages",)
"""

ONE_CELL = ("--wire", "anthropic-messages", "--case", "xml-structured-call-preferred")


def one_cell(suite: list[str], target: str, *more: str) -> list[str]:
    """``run`` of the one cell the issue-24 steps use, on ``target``."""
    return [*suite, "run", "-q", "--target", target, *ONE_CELL, *more]


def command_of(path: Path) -> str:
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def issue_24(folder: Path, suite: list[str]) -> None:
    """The classes of issue 24 this pass fixed, each with its figures."""
    token = f"hostile24-{os.getpid()}"
    report = folder / "24.json"

    holder = f"cmd:setsid env -i sh -c 'sleep 300; : {token}-holder'"
    figures = measure(
        one_cell(suite, holder, "--timeout", "10", "--json", str(report)),
        f"{token}-holder",
    )
    show("setsid env -i holding the pipes", figures, judged(report))

    target = folder / "target"
    (target / "src").mkdir(parents=True)
    (target / "src" / "agent.py").write_text("print('hi')\n")
    os.mkfifo(target / "src" / "pipe")
    (target / "tmp").mkdir()
    script = folder / "scratch_copy.py"
    script.write_text(SCRATCH_COPY)
    # measure() gives the child a TMPDIR of its own; the copy's is inside the target:
    figures = measure(
        ["env", f"TMPDIR={target / 'tmp'}", sys.executable, str(script), str(target)],
        f"{token}-copy",
    )
    inside = sorted(p.name for p in (target / "tmp").iterdir())
    show(
        "probe scratch copy: a FIFO, TMPDIR inside",
        figures,
        f"{figures.output.strip().splitlines()[-1][:110]}; left in the target's tmp: {inside}",
    )

    slow = f"cmd:sleep 60; : {token}-slow"
    junit = folder / "24.xml"
    figures = measure(
        one_cell(suite, slow, "--json", str(report), "--junit", str(junit)),
        f"{token}-slow",
        send=signal.SIGTERM,
        when=started,
    )
    incomplete = json.loads(report.read_text()).get("incomplete", "(not said)")
    show("SIGTERM to run", figures, f"report incomplete: {incomplete}")

    for name, argv in (
        ("replay", [*suite, "replay", "--target", slow]),
        ("generate", [*suite, "generate", "--target", slow, "--examples", "1"]),
    ):
        # from the scratch folder: generate keeps its example database in the cwd
        figures = measure(argv, f"{token}-slow", cwd=folder, send=signal.SIGTERM, when=started)
        show(f"SIGTERM to {name}", figures)

    figures = measure(
        [*suite, "record", "--upstream", "http://127.0.0.1:9", "--out", str(folder / "rec")],
        f"{token}-record",
        send=signal.SIGTERM,
        when=lambda tmp, output: output.startswith("recording "),
    )
    show("SIGTERM to record", figures)

    script = folder / "self_signal.py"
    script.write_text(SELF_SIGNAL)
    figures = measure([sys.executable, str(script), "run", "-q"], f"{token}-import")
    show("SIGTERM while the command line is imported", figures)

    project = folder / "pytest-project"
    project.mkdir()
    (project / "test_slow.py").write_text(PYTEST_SUITE.replace("TOKEN", f"{token}-pytest"))
    figures = measure(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_slow.py"],
        f"{token}-pytest",
        cwd=project,
        send=signal.SIGTERM,
        when=started,
    )
    show("SIGTERM to a pytest session", figures)

    module = folder / "modules"
    module.mkdir()
    (module / "hostile_exit.py").write_text(HARD_EXIT)
    figures = measure(
        one_cell(suite, "hostile_exit:HardExit", "--json", str(report)),
        f"{token}-exit",
        cwd=module,
    )
    show("in-process os._exit(0)", figures, judged(report))

    for name, head in (
        ("headers that never finish", b"POST /v1/messages HTTP/1.1\r\nHost: x\r\n"),
        (
            "chunk size 2^80",
            b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + format(2**80, "x").encode()
            + b"\r\nab",
        ),
    ):
        agent = folder / "partial.py"
        agent.write_text(PARTIAL_HEADERS.replace("HEAD", repr(head)))
        figures = measure(
            one_cell(suite, command_of(agent), "--timeout", "5", "--json", str(report)),
            f"{token}-partial",
        )
        show(name, figures, judged(report))

    snapshots = folder / "snaps"
    slot = snapshots / "reference" / "anthropic-messages" / "xml-structured-call-preferred.json"
    slot.parent.mkdir(parents=True)
    slot.write_bytes(b"")
    figures = measure(
        [*suite, "run", "-q", *ONE_CELL, "--snapshots", str(snapshots), "--json", str(report)],
        f"{token}-snapshot",
    )
    diff = next((c.get("snapshot_diff") for c in cells(report)), None) or "(none)"
    show("0-byte snapshot", figures, diff.replace(str(folder), "<tmp>")[:140])

    recordings = folder / "recs"
    recordings.mkdir()
    source = sorted((Path(CHECKOUT) / "recordings").rglob("*.json"))[0]
    (recordings / "evil\nname.json").write_bytes(source.read_bytes())
    (recordings / "gone.json").symlink_to(folder / "nowhere.json")
    figures = measure([*suite, "recording", "audit", str(recordings)], f"{token}-recs")
    shown = [line for line in figures.output.splitlines() if "gone" in line or "evil" in line]
    show("dangling link, newline in a name", figures, " | ".join(shown)[:160])

    agent = folder / "looping.py"
    agent.write_text(looping(10_000))
    figures = measure(
        one_cell(suite, command_of(agent), "--timeout", "600", "--json", str(report)),
        f"{token}-loop",
    )
    kept = sum(len(c.get("violations", [])) for c in cells(report))
    size = report.stat().st_size if report.exists() else 0
    requests = sum(int(c.get("requests", 0)) for c in cells(report))
    show(
        "10 000 requests from a looping target",
        figures,
        f"{requests} requests, {kept} violations kept, report {size / 1024:.0f} KiB",
    )


if __name__ == "__main__":
    main()
