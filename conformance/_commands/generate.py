"""``wire-conformance generate``: generated conversations on a target
(``conformance.generate._command`` holds the arguments and the body)."""

from __future__ import annotations

import argparse


class GenerateCommand:
    name = "generate"
    help = "judge generated conversations on a target; print a failure as a case file"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        from conformance.generate._command import add_generate_arguments

        add_generate_arguments(parser)

    def execute(self, args: argparse.Namespace) -> int:
        from conformance.generate._command import run_generate_command

        return run_generate_command(args)
