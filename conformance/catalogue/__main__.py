"""``python -m conformance.catalogue [PATH]``: write ``docs/rules.md`` from the catalogue."""

import sys
from pathlib import Path

from conformance.catalogue.model import catalogue
from conformance.catalogue.render import markdown

target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/rules.md")
target.write_text(markdown(catalogue()), encoding="utf-8")
