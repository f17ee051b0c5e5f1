"""``wire-conformance probe``: the mutation probes (``conformance._probe.command`` holds
the arguments and the body)."""

from __future__ import annotations

import argparse


class ProbeCommand:
    name = "probe"
    help = "apply named mutants to a target's source and require cases to kill them"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        from conformance._probe.command import add_probe_arguments

        add_probe_arguments(parser)

    def execute(self, args: argparse.Namespace) -> int:
        from conformance._probe.command import run_probe_command

        return run_probe_command(args)
