"""The adapter-as-command runner: any in-process ``Adapter`` held as a command target
(``python -m conformance.agent module:attr``); see ``conformance.agent.runner``."""

from __future__ import annotations

from conformance.agent.runner import main

__all__ = ["main"]
