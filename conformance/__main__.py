"""``python -m conformance`` and the ``wire-conformance`` entry point.

The ending signals are armed before the command line module is imported: a SIGTERM,
SIGHUP or SIGINT during the imports (seconds on a loaded machine) is the same one line
and ``128 + N`` as during a run, never a traceback or a silent death
(``conformance._interrupt``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from conformance._interrupt import exit_on_interrupt


def main(argv: Sequence[str] | None = None) -> int:
    def command() -> int:
        from conformance._cli import main as cli_main

        return cli_main(argv)

    return exit_on_interrupt(command)


if __name__ == "__main__":
    sys.exit(main())
