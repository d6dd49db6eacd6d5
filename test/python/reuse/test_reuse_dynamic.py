"""Pools with dynamically sized members (#30) and the static pool check
against the run-time overlap oracle on mixed pools (#34).

Every rewrite runs bit for bit with poisoned memory at several sizes, 0 and
1 included, with the oracle, and its heap is never above the input's."""

from __future__ import annotations

import random
import re

import pytest
from mlir import ir
from mlir.dialects import arith
from progs.generator import generate
from progs.litcases import lit_cases, run_reuse

from memplan import numerics
from memplan.ir import extract_graph, parse_source
from memplan.lifetimes import bounds as B
from memplan.lifetimes import symbolic
from memplan.numerics import oracle
from memplan.reuse.check import check_module

SIZES = (0, 1, 7, 33)

# An attention-shaped function: rows of n x 8, scores of n x n, a mask of
# n x n bytes, a static table, a result of n x 8. Sizes grow as n and n * n;
# the pool's layout is chosen at run time among the packings it keeps.
ATTENTION = """
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1, 0)>
func.func @attention(%q: memref<?x8xf32>, %table: memref<8x8xf32>, %out: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %q, %c0 : memref<?x8xf32>
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc(%n) : memref<?x8xf32>
  linalg.exp ins(%q : memref<?x8xf32>) outs(%a : memref<?x8xf32>)
  %t = memref.alloc() : memref<8x8xf32>
  linalg.negf ins(%table : memref<8x8xf32>) outs(%t : memref<8x8xf32>)
  %s = memref.alloc(%n, %n) : memref<?x?xf32>
  linalg.generic {indexing_maps = [#row, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %a : memref<?x8xf32>, memref<?x8xf32>) outs(%s : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  }
  %mask = memref.alloc(%n, %n) : memref<?x?xi8>
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%mask : memref<?x?xi8>) {
  ^bb0(%o: i8):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %le = arith.cmpi ule, %j, %i : index
    %b = arith.extui %le : i1 to i8
    linalg.yield %b : i8
  }
  %w = memref.alloc(%n, %n) : memref<?x?xf32>
  linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s, %mask : memref<?x?xf32>, memref<?x?xi8>) outs(%w : memref<?x?xf32>) {
  ^bb0(%x: f32, %k: i8, %o: f32):
    %f = arith.uitofp %k : i8 to f32
    %m = arith.mulf %x, %f : f32
    linalg.yield %m : f32
  }
  memref.dealloc %mask : memref<?x?xi8>
  memref.dealloc %s : memref<?x?xf32>
  %r = memref.alloc(%n) : memref<?x8xf32>
  linalg.fill ins(%zero : f32) outs(%r : memref<?x8xf32>)
  linalg.matmul ins(%w, %a : memref<?x?xf32>, memref<?x8xf32>) outs(%r : memref<?x8xf32>)
  memref.dealloc %w : memref<?x?xf32>
  memref.dealloc %a : memref<?x8xf32>
  %v = memref.alloc(%n) : memref<?x8xf32>
  linalg.fill ins(%zero : f32) outs(%v : memref<?x8xf32>)
  linalg.matmul ins(%r, %t : memref<?x8xf32>, memref<8x8xf32>) outs(%v : memref<?x8xf32>)
  memref.dealloc %t : memref<8x8xf32>
  memref.dealloc %r : memref<?x8xf32>
  memref.copy %v, %out : memref<?x8xf32> to memref<?x8xf32>
  memref.dealloc %v : memref<?x8xf32>
  return
}
"""


def _runs_alike(before: str, after: str, entry: str, sizes=SIZES) -> None:
    for n in sizes:
        dims = {"*": n}
        result = numerics.compare(before, after, entry, dims=dims, poison=True)
        assert result.ok, (n, result.mismatch, result.uninitialized)
        assert result.heap_after.peak_blocks_bytes <= result.heap_before.peak_blocks_bytes, n
        run = oracle.run(after, entry, dims=dims)
        assert run.ok, (n, run.overlaps)


def test_attention_in_one_pool():
    after, stats, check = run_reuse(ATTENTION)
    assert check.ok and not check.unchecked and not check.unproven_pairs, check
    assert stats["pools"] == 1 and stats["pooled-allocations"] == 7 and stats["pooled-dynamic"] == 6
    assert stats["heap-allocations-left"] == 1
    _runs_alike(ATTENTION, after, "attention")


def test_attention_with_a_second_size():
    # A buffer of a second argument's size beside them: with two sizes a
    # pool is taken only where domination alone proves it (the single-size
    # scan does not apply), here the static members' pool; runs at every
    # size alike (the sizes meet at run time, dims "*").
    text = (
        ATTENTION.replace(
            "%out: memref<?x8xf32>) {", "%out: memref<?x8xf32>, %side: memref<?xf32>) {"
        )
        .replace(
            "  %a = memref.alloc(%n) : memref<?x8xf32>",
            "  %ms = memref.dim %side, %c0 : memref<?xf32>\n"
            "  %e = memref.alloc(%ms) : memref<?xf32>\n"
            "  linalg.exp ins(%side : memref<?xf32>) outs(%e : memref<?xf32>)\n"
            "  %a = memref.alloc(%n) : memref<?x8xf32>",
        )
        .replace(
            "  memref.dealloc %mask : memref<?x?xi8>",
            "  memref.copy %e, %side : memref<?xf32> to memref<?xf32>\n"
            "  memref.dealloc %e : memref<?xf32>\n"
            "  memref.dealloc %mask : memref<?x?xi8>",
        )
    )
    after, stats, check = run_reuse(text)
    assert check.ok and not check.unproven_pairs, (check.violations, check.unproven_pairs)
    assert stats["peak-planned"] <= stats["peak-input"]
    _runs_alike(text, after, "attention", sizes=(0, 1, 7))


# A 100-byte static buffer (25 x f32, not a multiple of the 64-byte
# alignment) beside a buffer of n floats, both live at once: the static one
# is read after the dynamic one is filled, so a dynamic part started below
# byte 100 (the static size rounded down, 64) overwrites its last 36 bytes.
UNALIGNED = """
func.func @main(%x: memref<25xf32>, %y: memref<?xf32>, %out: memref<?xf32>, %o: memref<25xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %y, %c0 : memref<?xf32>
  %s = memref.alloc() : memref<25xf32>
  linalg.exp ins(%x : memref<25xf32>) outs(%s : memref<25xf32>)
  %d = memref.alloc(%n) : memref<?xf32>
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%d : memref<?xf32>)
  memref.copy %d, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %d : memref<?xf32>
  memref.copy %s, %o : memref<25xf32> to memref<25xf32>
  memref.dealloc %s : memref<25xf32>
  return
}
"""


def test_unaligned_static_beside_dynamic():
    # One pool of both; the static check proves it for every n, and it runs
    # bit for bit with poisoned memory, the oracle seeing no shared byte, at
    # n = 0, 1, 7, 33 (from n = 1 on, a start below 100 would overlap).
    after, stats, check = run_reuse(UNALIGNED)
    assert stats["pools"] == 1 and stats["pooled-dynamic"] == 1, stats
    assert check.ok and not check.unchecked and not check.unproven_pairs, check
    _runs_alike(UNALIGNED, after, "main")
    # The same pool with the dynamic member moved to 64 (the rounded-down
    # start): the static check names an overlap from byte 64 at the first
    # size it tries with a non-empty dynamic member (n = 1: [64, 68)), the
    # oracle sees it at that size, and the run differs.
    view = "memref.view %alloc[%c128][%dim]"
    assert view in after and "%c64 = arith.constant 64" in after, after
    low = after.replace(view, "memref.view %alloc[%c64][%dim]")
    with ir.Context():
        found = check_module(parse_source(low))
    assert [
        v
        for v in found.violations
        if "share bytes [64, 68)" in v and v.endswith("at arg1.dim0 = 1")
    ], found.violations
    assert not oracle.run(low, "main", dims={"*": 1}).ok
    assert not numerics.compare(UNALIGNED, low, "main", dims={"*": 7}, poison=True).ok


def test_two_layouts_choose_the_smaller_pool():
    # reuse/dynamic.mlir's @two_layouts: a pool of two layouts, the second's
    # bytes taken where they are fewer. The first is within the input's heap
    # at every n and never larger than the second, so the run takes it at
    # every size (ties included); it runs bit for bit with poisoned memory,
    # the oracle seeing no shared byte, at n = 0, 1, 7, 63 (where the second
    # is above the input's heap), 64 and 100 (where they tie).
    (case,) = [c for c in lit_cases("reuse/dynamic.mlir") if c.functions == ["two_layouts"]]
    after, stats, check = run_reuse(case.text)
    assert stats["pools"] == 1 and stats["pooled-dynamic"] == 2, stats
    assert check.ok and not check.unchecked and not check.unproven_pairs, check
    sizes = (0, 1, 7, 63, 64, 100)
    _runs_alike(case.text, after, "two_layouts", sizes=sizes)
    # The second layout taken at every size (the condition turned around,
    # as a select taking its values the other way round would): its views
    # are as valid (bit for bit, no shared byte), but from n = 1 to 63 the
    # pool is above the input's heap: by 64 * n bytes up to n = 4, then by
    # %t's 256 (at n = 7, %t on %big at 64 * n + 4096).
    (fewer,) = re.findall(r"arith\.cmpi ult, (%\w+), (%\w+) : index", after)
    second = after.replace(
        f"arith.cmpi ult, {fewer[0]}, {fewer[1]}", f"arith.cmpi uge, {fewer[0]}, {fewer[1]}"
    )
    assert second != after
    for n in sizes:
        result = numerics.compare(case.text, second, "two_layouts", dims={"*": n}, poison=True)
        assert result.ok, (n, result.mismatch, result.uninitialized)
        assert oracle.run(second, "two_layouts", dims={"*": n}).ok, n
        above = result.heap_after.peak_blocks_bytes - result.heap_before.peak_blocks_bytes
        assert (above > 0) == (1 <= n <= 63), (n, above)
        if n in (1, 7):
            assert above == min(64 * n, 256), (n, above)


@pytest.mark.parametrize("seed", range(6))
def test_generated_mixed_pools_at_every_size(seed):
    # Generated programs: static buffers beside buffers of %y's size (the
    # generator reads 7 elements of them: sizes from 7 on).
    text = generate(seed)
    after, stats, check = run_reuse(text)
    assert check.ok and not check.unchecked and not check.unproven_pairs, (
        check.violations,
        check.unproven_pairs,
    )
    for n in (7, 9, 100):
        result = numerics.compare(text, after, "main", seed=seed, dims={"*": n}, poison=True)
        assert result.ok, (n, result.mismatch, result.uninitialized)
        assert result.heap_after.peak_blocks_bytes <= result.heap_before.peak_blocks_bytes, n
        assert oracle.run(after, "main", seed=seed, dims={"*": n}).ok, n


def _mixed_program(seed: int) -> str:
    """A straight-line program of buffers of static sizes (not all multiples
    of the alignment) and of the dynamic size n, each filled when it is
    allocated and copied out at its last use: valid at every n, 0 included,
    and every pair of buffers live at once is a pair of views to check."""
    rng = random.Random(seed)
    count = rng.randint(5, 8)
    kinds = [rng.choice(["25", "16", "40", "?", "?", "?x3"]) for _ in range(count)]
    starts = sorted(rng.sample(range(2 * count), count))
    ends = [s + rng.randint(1, 6) for s in starts]
    args = ["%x: memref<?xf32>"] + [f"%o{k}: memref<{t}xf32>" for k, t in enumerate(kinds)]
    lines = [
        f"func.func @main({', '.join(args)}) {{",
        "  %zero = arith.constant 0 : index",
        "  %n = memref.dim %x, %zero : memref<?xf32>",
    ]
    for t in range(2 * count + 8):
        for k in range(count):
            if starts[k] == t:
                ty = f"memref<{kinds[k]}xf32>"
                size = "(%n)" if kinds[k].startswith("?") else "()"
                lines.append(f"  %b{k} = memref.alloc{size} : {ty}")
                lines.append(f"  %c{k} = arith.constant {k + 1}.0 : f32")
                lines.append(f"  linalg.fill ins(%c{k} : f32) outs(%b{k} : {ty})")
            if ends[k] == t:
                ty = f"memref<{kinds[k]}xf32>"
                lines.append(f"  memref.copy %b{k}, %o{k} : {ty} to {ty}")
                lines.append(f"  memref.dealloc %b{k} : {ty}")
    lines += ["  return", "}"]
    return "\n".join(lines)


def _views(module: ir.Module) -> list[ir.Operation]:
    """Every memref.view of a pool of the module whose pool has a dynamic
    member (a mixed pool), in order."""
    out = []

    def visit(op: ir.Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    if inner.name == "memref.view":
                        out.append(inner)
                    visit(inner)

    visit(module.operation)
    by_pool: dict = {}
    for v in out:
        by_pool.setdefault(v.operands[0], []).append(v)
    return [v for vs in by_pool.values() if any(len(x.operands) > 2 for x in vs) for v in vs]


def _corrupt(text: str, k: int) -> str:
    """``text`` with the ``k``-th view of a mixed pool moved lower, still
    inside the pool: 64 bytes lower where its offset is a constant (0 at
    least), to 0 where it is computed."""
    with ir.Context():
        module = parse_source(text)
        view = _views(module)[k]
        off = view.operands[1]
        owner = off.owner
        owner = owner.operation if isinstance(owner, ir.OpView) else owner
        owner = owner if isinstance(owner, ir.Operation) else None
        value = 64
        if owner is not None and owner.name == "arith.constant":
            value = ir.IntegerAttr(owner.attributes["value"]).value
        if value == 0:
            return text
        with ir.InsertionPoint(view), view.location:
            view.operands[1] = arith.constant(ir.IndexType.get(), max(value - 64, 0))
        return str(module)


_AT = re.compile(r"at arg0.dim0 = (\d+)")


@pytest.mark.parametrize("seed", range(4))
def test_check_agrees_with_oracle_on_mixed_pools(seed):
    # A corpus of mixed pools (static sizes beside the dynamic n), valid as
    # planned, then each view moved lower in turn, inside its pool: where the
    # static check finds an overlap, the
    # oracle sees one at the size the check names; where it proves the pool,
    # the oracle sees none at n = 0, 1, 7 or 64.
    text = _mixed_program(seed)
    after, stats, check = run_reuse(text)
    assert check.ok and not check.unproven_pairs and not check.unchecked, check
    assert stats.get("pooled-dynamic", 0) >= 1
    _runs_alike(text, after, "main", sizes=(0, 1, 7))
    with ir.Context():
        count = len(_views(parse_source(after)))
    claims = proofs = 0
    for k in range(count):
        bad = _corrupt(after, k)
        if bad == after:
            continue
        with ir.Context():
            found = check_module(parse_source(bad))
        overlaps = [v for v in found.violations if v.startswith("overlap")]
        assert not [v for v in found.violations if not v.startswith("overlap")], found.violations
        if overlaps:
            n = int(_AT.search(overlaps[0]).group(1))
            assert not oracle.run(bad, "main", dims={"*": n}).ok, (k, overlaps[0])
            claims += 1
        elif not found.unproven_pairs:
            for n in (0, 1, 7, 64):
                assert oracle.run(bad, "main", dims={"*": n}).ok, (k, n)
            proofs += 1
    assert claims >= 1, "the corpus catches moved views"


def test_bounds_domination_and_tails():
    n = {("n",): 1}
    a4 = B.aligned(symbolic.mul({(): 4}, n), 64)[0]
    a8 = B.aligned(symbolic.mul({(): 8}, n), 64)[0]
    plain = B.aligned(symbolic.mul({(): 128}, n), 64)[0]
    assert B.sum_dominates(a8, a4) and not B.sum_dominates(a4, a8)
    assert not plain.atoms  # 128 * n is a multiple of 64 already: exact
    assert B.sum_dominates(plain, a4 + a4)  # align(4n) <= 64n, twice
    big = B.Sum(1 << 20, (), ())
    # 1 MiB + 4n against 64n: above it from n = 16385 on, not before.
    f = B.Sum(0, B.freeze({("n",): 64}), ())
    assert not B.sum_dominates(f, big)
    tail = B.tail_from(f, big, "n")
    assert tail is not None and 16384 <= tail <= 16386
    assert B.below_max(big, [f, big]) and not B.below_max(f + big, [f, big])


def test_simplified_index_follows_sign_tests():
    # torch-mlir's reshape: the dimension through i64, a sign test and
    # selects, back to index; upstream's folders make it the dimension.
    text = """
    func.func @f(%x: memref<?xf32>) -> index {
      %c0 = arith.constant 0 : index
      %z = arith.constant 0 : i64
      %four = arith.constant 4 : i64
      %d = memref.dim %x, %c0 : memref<?xf32>
      %i = arith.index_cast %d : index to i64
      %neg = arith.cmpi slt, %i, %z : i64
      %m = arith.muli %i, %four : i64
      %sel = arith.select %neg, %four, %i : i64
      %back = arith.index_cast %sel : i64 to index
      return %back : index
    }"""
    with ir.Context():
        module = parse_source(text)
        g = extract_graph(module)
        names = [
            g.names[g.op_name[int(g.value_op[v])]] if int(g.value_op[v]) >= 0 else "arg"
            for v in range(g.num_values)
        ]
        back = max(v for v in range(g.num_values) if names[v] == "arith.index_cast")
        dim = next(v for v in range(g.num_values) if names[v] == "memref.dim")
        assert g.simplified_index(back) == dim
        assert g.simplified_index(dim) == dim


# A buffer sized by `memref.dim` of a view (a collapse_shape) of another
# allocation, as bufferization sizes the copy of an out-of-place operand
# after elementwise fusion: the size is the allocation's operand
# (ValueBoundsOpInterface through the view), one dynamic size for all three
# buffers, so they share one pool instead of each keeping its own malloc.
THROUGH_A_VIEW = """
func.func @main(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<1x?xf32>
  %ac = memref.collapse_shape %a [[0, 1]] : memref<1x?xf32> into memref<?xf32>
  linalg.exp ins(%x : memref<?xf32>) outs(%ac : memref<?xf32>)
  %m = memref.dim %ac, %c0 : memref<?xf32>
  %b = memref.alloc(%m) : memref<?xf32>
  linalg.negf ins(%ac : memref<?xf32>) outs(%b : memref<?xf32>)
  memref.dealloc %a : memref<1x?xf32>
  %c = memref.alloc(%n) : memref<?xf32>
  linalg.exp ins(%b : memref<?xf32>) outs(%c : memref<?xf32>)
  memref.dealloc %b : memref<?xf32>
  memref.copy %c, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %c : memref<?xf32>
  return
}
"""


def test_size_read_through_a_view():
    after, stats, check = run_reuse(THROUGH_A_VIEW)
    assert stats["pools"] == 1 and stats["pooled-dynamic"] == 3, stats
    assert check.ok and not check.unchecked and not check.unproven_pairs, check
    assert after.count("memref.alloc(") == 1, after
    _runs_alike(THROUGH_A_VIEW, after, "main")
