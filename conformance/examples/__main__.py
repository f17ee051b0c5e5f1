"""Print the installed path of an example agent: ``python -m conformance.examples NAME``."""

from __future__ import annotations

import sys

from conformance.examples import example_path


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m conformance.examples NAME", file=sys.stderr)
        return 2
    try:
        print(example_path(argv[0]))
    except FileNotFoundError as error:
        print(error, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
