"""The suite's version: its own module at the bottom layer, so every layer (the report's
``suite_version`` among them) can read it without importing the package's public face."""

from __future__ import annotations

__version__ = "0.1.0"
