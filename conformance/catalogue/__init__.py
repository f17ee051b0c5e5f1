"""The project's own rule catalogue, shipped with the package so every citation resolves.

Cases and checks cite ``rule: N`` (a provider wire rule), ``rule: E31`` (a public bug
report), ``rule: F1`` (a drift note) and ``seed: N`` (a design behaviour); this package
holds those entries (``rules.yaml``) and resolves a citation to one of them.
"""

from conformance.catalogue._entries import Catalogue, Entry, catalogue, resolve

__all__ = ["Catalogue", "Entry", "catalogue", "resolve"]
