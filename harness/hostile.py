"""Every hostile input at once: build them in a temporary folder and run the suite on them.

    /usr/bin/time -v python -m harness.hostile

Measure it with ``/usr/bin/time -v`` (peak memory, wall time); the figures are reported,
never asserted.  What it builds:

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

Each step prints its exit status; the suite must answer each with a clear message.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def step(name: str, argv: list[str], **extra: str) -> None:
    start = time.monotonic()
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        errors="replace",
        env={**os.environ, **extra},
        check=False,
    )
    tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
    print(f"{name}: exit {done.returncode} in {time.monotonic() - start:.1f} s")
    for line in tail:
        print(f"    {line[:160]}")


def measured_step(name: str, argv: list[str], **extra: str) -> None:
    """``step`` with the child's own peak RSS and CPU time (``os.wait4``), the figures
    the memory items of issue 24 are judged by."""
    start = time.monotonic()
    child = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, **extra},
    )
    output = child.stdout.read() if child.stdout is not None else b""
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    print(
        f"{name}: exit {child.returncode} in {time.monotonic() - start:.1f} s "
        f"(cpu {cpu:.1f} s), peak RSS {usage.ru_maxrss // 1024} MiB"
    )
    for line in output.decode(errors="replace").strip().splitlines()[-3:]:
        print(f"    {line[:200]}")


def recording_steps(folder: Path) -> None:
    """Issue 24's recording classes: secrets in every position through ``record`` (none
    may reach disk), an answer above the 64 MiB cap (streamed on, not recorded, memory
    bounded), and one below it recorded and replayed."""
    suite = [sys.executable, "-m", "conformance"]
    hostile = [sys.executable, "-m", "harness.hostile_recording"]
    measured_step("record: secrets in every position", [*hostile, "secrets", str(folder / "sec")])
    measured_step(
        "record: a 100 MiB answer (above the cap)", [*hostile, "answer", "100", str(folder / "big")]
    )
    measured_step("record: a 48 MiB answer", [*hostile, "answer", "48", str(folder / "answer")])
    measured_step(
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


if __name__ == "__main__":
    main()
