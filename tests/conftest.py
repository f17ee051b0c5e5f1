"""Self-test configuration: pytester, and cache directories of the session's own."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

pytest_plugins = ["pytester"]

#: The session's cache directory, and the ``XDG_CACHE_HOME`` it replaced.
_CACHE = pytest.StashKey[tuple[str, str | None]]()
#: The session's bytecode directory, where bytecode was not to be written, and the
#: ``PYTHONDONTWRITEBYTECODE`` it replaced.
_BYTECODE = pytest.StashKey[tuple[str, str | None]]()
_NO_BYTECODE = "PYTHONDONTWRITEBYTECODE"
_BYTECODE_PREFIX = "PYTHONPYCACHEPREFIX"


def pytest_configure(config: pytest.Config) -> None:
    """Point ``XDG_CACHE_HOME`` (where the parse cache lives) at a fresh directory before
    collection, which already loads the case library: tests never write into the user's
    cache, and every session starts cold.  Subprocess runs inherit it."""
    directory = tempfile.mkdtemp(prefix="wire-conformance-test-cache-")
    config.stash[_CACHE] = (directory, os.environ.get("XDG_CACHE_HOME"))
    os.environ["XDG_CACHE_HOME"] = directory
    if sys.dont_write_bytecode and not sys.pycache_prefix:
        config.stash[_BYTECODE] = _share_bytecode_within_the_session()


def _share_bytecode_within_the_session() -> tuple[str, str | None]:
    """Where ``PYTHONDONTWRITEBYTECODE`` forbids bytecode beside the sources, compiled
    modules go to a directory of the session's own instead (``PYTHONPYCACHEPREFIX``),
    for this process and the ones it starts, and are deleted with it.

    Without it every Python the suite starts compiled the package from source, and every
    pytest it starts (the xdist workers of the plugin's tests, a pytest cell ended by a
    signal, the outside distribution's suite) also rewrote the assertions of all of its
    modules, a pytest plugin's distribution: a pytest child cost 2.6 CPU-s instead of
    1.1, a run under ``-n 2`` 7 to 9 instead of 3.7.  The price: the first process to
    import a module of the standard library or of site-packages compiles it once more
    (the prefix hides their ``__pycache__``), about 2.5 CPU-s per session and worker.
    Nothing is written beside a source, as the variable wants, nor kept after the
    session.  Where bytecode may be written, nothing changes: a directory of its own
    would only be colder than the usual ``__pycache__``."""
    directory = tempfile.mkdtemp(prefix="wire-conformance-test-bytecode-")
    sys.pycache_prefix = directory
    sys.dont_write_bytecode = False
    os.environ[_BYTECODE_PREFIX] = directory
    return directory, os.environ.pop(_NO_BYTECODE, None)


def pytest_unconfigure(config: pytest.Config) -> None:
    directory, previous = config.stash[_CACHE]
    if previous is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = previous
    shutil.rmtree(directory, ignore_errors=True)
    if _BYTECODE in config.stash:
        bytecode, no_bytecode = config.stash[_BYTECODE]
        sys.pycache_prefix = None
        sys.dont_write_bytecode = True
        os.environ.pop(_BYTECODE_PREFIX, None)
        if no_bytecode is not None:
            os.environ[_NO_BYTECODE] = no_bytecode
        shutil.rmtree(bytecode, ignore_errors=True)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep ``--dist loadgroup`` grouping on pytest 9.2, where it silently stopped.

    pytest-xdist's worker tells the scheduler an item's group by appending ``@group`` to
    its node id, through the attribute ``_nodeid``; pytest 9.2 keeps the id in ``_id``
    (structured), so the suffix is lost and every grouped test is dealt on its own: a
    module fixture meant to be built once is built on every worker
    (pytest-dev/pytest-xdist#1386).  Where the suffix is missing, this sets it the way
    xdist means to; where xdist already did (an older pytest, a fixed xdist), it does
    nothing.

    The slow tests are dealt first (in their collection order; the rest keep theirs):
    started last, the longest of them left one worker busy while the other sat idle at
    the end of the run."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        groups = sorted({_group_name(mark) for mark in item.iter_markers("xdist_group")})
        suffix = "@" + "_".join(groups)
        identity = getattr(item, "_id", None)
        if not groups or item.nodeid.endswith(suffix) or identity is None:
            continue
        item._id = type(identity).parse(item.nodeid + suffix)


def _group_name(mark: pytest.Mark) -> str:
    return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))


@pytest.fixture(scope="session")
def conformance_imported() -> None:
    """Every module of the package imported, for pytester's in-process runs: a run
    removes the modules it imported when it ends, and a module that registers itself on
    import (the respx mockers of ``conformance._provider.intercept``) cannot be imported a
    second time in one process."""
    import importlib
    import pkgutil

    import conformance

    for module in pkgutil.walk_packages(conformance.__path__, "conformance."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
