"""Tests of the wire modules."""
