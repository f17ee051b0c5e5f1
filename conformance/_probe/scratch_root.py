"""Command targets: each mutant in a scratch copy of the target's root.

The root (the manifest's ``cwd``, or the current folder for ``cmd:``) is copied to a
temporary folder, the mutated file written there, the manifest's ``build`` run there,
and the command run from there: the user's tree is only ever read.  The copy is
removed whatever happens (an interruption, a crash, a failed build).
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from conformance._probe.catalogue import Probe
from conformance._probe.mutate import compiled, mutated_source
from conformance._targets.command import CommandKind
from conformance._targets.resolve import ResolvedTarget
from conformance._targets.scratch import Scratch
from conformance._targets.session import end_sessions
from conformance.errors import ProbeInvalid

#: What is not copied: version control and caches (never part of what a command runs).
IGNORED = shutil.ignore_patterns(
    ".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"
)
#: The most characters of a failed build's output a reason keeps.
BUILD_TAIL = 600


#: The special files already named on stderr (a probe copies the root once per mutant).
_NAMED: set[str] = set()


def _copied_only(root: Path, scratch: Path) -> Callable[[str, list[str]], set[str]]:
    """A ``copytree`` filter: besides ``IGNORED``, leave out the scratch folder itself (a
    ``TMPDIR`` inside the root would copy the copy into itself) and every file that is
    not a regular file, folder or link (a FIFO would block the copy or make ``copytree``
    raise).  Each special file left out is named once on stderr."""
    scratch_real = os.path.realpath(scratch)

    def ignore(folder: str, names: list[str]) -> set[str]:
        left_out = set(IGNORED(folder, names))
        for name in names:
            path = os.path.join(folder, name)
            if os.path.realpath(path) == scratch_real:
                left_out.add(name)
                continue
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue  # gone meanwhile: copytree says so if it matters
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                left_out.add(name)
                shown = os.path.relpath(path, root)
                if shown not in _NAMED:
                    _NAMED.add(shown)
                    print(
                        f"probe: {shown!r} is not a regular file, folder or link; "
                        "the scratch copies leave it out",
                        file=sys.stderr,
                    )
        return left_out

    return ignore


@contextmanager
def scratch_copy(root: Path) -> Iterator[Path]:
    """A copy of ``root`` in a temporary folder, removed on the way out."""
    # A ``Scratch``: registered for the exit-time cleanup before it exists, so a signal
    # between making the folder and entering this block leaves nothing behind.
    with Scratch("wire-conformance-probe-") as folder:
        copy = folder / (root.name or "root")
        shutil.copytree(root, copy, symlinks=True, ignore=_copied_only(root, folder))
        yield copy


def run_build(build: str, cwd: Path, environment: Mapping[str, str], timeout: float) -> None:
    """Run the build in its own process group; a failure is ``ProbeInvalid`` (the
    mutant cannot be built), an interruption ends the whole group."""
    process = subprocess.Popen(
        build,
        shell=True,
        cwd=cwd,
        env={**os.environ, **environment},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except BaseException:  # a timeout or an interruption: nothing of the build survives
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    if process.returncode != 0:
        tail = output.decode(errors="replace")[-BUILD_TAIL:].strip()
        raise ProbeInvalid(f"the build failed (exit {process.returncode}): {tail}")


def probed_file(probe: Probe, root: Path) -> Path:
    """The file a command target's probe mutates: a ``path`` inside the target's root."""
    if probe.path is None:
        raise ProbeInvalid("a command target's probe names a `path`, not a `module`")
    path = (Path(probe.root_dir) / probe.path).resolve()
    if not path.is_relative_to(root.resolve()):
        raise ProbeInvalid(f"{probe.path} is outside the target's root {root}")
    if not path.is_file():
        raise ProbeInvalid(f"{probe.path} is not a file")
    return path


@contextmanager
def mutant_command(
    target: ResolvedTarget, root: Path, probe: Probe, build: str | None, build_timeout: float
) -> Iterator[ResolvedTarget]:
    """The command target run from a scratch copy of ``root`` holding the mutant."""
    assert isinstance(target.kind, CommandKind)  # the caller dispatches on the kind
    path = probed_file(probe, root)
    mutated = mutated_source(probe, path.read_text(encoding="utf-8"))
    if path.suffix == ".py":
        compiled(mutated, str(path))
    with scratch_copy(root) as copy:
        (copy / path.relative_to(root.resolve())).write_text(mutated, encoding="utf-8")
        if build:
            try:
                run_build(build, copy, target.kind.environment, build_timeout)
            except subprocess.TimeoutExpired:
                raise ProbeInvalid(f"the build did not finish within {build_timeout:g} s") from None
        mutant = replace(target.kind, cwd=str(copy))
        try:
            yield replace(target, kind=mutant)
        finally:  # a session target's processes run in the copy: end them before it goes
            end_sessions(mutant)
