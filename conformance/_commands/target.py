"""``wire-conformance target``: check a target manifest and say what the suite will do
with it, or print the manifest JSON Schema."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from conformance._commands.command import EXIT_OK, EXIT_USAGE, console


class TargetCommand:
    name = "target"
    help = "check a target manifest and say what the suite will do with it"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "manifest", nargs="?", type=Path, metavar="FILE", help="the manifest to check"
        )
        parser.add_argument("--schema", action="store_true", help="print the manifest JSON Schema")

    def execute(self, args: argparse.Namespace) -> int:
        return _target(args, console())


def _target(args: argparse.Namespace, console: Console) -> int:
    """``target FILE``: the manifest checked and described; ``target --schema``."""
    from conformance._targets.manifest import describe_manifest, manifest_schema
    from conformance.errors import ManifestError

    if args.schema == (args.manifest is not None):
        console.print("wire-conformance: target: give a manifest FILE, or --schema", markup=False)
        return EXIT_USAGE
    if args.schema:
        sys.stdout.write(manifest_schema())
        return EXIT_OK
    try:
        sys.stdout.write(describe_manifest(args.manifest))
    except ManifestError as error:
        console.print(f"wire-conformance: {error}", markup=False, highlight=False)
        return EXIT_USAGE
    return EXIT_OK
