"""The root of every exception the suite raises on purpose.

``except ConformanceError`` catches what the suite reports about its inputs — a case
file that does not load, a target spec that names nothing runnable, a request or a
recorded response a wire cannot read — and nothing else: a bug in the suite still
surfaces as the exception it is.
"""

from __future__ import annotations


class ConformanceError(Exception):
    """Something the suite was given (a file, a spec, a body) is not usable."""
