"""The suite as a ready-made test module, for a target chosen on the command line:

pytest --pyargs conformance.pytest.conformance_test --conformance-target my_pkg.adapter:MyAdapter
"""

from conformance.pytest._suite import ConformanceSuite


class TestConformance(ConformanceSuite):
    """Every applicable case × wire on ``--conformance-target`` (default: the reference)."""
