"""Tests of the packer's sweep search by program point, through "best".

The sweep is tried at each capacity the exact search tries, after the tight
search (which only applies where no point has a byte to spare). These are
long programs tight at most points but not all, which only the sweep fits
fast. Every packing is checked with memplan.reuse.packing.verify and against the
generated instance's known optimum.
"""

from __future__ import annotations

from progs.packing_instances import tiled

from memplan.reuse import packing


def best(ins):
    r = packing.pack(ins.starts, ins.ends, ins.sizes)
    assert packing.verify(ins.starts, ins.ends, ins.sizes, r.offsets, 64, r.pool_size) == []
    assert r.search_work <= r.search_budget
    return r


def test_best_fits_nearly_tight_long_programs_at_the_optimum():
    # A narrow cut of 300 buffers less 1% of them: the holes leave bytes to
    # spare at some points, so the tight search does not apply. The sweep
    # fits it once it knows that a gap freed at a later tight point takes
    # only buffers starting after its bytes' holders end, and spends more
    # than its probe on a program it gets far into.
    ins = tiled(300, 3, width=8, slack=0.01)
    r = best(ins)
    assert r.pool_size == ins.optimum == r.bound and r.optimal


def test_sweep_finds_nearly_tight_long_programs_within_a_small_part_of_the_budget():
    ins = tiled(300, 0, width=8, slack=0.01)
    r = best(ins)
    assert r.pool_size == ins.optimum == r.bound and r.optimal
    assert r.search_work < r.search_budget // 20
