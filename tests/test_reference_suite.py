"""The reference adapter through the pytest plugin, as a user's suite would run it:
every case strictly, then its request bodies against snapshots/reference/<column>/."""

from __future__ import annotations

from conformance.pytest._suite import ConformanceSuite


class TestReference(ConformanceSuite):
    target = "reference"
    strict = True
    snapshot_dir = "snapshots"
