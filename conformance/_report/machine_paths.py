"""Reports carry no machine paths: a traceback or a case-file error names files relative
to the directory the run started in (the target's project root), the Python
installation as ``<python>`` and the home directory as ``~``.  A report then reads the
same on a colleague's machine, and leaks nothing of the one it ran on."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _prefixes() -> list[tuple[str, str]]:
    """(absolute prefix, replacement), longest first so the most specific wins."""
    pairs = {str(Path.cwd()): ".", sys.prefix: "<python>", sys.base_prefix: "<python>"}
    home = os.path.expanduser("~")
    if home not in ("~", "/"):
        pairs.setdefault(home, "~")
    ordered = sorted(pairs.items(), key=lambda pair: len(pair[0]), reverse=True)
    return [(prefix.rstrip(os.sep) + os.sep, short + os.sep) for prefix, short in ordered if prefix]


def unmachined(text: str | None) -> str | None:
    """``text`` with every absolute path under a known root made relative to it."""
    if not text:
        return text
    for prefix, short in _prefixes():
        text = text.replace(prefix, "" if short == "." + os.sep else short)
    return text
