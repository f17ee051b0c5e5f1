"""Progress of a long run, while it runs: a command-target or library run takes 4-15
minutes and used to print nothing until the end.

* ``bar`` — on a terminal: a rich progress bar (cells done/total, the cell that just
  finished, failures so far), cleared when the run ends, so the report reads as before.
* ``lines`` — in a CI log (no terminal): one line per cell that ran, as it finishes:
  ``[12/130] case [wire]: fail (3.2 s)``.  Cells ``n/a`` before running (undeclared
  wires, missing capabilities) count towards the total but print no line.
* ``off`` — nothing.

``auto`` (the default) is ``bar`` on a terminal; elsewhere ``lines`` for a command
target (each cell a process: the runs that take minutes) and ``off`` for in-process
ones (the whole library in seconds).  ``-q`` is ``off``.  Progress goes to the console
only: no report holds it, and no comparison reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal, TypeAlias

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from conformance.verdict import Result

Mode: TypeAlias = Literal["auto", "bar", "lines", "off"]
MODES: tuple[Mode, ...] = ("auto", "bar", "lines", "off")
#: ``n/a`` causes decided before the cell ran: nothing to show as it finishes.
_PLANNED = ("undeclared-wire", "missing-capability")


def chosen(mode: Mode, console: Console, quiet: bool, slow_target: bool) -> Mode:
    """The mode ``auto`` stands for here (see the module docstring)."""
    if quiet:
        return "off"
    if mode != "auto":
        return mode
    if console.is_terminal:
        return "bar"
    return "lines" if slow_target else "off"


def line(done: int, total: int, result: Result) -> str:
    """One finished cell, for a log."""
    took = "" if result.seconds is None else f" ({result.seconds:.1f} s)"
    return f"[{done}/{total}] {result.case} [{result.wire}]: {result.verdict}{took}"


@contextmanager
def cell_progress(console: Console, total: int, mode: Mode) -> Iterator[Callable[[Result], None]]:
    """A callback to give each finished cell's result, showing the run's progress in
    ``mode`` (already ``chosen``) until the block ends."""
    done = failed = 0
    if mode == "lines":

        def show_line(result: Result) -> None:
            nonlocal done
            done += 1
            if result.not_applicable not in _PLANNED:
                console.print(line(done, total, result), markup=False, highlight=False)

        yield show_line
        return
    if mode != "bar":
        yield lambda result: None
        return
    bar = Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[failed]} failed", markup=False),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task = bar.add_task("cells", total=total, failed=0)

    def advance(result: Result) -> None:
        nonlocal failed
        failed += result.verdict in ("fail", "error")
        current = f"{result.case} [{result.wire}]"
        bar.update(task, advance=1, description=current, failed=failed)

    with bar:
        yield advance


def slowest(results: list[Result] | tuple[Result, ...], count: int = 3) -> str | None:
    """``slowest cells: case [wire] 12.3 s, …``: where a long run's time went (timing:
    varies run to run; printed, never compared)."""
    timed = [r for r in results if r.seconds is not None]
    if not timed:
        return None
    top = sorted(timed, key=lambda r: (-(r.seconds or 0.0), r.key))[:count]
    return "slowest cells: " + ", ".join(f"{r.case} [{r.wire}] {r.seconds:.1f} s" for r in top)
