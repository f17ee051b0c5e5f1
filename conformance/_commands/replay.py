"""``wire-conformance replay``: recordings replayed against a target, drift reported
(``conformance._recording.command`` holds the arguments and the body)."""

from __future__ import annotations

import argparse


class ReplayCommand:
    name = "replay"
    help = "replay recordings against a target and report drift"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        from conformance._recording.command import add_replay_arguments

        add_replay_arguments(parser)

    def execute(self, args: argparse.Namespace) -> int:
        from conformance._recording.command import run_replay

        return run_replay(args)
