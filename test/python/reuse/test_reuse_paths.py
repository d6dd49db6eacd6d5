"""Pools never raise the heap on any path (#31): a loop that runs zero times
or a branch that is not taken leaves the input's heap lower than the
function-wide peak, and a pool held over such a region must not go above
it there. Each program runs at every trip count / branch value with the
heap hooks, before and after memplan-buffer-reuse (and the whole memory
pipeline against upstream's), bit for bit with poisoned memory, with the
run-time overlap oracle."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from progs.litcases import run_reuse
from progs.scale import chain

import memplan
from memplan import numerics
from memplan.ir import parse_source
from memplan.lifetimes import bounds as B
from memplan.lifetimes import paths
from memplan.lifetimes.analysis import analyze_module
from memplan.numerics import oracle
from memplan.passes.pipeline import MEMPLAN_BUFFERIZATION, PEAK_PASSES, UPSTREAM_BUFFERIZATION
from memplan.reuse import plan as reuse_plan
from memplan.reuse.plan import plan_function

# A long-lived buffer %l and a short one %s used inside a region that may
# not run; %r, returned (never pooled), is allocated while %l lives. One pool
# of %l and %s holds 128 bytes until %l dies, so beside %r the heap is 192
# bytes. Where the region runs, its own %c lifts the input to 192 too; where
# it does not, the input never holds more than 128.
_BODY = """
  %l = memref.alloc() : memref<16xf32>
  linalg.exp ins(%x : memref<16xf32>) outs(%l : memref<16xf32>)
  %s = memref.alloc() : memref<16xf32>
  linalg.negf ins(%x : memref<16xf32>) outs(%s : memref<16xf32>)
  {open}
    %c = memref.alloc() : memref<16xf32>
    linalg.add ins(%s, %out : memref<16xf32>, memref<16xf32>) outs(%c : memref<16xf32>)
    linalg.add ins(%c, %l : memref<16xf32>, memref<16xf32>) outs(%out : memref<16xf32>)
    memref.dealloc %c : memref<16xf32>
  }}
  memref.dealloc %s : memref<16xf32>
  %r = memref.alloc() : memref<16xf32>
  linalg.add ins(%l, %out : memref<16xf32>, memref<16xf32>) outs(%r : memref<16xf32>)
  memref.dealloc %l : memref<16xf32>
  return %r : memref<16xf32>
}}
"""
ZERO_TRIP = """
func.func @zero_trip(%x: memref<16xf32>, %n: index, %out: memref<16xf32>) -> memref<16xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index""" + _BODY.replace("{open}", "scf.for %i = %c0 to %n step %c1 {{")
UNTAKEN = """
func.func @untaken(%x: memref<16xf32>, %flag: i1, %out: memref<16xf32>) -> memref<16xf32> {{""" + _BODY.replace(
    "{open}", "scf.if %flag {{"
)
ZERO_TRIP, UNTAKEN = ZERO_TRIP.format(), UNTAKEN.format()

# The same shape at tensor level, through the whole memory pipeline: %t's
# buffer is %r's (it dies there), %l and %s would share a pool.
TENSOR = """
func.func @zero_trip(%x: tensor<16xf32>, %n: index, %acc0: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<16xf32>
  %l = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %s = linalg.negf ins(%x : tensor<16xf32>) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %acc0) -> tensor<16xf32> {
    %e2 = tensor.empty() : tensor<16xf32>
    %c = linalg.add ins(%s, %a : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
    %d = linalg.add ins(%c, %l : tensor<16xf32>, tensor<16xf32>) outs(%a : tensor<16xf32>) -> tensor<16xf32>
    scf.yield %d : tensor<16xf32>
  }
  %e3 = tensor.empty() : tensor<16xf32>
  %r = linalg.add ins(%acc, %x : tensor<16xf32>, tensor<16xf32>) outs(%e3 : tensor<16xf32>) -> tensor<16xf32>
  %e4 = tensor.empty() : tensor<16xf32>
  %t = linalg.mul ins(%r, %l : tensor<16xf32>, tensor<16xf32>) outs(%e4 : tensor<16xf32>) -> tensor<16xf32>
  return %t, %acc : tensor<16xf32>, tensor<16xf32>
}
"""


def _pipeline(text: str, pipeline: str) -> str:
    with ir.Context():
        module = parse_source(text)
        memplan.run_pipeline(module, f"builtin.module({pipeline})")
        return str(module)


@pytest.mark.parametrize(
    "text,entry,values",
    [
        (ZERO_TRIP, "zero_trip", (0, 1, 3)),
        (UNTAKEN, "untaken", (0, 1)),
    ],
    ids=["zero-trip", "untaken-branch"],
)
def test_pool_never_raises_a_path(text, entry, values):
    after, _, check = run_reuse(text)
    assert check.ok, check.violations
    for value in values:
        fixed = {1: value}
        before_heap = numerics.execute(text, entry, values=fixed).heap
        result = numerics.compare(text, after, entry, values=fixed, poison=True)
        assert result.ok, (value, result.mismatch, result.uninitialized)
        assert result.heap_after.peak_blocks_bytes <= before_heap.peak_blocks_bytes, value
        assert oracle.run(after, entry, values=fixed).ok, value


def test_path_check_refuses_the_stretched_pool():
    # The planner's own view: %l and %s pooled would be 192 bytes beside
    # %r on the path that skips the loop, where the input holds 128.
    with ir.Context():
        (lt,) = analyze_module(parse_source(ZERO_TRIP))
        plan = plan_function(lt)
        assert plan.pools == [] and plan.peak == plan.input_peak == 192


def _both_checks(lt) -> list[tuple[bool, bool]]:
    # The planner's check of no pool and of one pool of the eligible buffers
    # of the first one's scope, and HeapCheck's over every item.
    sizes = reuse_plan._Sizes(lt)
    rows = np.nonzero(lt.eligible)[0]
    rows = rows[lt.scope[rows] == lt.scope[rows[0]]]
    out = []
    for pools in ([], [reuse_plan._pool_plan(lt, rows, "best", 64)]):
        out.append((sizes.ok(pools), sizes.check.ok(sizes.plan_items(pools))))
    return out


def test_static_check_agrees_with_items():
    # Without dynamic sizes the planner compares levels from arrays of the
    # buffers (not one HeapItem each): the same answers, refusals included.
    untaken_else = UNTAKEN.replace(
        "    memref.dealloc %c : memref<16xf32>\n  }",
        "    memref.dealloc %c : memref<16xf32>\n  } else {\n  }",
    )
    cases = [(ZERO_TRIP, False), (UNTAKEN, False), (untaken_else, False), (chain(300), True)]
    with ir.Context():
        for text, pooled in cases:
            (lt,) = analyze_module(parse_source(text))
            assert _both_checks(lt) == [(True, True), (pooled, pooled)]


def test_static_check_makes_no_item_per_buffer(monkeypatch):
    # The check of a function without dynamic sizes is numpy over its
    # buffers: it makes no HeapItem per buffer left alone (three per buffer
    # made memplan-buffer-reuse 3x slower at 100k allocations).
    made = []

    def counted(*args):
        made.append(args)
        return paths.HeapItem(*args)

    monkeypatch.setattr(reuse_plan, "HeapItem", counted)
    with ir.Context():
        (lt,) = analyze_module(parse_source(chain(2000)))
        fplan = plan_function(lt)
    assert len(fplan.pools) == 1 and len(fplan.pools[0].members) == 2000
    assert len(made) <= 2


def test_path_tree_nodes():
    # The loop body is a node of its own below the function body; an
    # scf.if with an else takes one of its two nodes on every path.
    text = UNTAKEN.replace(
        "    memref.dealloc %c : memref<16xf32>\n  }",
        "    memref.dealloc %c : memref<16xf32>\n  } else {\n  }",
    )
    with ir.Context():
        for source, kinds in ((ZERO_TRIP, 0), (text, 1)):
            (lt,) = analyze_module(parse_source(source))
            tree = paths.PathTree(lt.graph, lt.func_op)
            assert len(tree.parent) >= 2 and tree.parent[1] == 0
            assert sum(len(c) for c in tree.choices) == kinds


def test_memory_pipeline_per_trip_count():
    # Upstream's pipeline, memplan's without its pools and memplan's, at 0, 1
    # and 3 trips: the pools never lift memplan's own heap, nor above upstream.
    upstream = _pipeline(TENSOR, UPSTREAM_BUFFERIZATION)
    pooled = _pipeline(TENSOR, "memplan-memory-pipeline")
    unpooled = _pipeline(TENSOR, ", ".join([PEAK_PASSES[0], PEAK_PASSES[2], MEMPLAN_BUFFERIZATION]))
    for trips in (0, 1, 3):
        fixed = {1: trips}
        up = numerics.execute(upstream, "zero_trip", values=fixed).heap.peak_blocks_bytes
        alone = numerics.execute(unpooled, "zero_trip", values=fixed).heap.peak_blocks_bytes
        result = numerics.compare(TENSOR, pooled, "zero_trip", values=fixed, poison=True)
        assert result.ok, (trips, result.mismatch)
        assert result.heap_after.peak_blocks_bytes <= min(up, alone), trips
        assert oracle.run(pooled, "zero_trip", values=fixed).ok, trips


def _nested(n: int) -> str:
    # n buffers of a dynamic size, all live at once (freed in reverse).
    lines = ["func.func @nested(%n: index, %x: memref<?xf32>) {"]
    for i in range(n):
        lines.append(f"  %b{i} = memref.alloc(%n) : memref<?xf32>")
        lines.append(f"  memref.copy %x, %b{i} : memref<?xf32> to memref<?xf32>")
    lines += [f"  memref.dealloc %b{i} : memref<?xf32>" for i in reversed(range(n))]
    return "\n".join(lines + ["  return", "}"]) + "\n"


def test_dynamic_check_sums_each_level_at_once(monkeypatch):
    # With dynamic sizes the check sums the buffers live at each point in
    # one go and the input's levels once for every plan: a number of Sum
    # additions linear in the points (main added one buffer at a time at
    # every point, 30402 additions here, quadratic).
    count = [0]
    add = B.Sum.__add__

    def counted(x: B.Sum, y: B.Sum) -> B.Sum:
        count[0] += 1
        return add(x, y)

    monkeypatch.setattr(B.Sum, "__add__", counted)
    with ir.Context():
        (lt,) = analyze_module(parse_source(_nested(100)))
        sizes = reuse_plan._Sizes(lt)
        assert sizes.dynamic and len(sizes.input) == 100
        items = sizes.plan_items([])
        assert sizes.check.ok(items)
        assert count[0] <= 4 * 100
        assert sizes.check.ok(items)
        assert count[0] <= 8 * 100


def test_total_is_the_sums_added_one_by_one():
    # B.total builds the same sum as adding its terms in order, a cover
    # among them making it one.
    n = B.aligned({("n",): 4}, 64)[0]
    m = B.aligned({("m",): 8, (): 3}, 64)[0]
    plain = B.Sum(128, B.freeze({("n",): 2}))
    cover = B.prune([n + plain, m + plain, B.Sum(5)], limit=1)[0]
    assert not B.is_exact((cover,))
    for terms in ([], [plain], [n, m, n, plain], [plain, cover, m]):
        folded = B.Sum()
        for s in terms:
            folded = folded + s
        total = B.total(terms)
        assert total == folded and type(total) is type(folded)


def test_sweep_is_split_at_every_point():
    # The sums kept as buffers come and go equal those made anew at each
    # point, on a function with dynamic sizes and a loop whose %c, never
    # freed, outlives it (an escape).
    text = (
        ZERO_TRIP.replace("    memref.dealloc %c : memref<16xf32>\n", "")
        .replace("memref<16xf32>", "memref<?xf32>")
        .replace("memref.alloc()", "memref.alloc(%n)")
    )
    with ir.Context():
        (lt,) = analyze_module(parse_source(text))
        sizes = reuse_plan._Sizes(lt)
        assert sizes.dynamic
        items = sizes.plan_items([])
        tree = sizes.tree
        points = list(range(tree.func_op, tree.end))
        spans = paths._Spans(tree, items)
        escaped = 0
        for p, (single, multi, escapes) in zip(points, spans.sweep(points)):
            own, out = spans.split(p)
            assert single == paths._sum_of(
                [it for it in own if len(it.size) == 1 and it.values is None]
            )
            assert multi == [it for it in own if len(it.size) > 1 or it.values is not None]
            assert escapes == paths._sum_of(out)
            escaped += len(out)
        assert escaped > 0


def _two_pools(sizes: reuse_plan._Sizes) -> list[paths.HeapItem]:
    # Two pool-like items over the whole function, each of two sums (a
    # bound the run picks from), in place of every buffer of the input.
    first = sizes.plan_items([])[0]
    s = first.size[0]
    both = (s + s, s + B.Sum(4096))
    return [paths.HeapItem(first.start, first.end, both, first.node) for _ in range(2)]


def test_points_holding_the_same_pools_make_their_bound_once(monkeypatch):
    # Between two changes of the plan's pools and buffers, the key points
    # (the input's 100 allocations) share one plan bound: the pools' sizes
    # are added once, not once per point (main: once per point).
    count = [0]
    add = B.add

    def counted(x: B.Bound, y: B.Bound, limit: int = B.LIMIT) -> B.Bound:
        count[0] += 1
        return add(x, y, limit)

    monkeypatch.setattr(B, "add", counted)
    with ir.Context():
        (lt,) = analyze_module(parse_source(_nested(100)))
        sizes = reuse_plan._Sizes(lt)
        pools = _two_pools(sizes)
        points = sizes.check._points(pools)
        assert len(points) > 100
        bounds = {id(pt.plan()) for pt in points}
        assert count[0] <= len(bounds) <= 3  # before, while and after the pools
        sizes.check.ok(pools)
        assert count[0] <= 6


def test_all_sums_bound_every_level_of_a_plan():
    # The cheap bound that lets a scan use int64 (every sum of every item
    # added) is at least each level, target and plan bound it stands for.
    with ir.Context():
        (lt,) = analyze_module(parse_source(_nested(20)))
        sizes = reuse_plan._Sizes(lt)
        pools = _two_pools(sizes)
        check = sizes.check
        for top in (0, 1, 7, 1000):
            env = {next(iter(B.leaves(pools[0].size))): top}
            bound = paths._all_sums(check.before + pools, env)
            for pt in check._points(pools):
                assert B.evaluate(check.target(pt.node), env) <= bound
                assert B.evaluate(pt.plan(), env) + pt.escapes.evaluate(env) <= bound
                assert pt.here.evaluate(env) <= bound
