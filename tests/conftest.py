"""Self-test configuration: pytester, and a cache directory of the session's own."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

pytest_plugins = ["pytester"]

#: The session's cache directory, and the ``XDG_CACHE_HOME`` it replaced.
_CACHE = pytest.StashKey[tuple[str, str | None]]()


def pytest_configure(config: pytest.Config) -> None:
    """Point ``XDG_CACHE_HOME`` (where the parse cache lives) at a fresh directory before
    collection, which already loads the case library: tests never write into the user's
    cache, and every session starts cold.  Subprocess runs inherit it."""
    directory = tempfile.mkdtemp(prefix="wire-conformance-test-cache-")
    config.stash[_CACHE] = (directory, os.environ.get("XDG_CACHE_HOME"))
    os.environ["XDG_CACHE_HOME"] = directory


def pytest_unconfigure(config: pytest.Config) -> None:
    directory, previous = config.stash[_CACHE]
    if previous is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = previous
    shutil.rmtree(directory, ignore_errors=True)
