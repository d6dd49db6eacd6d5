"""The mutation bench's planted bugs still apply to the tree they test.

``bench/bench_mutation.py`` reports a mutant whose text is gone as *stale*
and does not count it; this keeps the list from rotting silently as the
code it mutates moves.
"""

from __future__ import annotations

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from mutants import MUTANTS  # noqa: E402


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_text_occurs_once(mutant) -> None:
    """Each mutant's text is found exactly once, and its tests exist."""
    with open(os.path.join(ROOT, mutant.file)) as f:
        assert f.read().count(mutant.find) == 1, f"{mutant.name}: text not found once"
    assert mutant.find != mutant.replace
    for p in mutant.pytest:
        assert os.path.isfile(os.path.join(ROOT, "test/python", p)), p
    for p in mutant.lit:
        assert os.path.exists(os.path.join(ROOT, "test/lit", p)), p


def test_names_are_unique() -> None:
    """The bench's ``--only`` selects by name."""
    names = [m.name for m in MUTANTS]
    assert len(names) == len(set(names))
