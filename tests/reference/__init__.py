"""Tests of the bundled reference adapter and the deliberately broken ones."""
