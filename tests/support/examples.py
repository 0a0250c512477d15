"""How many examples a property test (Hypothesis) draws: its full count in any run that includes the slow tests
(scripts/test's whole run, or a single module run on its own), a third of it (at least 10) in a run that leaves
the slow tests out, the fast loop (-m "not browser and not slow"), which runs many times a day.

The fast loop then checks the same properties, each on fewer drawn inputs; the whole run draws them all. An
input that once failed is drawn first in every later run, of either kind, from Hypothesis's example database
(.hypothesis/). tests/conftest.py's pytest_configure sets ``FAST_LOOP`` before any test module is imported."""

from __future__ import annotations

FAST_LOOP_SHARE = 3  # the fast loop draws 1 / FAST_LOOP_SHARE of each count
FAST_LOOP = False  # True in a run whose -m leaves out the tests marked slow


def examples(full: int) -> int:
    """``full`` in the whole run; a third of it, at least 10 (and never more than ``full``), in the fast loop."""
    return min(full, max(full // FAST_LOOP_SHARE, 10)) if FAST_LOOP else full
