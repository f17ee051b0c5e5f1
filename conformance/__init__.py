"""wire-conformance: a conformance suite for LLM agent-harness adapters."""

from __future__ import annotations

__version__ = "0.1.0"
