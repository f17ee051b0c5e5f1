"""Alias of ``python -m conformance.agent`` for scripts written before it moved into
the package (the runner itself lives in ``conformance.agent.runner``)."""

from __future__ import annotations

import sys

from conformance.agent.runner import main

if __name__ == "__main__":
    sys.exit(main())
