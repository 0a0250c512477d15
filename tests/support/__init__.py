"""Helpers shared by the tests and the benchmarks (bench/ imports them too)."""
