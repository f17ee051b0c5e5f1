"""Tests of the checks (the judge)."""
