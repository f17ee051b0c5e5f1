"""Deprecated: ``conformance.wires.base`` is ``conformance.wires.context`` now.

Renamed for what it holds; this name forwards to the new one for one release, with a
``DeprecationWarning``, so an outside wire written against it keeps working while it
moves.  Nothing in the suite imports it.
"""

from conformance._renamed import forwarding_getattr

__getattr__ = forwarding_getattr(__name__, "conformance.wires.context")
