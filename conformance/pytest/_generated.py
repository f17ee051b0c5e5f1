"""``GeneratedSuite``: a ``ConformanceSuite`` that also judges generated conversations,
one test per column its target speaks (``docs/generate.md``).

    from conformance.pytest._generated import GeneratedSuite

    class TestMyAdapter(GeneratedSuite):
        target = "my_package.adapter:MyAdapter"
        generate_examples = 50

hypothesis is imported when such a test runs, never by the plugin.
"""

from __future__ import annotations

from typing import Any, ClassVar

from conformance._settings import suite_default
from conformance.pytest._suite import ConformanceSuite

#: The fixture a generated-shapes test takes: the column it searches.
COLUMN_FIXTURE = "wire_conformance_column"


class GeneratedSuite(ConformanceSuite):
    """Every case of the library, and generated conversations on each column."""

    #: ``dev``, ``ci`` or ``nightly``; ``None``: ``--conformance-profile``, else ``ci``
    #: when ``CI`` is set and ``dev`` otherwise.
    generate_profile: ClassVar[str | None] = suite_default("generate_profile")
    #: Conversations per column; ``None``: the profile's.
    generate_examples: ClassVar[int | None] = suite_default("generate_examples")
    #: The search's seed; ``None``: ``--conformance-seed``, else the profile's choice.
    generate_seed: ClassVar[int | None] = suite_default("generate_seed")

    def test_generated_shapes(self, wire_conformance_column: Any, request: Any) -> None:
        """Generated conversations on one column: a failure prints its case file."""
        from conformance.pytest._generated_cells import check_column

        check_column(wire_conformance_column, request)
