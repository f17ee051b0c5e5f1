"""The generation profiles: hypothesis settings profiles registered with explicit
parents, and the wall-clock budget a profile's search may use.

``dev`` (the parent of the others) explores with a fresh seed and keeps failures in an
example database; ``ci`` is ``dev`` made reproducible (a fixed seed and, unless one is
named, no example database: what a database holds depends on earlier runs on that
machine, so replaying it would make the same command find different things), chosen
when the ``CI`` environment variable is set, as hypothesis itself does; ``nightly`` is
``ci`` with many more examples, bounded by its budget.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

#: Where failing examples are kept unless the user says otherwise: under the project
#: (the current directory), never the home directory.
DEFAULT_DATABASE = Path(".wire-conformance") / "examples"

#: Generated conversations are slow to judge and often rejected by the realism lint by
#: design; neither is a problem of the strategy.
_QUIET_CHECKS = (HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large)


@dataclass(frozen=True)
class Profile:
    """One profile: its hypothesis settings name, parent and budget."""

    name: str
    parent: str | None
    max_examples: int
    #: Seconds the whole search may take (checked between batches); ``None``: unbounded.
    budget: float | None
    #: Whether the seed is fixed when none is given (reproducible runs).
    fixed_seed: bool
    #: Whether failures are kept in, and replayed from, the example database when the
    #: user names none (``default_database``).
    keeps_database: bool = False

    @property
    def registered(self) -> str:
        """The name under which hypothesis knows the profile."""
        return f"wire-conformance-{self.name}"


PROFILES: dict[str, Profile] = {
    "dev": Profile(
        "dev", None, max_examples=50, budget=None, fixed_seed=False, keeps_database=True
    ),
    "ci": Profile("ci", "dev", max_examples=100, budget=120.0, fixed_seed=True),
    "nightly": Profile("nightly", "ci", max_examples=5000, budget=1800.0, fixed_seed=False),
}


def _register() -> None:
    for profile in PROFILES.values():
        parent = (
            settings.get_profile(PROFILES[profile.parent].registered)
            if profile.parent
            else settings.get_profile("default")
        )
        settings.register_profile(
            profile.registered,
            parent=parent,
            max_examples=profile.max_examples,
            deadline=None,
            suppress_health_check=_QUIET_CHECKS,
            print_blob=profile.name != "dev",
            verbosity=Verbosity.quiet,
            phases=tuple(p for p in Phase if p is not Phase.explain),
            # One counterexample is reported, so the search stops drawing at the first
            # failure and shrinks it.  Looking on for more bugs would stop 10 s after the
            # first (a hypothesis rule), so how many more conversations were drawn, and
            # which failure was shrunk, would depend on the machine's speed.
            report_multiple_bugs=False,
        )


_register()


def default_profile() -> str:
    """``ci`` when the ``CI`` environment variable is set (as hypothesis decides), else
    ``dev``."""
    return "ci" if os.environ.get("CI") else "dev"


def default_database(profile: str, root: Path | None = None) -> Path | None:
    """The example database a search of ``profile`` uses when the user names none:
    ``DEFAULT_DATABASE`` under ``root`` (the current directory) for a profile that keeps
    one, else none."""
    if not PROFILES[profile].keeps_database:
        return None
    return DEFAULT_DATABASE if root is None else root / DEFAULT_DATABASE


def profile_settings(
    name: str, examples: int | None = None, database: Path | None = None
) -> settings:
    """The registered settings of profile ``name``, with ``examples`` and the example
    database (``None``: none) applied."""
    profile = PROFILES[name]
    chosen: ExampleDatabase | None = (
        DirectoryBasedExampleDatabase(str(database)) if database is not None else None
    )
    return settings(
        settings.get_profile(profile.registered),
        max_examples=examples or profile.max_examples,
        database=chosen,
    )
