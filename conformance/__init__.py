"""wire-conformance: a conformance suite for LLM agent-harness adapters.

The public API, importable from here::

    from conformance import Adapter, AdapterSession, Client, ConformanceSuite, Session

Names resolve lazily (PEP 562): importing ``conformance`` — which the pytest plugin does
in every test session — loads nothing but this module and the version.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from conformance.version import __version__

if TYPE_CHECKING:
    from conformance.cases.load_problem import LoadProblem
    from conformance.cases.schema import Case
    from conformance.errors import (
        ConformanceError,
        RequestParseError,
        ResponseReadError,
        TargetError,
        YamlError,
    )
    from conformance.model import FinalOutput
    from conformance.pytest.generated import GeneratedSuite
    from conformance.pytest.suite import ConformanceSuite
    from conformance.targets.base import (
        Adapter,
        AdapterSession,
        CallToRun,
        Client,
        Conversation,
        ConversationStopped,
        Session,
        ToolDef,
        ToolResultIn,
        WireRequest,
        WireResponse,
    )
    from conformance.verdict import Result, Violation

#: Public name -> the module that defines it.
_EXPORTS: dict[str, str] = {
    "Adapter": "conformance.targets.base",
    "AdapterSession": "conformance.targets.base",
    "CallToRun": "conformance.targets.base",
    "Client": "conformance.targets.base",
    "Conversation": "conformance.targets.base",
    "ConversationStopped": "conformance.targets.base",
    "Session": "conformance.targets.base",
    "ToolDef": "conformance.targets.base",
    "ToolResultIn": "conformance.targets.base",
    "WireRequest": "conformance.targets.base",
    "WireResponse": "conformance.targets.base",
    "FinalOutput": "conformance.model",
    "ConformanceSuite": "conformance.pytest.suite",
    "GeneratedSuite": "conformance.pytest.generated",
    "Case": "conformance.cases.schema",
    "Result": "conformance.verdict",
    "Violation": "conformance.verdict",
    "ConformanceError": "conformance.errors",
    "LoadProblem": "conformance.cases.load_problem",
    "YamlError": "conformance.errors",
    "TargetError": "conformance.errors",
    "RequestParseError": "conformance.errors",
    "ResponseReadError": "conformance.errors",
}

__all__ = [
    "Adapter",
    "AdapterSession",
    "CallToRun",
    "Case",
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
    "Session",
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
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'conformance' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
