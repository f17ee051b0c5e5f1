"""Generated shapes: hypothesis strategies over the case language, the property that
every generated conversation passes on a target, and counterexamples as case files.

The strategies are public, for your own hypothesis tests::

    from hypothesis import given
    from conformance.generate.conversations import cases

    @given(cases("anthropic-messages"))
    def test_my_adapter(case): ...

``docs/generate.md`` describes them, the profiles and ``wire-conformance generate``.
Nothing here is imported by the package until asked for: hypothesis loads lazily.
"""
