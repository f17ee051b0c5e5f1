"""wire-conformance: a conformance suite for LLM agent-harness adapters.

The public API, importable from here::

    from conformance import Adapter, AdapterSession, CaseBrief, Client, ConformanceSuite

Names resolve lazily (PEP 562): importing ``conformance`` — which the pytest plugin does
in every test session — loads nothing but this module and the version.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from conformance.version import __version__

if TYPE_CHECKING:
    from conformance._cases.load_problem import LoadProblem
    from conformance._cases.schema import Case
    from conformance._targets.api import (
        Adapter,
        AdapterSession,
        CallToRun,
        CaseBrief,
        Client,
        Conversation,
        ConversationStopped,
        ToolDef,
        ToolResultIn,
        WireRequest,
        WireResponse,
    )
    from conformance.errors import (
        ConformanceError,
        RequestParseError,
        ResponseReadError,
        TargetError,
        YamlError,
    )
    from conformance.pytest._generated import GeneratedSuite
    from conformance.pytest._suite import ConformanceSuite
    from conformance.verdict import Result, Violation
    from conformance.vocabulary import FinalOutput

#: Public name -> the module that defines it.
_EXPORTS: dict[str, str] = {
    "Adapter": "conformance._targets.api",
    "AdapterSession": "conformance._targets.api",
    "CallToRun": "conformance._targets.api",
    "Client": "conformance._targets.api",
    "Conversation": "conformance._targets.api",
    "ConversationStopped": "conformance._targets.api",
    "CaseBrief": "conformance._targets.api",
    "ToolDef": "conformance._targets.api",
    "ToolResultIn": "conformance._targets.api",
    "WireRequest": "conformance._targets.api",
    "WireResponse": "conformance._targets.api",
    "FinalOutput": "conformance.vocabulary",
    "ConformanceSuite": "conformance.pytest._suite",
    "GeneratedSuite": "conformance.pytest._generated",
    "Case": "conformance._cases.schema",
    "Result": "conformance.verdict",
    "Violation": "conformance.verdict",
    "ConformanceError": "conformance.errors",
    "LoadProblem": "conformance._cases.load_problem",
    "YamlError": "conformance.errors",
    "TargetError": "conformance.errors",
    "RequestParseError": "conformance.errors",
    "ResponseReadError": "conformance.errors",
}

#: Old public name -> its new one: still importable for one release, with a warning.
_DEPRECATED: dict[str, str] = {"Session": "CaseBrief"}

__all__ = [
    "Adapter",
    "AdapterSession",
    "CallToRun",
    "Case",
    "CaseBrief",
    "Client",
    "ConformanceError",
    "ConformanceSuite",
    "Conversation",
    "ConversationStopped",
    "FinalOutput",
    "GeneratedSuite",
    "LoadProblem",
    "RequestParseError",
    "ResponseReadError",
    "Result",
    "TargetError",
    "ToolDef",
    "ToolResultIn",
    "Violation",
    "WireRequest",
    "WireResponse",
    "YamlError",
    "__version__",
]


def __getattr__(name: str) -> Any:
    if name in _DEPRECATED:
        from conformance._renamed import warn_renamed

        new = _DEPRECATED[name]
        warn_renamed(f"conformance.{name}", f"conformance.{new}")
        return __getattr__(new)
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'conformance' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
