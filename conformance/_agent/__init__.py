"""The adapter-as-command runner: any in-process ``Adapter`` held as a command target
(``python -m conformance._agent module:attr``); see ``conformance._agent.runner``."""

from __future__ import annotations

from conformance._agent.runner import main

__all__ = ["main"]
