"""``python -m conformance.agent module:attr``: hold one case as a command."""

from __future__ import annotations

import sys

from conformance.agent.runner import main

if __name__ == "__main__":
    sys.exit(main())
