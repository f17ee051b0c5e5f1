"""``python -m conformance.catalogue [PATH]``: write ``docs/rules.md`` from the catalogue."""

import sys
from pathlib import Path

from conformance.catalogue._entries import catalogue
from conformance.catalogue._render import markdown

target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/rules.md")
target.write_text(markdown(catalogue()), encoding="utf-8")
