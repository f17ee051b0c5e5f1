"""The pytest face of the suite: the plugin (``plugin``, the ``pytest11`` entry point),
the ``ConformanceSuite`` base class (``suite``), the cells it parametrizes and judges
(``cells``), the stale-snapshot sweep (``sweep``) and a ready-made test module
(``conformance_test``).

Only ``plugin`` is imported when pytest starts (and ``suite`` by the test modules that
subclass it); the rest waits until a ``ConformanceSuite`` subclass is collected.
"""
