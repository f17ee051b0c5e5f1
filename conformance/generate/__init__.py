"""Generated shapes: hypothesis strategies over the case language, the property that
every generated conversation passes on a target, and counterexamples as case files.

The public surface, for your own hypothesis tests, is ``cases`` (the strategy of whole
cases on one column), ``judge`` (a case's verdict on your adapter, as ``run`` decides
it) and the strategy modules ``payloads``, ``blocks``, ``responses`` and
``conversations``::

    from hypothesis import given
    from conformance.generate import cases, judge

    @given(cases("anthropic-messages"))
    def test_my_adapter(case):
        assert judge(MyAdapter(), case, "anthropic-messages").verdict != "fail"

``docs/generate.md`` describes them, the profiles and ``wire-conformance generate``.
Nothing here is imported by the package until asked for: hypothesis loads lazily.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conformance.generate._properties import judge
    from conformance.generate.conversations import cases

#: Public name -> the module that defines it (loaded on first use: hypothesis is heavy).
_EXPORTS = {
    "cases": "conformance.generate.conversations",
    "judge": "conformance.generate._properties",
}

__all__ = ["cases", "judge"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'conformance.generate' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
