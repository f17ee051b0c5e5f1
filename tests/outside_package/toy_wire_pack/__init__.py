"""A toy wire for wire-conformance, shipped outside it: the wire ``toy-echo``, a case pack
and two targets, each found through an entry point."""
