"""``python -m conformance`` is the ``wire-conformance`` command."""

import sys

from conformance.cli import main

sys.exit(main())
