"""The mutants of ``bench/bench_mutation.py``: one planted bug each.

A mutant replaces one exact piece of text (found exactly once) in one file.
``lit`` names the lit directories and ``pytest`` the test files run against
it (the ones that exercise the code, so that a run stays in minutes; no
``lit`` means the whole lit suite); ``equivalent``,
when set, says why no program can behave differently (such a mutant is not
counted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class Mutant:
    """One planted bug."""

    name: str
    what: str
    file: str
    find: str
    replace: str
    pytest: Tuple[str, ...] = ()
    lit: Tuple[str, ...] = ()
    equivalent: str = ""


INPLACE = "lib/Inplace/InplaceAnalysis.cpp"
DYING = "lib/Peak/ReuseDyingInputs.cpp"
QUERIES = "lib/Peak/TensorQueries.cpp"
LIFETIMES = "lib/Lifetimes/Lifetimes.cpp"
PACKING = "lib/Reuse/Packing/PackingEngine.h"
APPLY = "lib/Reuse/ApplyPoolEdit.cpp"
TILING = "python/memplan/numerics/tiling.py"
_INPLACE_TESTS = ("inplace/test_inplace.py", "inplace/test_interface_engine.py")
_REUSE_TESTS = ("reuse/test_reuse.py", "reuse/test_packing.py", "numerics/test_oracle.py")
_INPLACE_LIT = ("inplace",)
_REUSE_LIT = ("reuse", "lifetimes")
_PEAK_LIT = ("peak",)
OWNERSHIP = "lib/Deallocation/Ownership.cpp"
_DEALLOC_TESTS = (
    "deallocation/test_dealloc_pipeline.py",
    "deallocation/test_dealloc_verify.py",
    "numerics/test_heap_faults.py",
)
_DEALLOC_LIT = ("deallocation",)

MUTANTS: Tuple[Mutant, ...] = (
    # ---------------------------------------------------------------- conflict rules
    Mutant(
        "inplace-read-before-write",
        "a read that happens before the write is a conflict too",
        INPLACE,
        "    if (happensBefore(readOp, writeOp))\n      return -1;\n",
        "",
        _INPLACE_TESTS,
        _INPLACE_LIT,
    ),
    Mutant(
        "inplace-exclusive-regions",
        "a read and a write in mutually exclusive branches conflict",
        INPLACE,
        "    if (readOp->getParentRegion() != writeOp->getParentRegion() &&\n"
        "        state.insideMutuallyExclusiveRegions(readOp, writeOp))\n      return -1;\n",
        "",
        _INPLACE_TESTS,
        _INPLACE_LIT,
    ),
    Mutant(
        "inplace-elementwise",
        "an op reading and writing one buffer element by element conflicts",
        INPLACE,
        "        if (readInterface.bufferizesToElementwiseAccess(state,\n",
        "        if (false && readInterface.bufferizesToElementwiseAccess(state,\n",
        _INPLACE_TESTS,
        _INPLACE_LIT,
    ),
    Mutant(
        "inplace-own-definition",
        "a write's own result counts as a definition it clobbers",
        INPLACE,
        "    if (aliases.size() == 1 && aliases[0] == d)\n      continue;\n",
        "",
        _INPLACE_TESTS,
        _INPLACE_LIT,
    ),
    Mutant(
        "inplace-later-definition",
        "a definition after the write counts as clobbered",
        INPLACE,
        "      if (happensBefore(writeOp, defOp))\n        continue;\n",
        "",
        _INPLACE_TESTS,
        _INPLACE_LIT,
    ),
    Mutant(
        "inplace-subsets",
        "matching extract/insert subsets conflict",
        INPLACE,
        "  if (nonConflictingSubsets(r, w))\n    return -1;\n",
        "",
        _INPLACE_TESTS,
        _INPLACE_LIT,
    ),
    Mutant(
        "inplace-not-writable",
        "writes to non-writable buffers (constants, read-only arguments) are allowed",
        INPLACE,
        "  bool foundWrite = (!consistencyOnly && writes(o)) || hasInplaceWrites(values);",
        "  bool foundWrite = false;",
        _INPLACE_TESTS,
        _INPLACE_LIT,
    ),
    Mutant(
        "inplace-loop-alias-writes",
        "a loop whose body writes its iteration argument only through an alias (a slice) "
        "writes nothing into its init",
        INPLACE,
        "        for (AliasingValue alias : state.getAliasingValues(use))\n"
        "          work.push_back(alias.value);\n",
        "",
        _INPLACE_TESTS + ("inplace/test_inplace_unmodeled.py",),
        _INPLACE_LIT,
    ),
    Mutant(
        "inplace-branch-no-dominance",
        "a write in a branch goes out of place for an earlier block's argument its buffer "
        "may come to share through any block, not only blocks that dominate it",
        INPLACE,
        "    return domInfo->dominates(linkBlock, write->getBlock());\n",
        "    return true;\n",
        _INPLACE_TESTS + ("inplace/test_inplace_unmodeled.py",),
        _INPLACE_LIT,
    ),
    # ---------------------------------------------------------------- lifetime ends
    Mutant(
        "lifetime-end",
        "a buffer's interval ends at its last use instead of after it",
        LIFETIMES,
        "    t.end[i] = hi + 1;\n",
        "    t.end[i] = hi;\n",
        ("lifetimes/test_lifetimes.py",) + _REUSE_TESTS,
        _REUSE_LIT,
    ),
    Mutant(
        "lifetime-held-until-free",
        "a buffer memplan cannot pool stops holding memory at its last use, not its free",
        LIFETIMES,
        "      if (deallocHi >= 0)\n        hi = std::max(hi, deallocHi);\n",
        "      if (deallocHi >= 0)\n        (void)deallocHi;\n",
        ("lifetimes/test_lifetimes.py", "peak/test_peak.py"),
        _REUSE_LIT + _PEAK_LIT,
    ),
    # ---------------------------------------------------------------- overlap tests
    Mutant(
        "packing-short-overlap",
        "a short placed buffer ending one point into a new one's interval is not seen",
        PACKING,
        "          if (b >= lo || e[k].hi > lo)\n",
        "          if (b >= lo || e[k].hi > lo + 1)\n",
        _REUSE_TESTS,
        _REUSE_LIT,
    ),
    Mutant(
        "packing-long-overlap",
        "a long placed buffer ending one point into a new one's interval is not seen",
        PACKING,
        "                                 if (l.lo < hi && l.hi > lo)\n",
        "                                 if (l.lo < hi && l.hi > lo + 1)\n",
        _REUSE_TESTS,
        _REUSE_LIT,
    ),
    Mutant(
        "packing-alignment",
        "a gap's offset is not rounded up to the alignment",
        PACKING,
        "      int64_t cand = alignUp(top, a);\n",
        "      int64_t cand = top;\n",
        _REUSE_TESTS,
        _REUSE_LIT,
    ),
    Mutant(
        "packing-gap-size",
        "a gap one byte too small is taken",
        PACKING,
        "      if (gap >= need && gap < atGap) {\n",
        "      if (gap + 1 >= need && gap < atGap) {\n",
        _REUSE_TESTS,
        _REUSE_LIT,
    ),
    # ---------------------------------------------------------------- pool offsets
    Mutant(
        "pool-slot-rounding",
        "a pool member's slot is its bytes, not rounded up to the pool's alignment",
        "python/memplan/reuse/plan.py",
        "found = B.maximum(*(B.aligned(self.polys[r], align) for r in rows))",
        "found = B.maximum(*(self.polys[r] for r in rows))",
        _REUSE_TESTS + ("reuse/test_reuse_dynamic.py",),
        _REUSE_LIT,
    ),
    Mutant(
        "pool-view-offset",
        "every member of a pool is viewed at the first member's offset",
        "lib/Reuse/AllocsToViews.cpp",
        "unwrap(views.values[views.offsetIndex[i]])",
        "unwrap(views.values[views.offsetIndex[0]])",
        _REUSE_TESTS,
        _REUSE_LIT,
    ),
    Mutant(
        "pool-dealloc-before",
        "the pool is freed before the op it must outlive (deallocAfter), not after it",
        APPLY,
        "  b.setInsertionPointAfter(g.op(edit.deallocAfter));\n",
        "  b.setInsertionPoint(g.op(edit.deallocAfter));\n",
        _REUSE_TESTS + ("reuse/test_reuse_dynamic.py",),
        _REUSE_LIT,
    ),
    Mutant(
        "pool-select-swapped",
        "a Select step of the index program picks its false value when its condition holds",
        "lib/Reuse/EditSteps.cpp",
        "    return arith::SelectOp::create(b, loc, values[x], values[y], values[z]);\n",
        "    return arith::SelectOp::create(b, loc, values[x], values[z], values[y]);\n",
        ("reuse/test_pool_edit.py", "reuse/test_reuse_dynamic.py"),
        _REUSE_LIT,
    ),
    Mutant(
        "pool-merged-deallocs-kept",
        "the deallocs of merged branch results are left in place when the pool replaces them",
        "lib/Reuse/AllocsToViews.cpp",
        "  dead.insert(views.erase.begin(), views.erase.end());\n",
        "",
        _REUSE_TESTS + ("reuse/test_reuse_dynamic.py",),
        _REUSE_LIT,
    ),
    # ---------------------------------------------------------------- dying inputs
    Mutant(
        "dying-later-uses",
        "an input read again later may take the op's result",
        DYING,
        "    if (lastUseIs(input->get(), op) && !peaks.raisesPeak(op, input->get()))\n",
        "    if (!peaks.raisesPeak(op, input->get()))\n",
        ("peak/test_peak.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "dying-slice-held",
        "a slice whose larger buffer would be held past the block's peak may take the result",
        DYING,
        "    return after > before;\n",
        "    return false;\n",
        ("peak/test_peak.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "dying-owned",
        "an input whose buffer is an argument's or a loop's may take the result",
        QUERIES,
        "        !ownsBuffer(v, query.get()) || bufferTypeOf(v, options) != want)\n",
        "        bufferTypeOf(v, options) != want)\n",
        ("peak/test_peak.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "dying-undo-in-place",
        "a rewrite the analysis puts out of place is kept",
        DYING,
        "      if (undoAll || !inPlace ||\n",
        "      if (undoAll ||\n",
        ("peak/test_peak.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "dying-same-map",
        "an input read through another indexing map than the result's may take it",
        QUERIES,
        "        op.getMatchingIndexingMap(input) != initMap ||\n",
        "        false ||\n",
        ("peak/test_peak.py",),
        _PEAK_LIT,
        "a cheap filter before the in-place analysis, which has the last word: writing an "
        "input read through another map than the result's is a read-after-write conflict "
        "(linalg's bufferizesToElementwiseAccess requires the same maps), so the tried "
        "rewrite is dropped and the output is the same; only the candidates statistic grows",
    ),
    Mutant(
        "dying-payload-reads",
        "a payload op that reads unnamed memory counts as elementwise",
        QUERIES,
        "    return isa<MemoryEffects::Write>(e.getEffect()) && !e.getValue() &&\n",
        "    return !e.getValue() &&\n",
        ("peak/test_peak.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "dying-buffer-type",
        "an input with another buffer layout than the destination's may take it",
        QUERIES,
        "        !ownsBuffer(v, query.get()) || bufferTypeOf(v, options) != want)\n",
        "        !ownsBuffer(v, query.get()))\n",
        ("peak/test_peak.py",),
        _PEAK_LIT,
    ),
    # ---------------------------------------------------------------- split destinations
    Mutant(
        "split-read-destination",
        "a destination some use reads is split too",
        "lib/Peak/SplitDestinations.cpp",
        "    if (contentsRead(result, query.get())) {\n",
        "    if (false) {\n",
        ("peak/test_peak.py",),
        _PEAK_LIT,
    ),
    # ---------------------------------------------------------------- recompute, subset copies
    Mutant(
        "recompute-effects",
        "a computation with memory effects counts as cheap to recompute",
        "lib/Peak/RecomputeCheapValues.cpp",
        "    if (!isMemoryEffectFree(op))\n      return false;\n    bool ok = true;\n",
        "    bool ok = true;\n",
        ("peak/test_recompute.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "recompute-undefined-read",
        "a value with undefined contents that a user reads is recomputed per use",
        "lib/Peak/RecomputeCheapValues.cpp",
        "    if (undefinedContents(c.slice, c.value) && contentsRead(c.value, state)) {\n",
        "    if (false) {\n",
        ("peak/test_recompute.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "subset-copies-peak",
        "a subset-copy rewrite that raises the modeled peak is kept",
        "lib/Peak/EliminateSubsetCopies.cpp",
        "        if (live[i] > peak) {\n",
        "        if (false) {\n",
        ("peak/test_subset_copies.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "subset-copy-view-read",
        "the report names a subset copy whose view's buffer is read while its producers run",
        "python/memplan/lifetimes/subset_copies.py",
        "first <= o < op and x & _READ for",
        "first <= o < op and False for",
        ("lifetimes/test_stored.py",),
        ("lifetimes",),
    ),
    Mutant(
        "subset-copy-source-bytes",
        "the report names a subset copy's source bytes, not how far the peak drops",
        "python/memplan/lifetimes/subset_copies.py",
        "    return peak - input_peak_held(",
        "    return int(lt.bytes[row]) + 0 * input_peak_held(",
        ("lifetimes/test_stored.py",),
        ("lifetimes",),
    ),
    Mutant(
        "fold-copy-payload",
        "a copy whose payload computes something (not its input element) is folded as a copy",
        "lib/IR/LayoutCopies.cpp",
        "  if (yield->getNumOperands() != 1 ||\n"
        "      yield->getOperand(0) != body->getArgument(0))\n",
        "  if (yield->getNumOperands() != 1)\n",
        ("peak/test_fold_transposes.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "fold-consumer-map",
        "a consumer reads the source through the copy's map alone, not composed with its own",
        "lib/Peak/FoldTransposes.cpp",
        "            r.toSource.compose(linalgOp.getMatchingIndexingMap(r.use)));",
        "            r.toSource);",
        ("peak/test_fold_transposes.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "fold-partial-order",
        "reads are folded while a kept use of the copy comes after them",
        "lib/Peak/FoldTransposes.cpp",
        "        if (!keptAt || !readAt || !keptAt->isBeforeInBlock(readAt))\n",
        "        if (!keptAt || !readAt)\n",
        ("peak/test_fold_transposes.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "reorder-effects",
        "ops with memory effects may trade places",
        "lib/Peak/ReorderForMemory.cpp",
        "        edge(lastEffect, static_cast<int32_t>(u));\n",
        "",
        ("peak/test_reorder.py",),
        _PEAK_LIT,
    ),
    Mutant(
        "reorder-in-place-reads",
        "a read of what an in-place write overwrites may move after the write",
        "lib/Peak/ReorderForMemory.cpp",
        "        edge(unitOf(user), writer);\n",
        "",
        ("peak/test_reorder.py",),
        _PEAK_LIT,
    ),
    # ---------------------------------------------------------------- deallocation
    Mutant(
        "dealloc-view-uses",
        "a view's uses do not keep its buffer alive (the free may come before them)",
        OWNERSHIP,
        "        if (it != viewOf.end() && it->second == m)\n          add(r);\n",
        "",
        _DEALLOC_TESTS,
        _DEALLOC_LIT,
    ),
    Mutant(
        "dealloc-first-use",
        "a buffer is freed after the first of its uses in its block, not the last",
        OWNERSHIP,
        "    if (!last || last->isBeforeInBlock(op))\n      last = op;\n",
        "    if (!last)\n      last = op;\n",
        _DEALLOC_TESTS,
        _DEALLOC_LIT,
    ),
    Mutant(
        "dealloc-returned",
        "a buffer the function returns is freed like any other",
        OWNERSHIP,
        "      returned |= edgeTransfersHandle(edge, h);\n",
        "",
        _DEALLOC_TESTS,
        _DEALLOC_LIT,
    ),
    Mutant(
        "verifier-first-successor",
        "the deallocation checker follows only the first of the successors that are one block",
        "lib/Deallocation/DeallocationVerifier.cpp",
        "      if (!only || term->getSuccessor(i) == only)\n        succs.push_back(i);\n",
        "      if (!only || term->getSuccessor(i) == only) {\n        succs.push_back(i);\n"
        "        if (only)\n          break;\n      }\n",
        ("deallocation/test_dealloc_verify.py",),
        _DEALLOC_LIT,
    ),
    # ---------------------------------------------------------------- numerics
    Mutant(
        "numerics-low-byte",
        "a difference in an element's lowest byte goes unseen",
        "python/memplan/numerics/compare.py",
        "        if count == 0 or _same_bytes(a.data, b.data):\n            continue\n"
        "        ab = np.ascontiguousarray(a.data).reshape(-1).view(np.uint8).reshape(count, item)\n"
        "        bb = np.ascontiguousarray(b.data).reshape(-1).view(np.uint8).reshape(count, item)\n"
        "        differs = np.any(ab != bb, axis=1)\n",
        "        if count == 0 or _same_bytes(a.data, b.data):\n            continue\n"
        "        ab = np.ascontiguousarray(a.data).reshape(-1).view(np.uint8).reshape(count, item)\n"
        "        bb = np.ascontiguousarray(b.data).reshape(-1).view(np.uint8).reshape(count, item)\n"
        "        differs = np.any(ab[:, 1:] != bb[:, 1:], axis=1)\n",
        ("numerics/test_numerics.py", "numerics/test_numerics_programs.py"),
        ("cli",),
    ),
    Mutant(
        "numerics-no-poison",
        "fresh heap blocks are not filled with the poison byte",
        "python/memplan/numerics/heap.py",
        "            if self.poison is not None and size:\n",
        "            if False:\n",
        (
            "numerics/test_numerics.py",
            "numerics/test_numerics_programs.py",
            "numerics/test_heap_faults.py",
        ),
        ("cli",),
    ),
    Mutant(
        "register-tile-reversed-reduction",
        "a register tile runs each reduction loop from its last step to its first",
        TILING,
        "            ivs[d] = loop.induction_variable\n" "            scf.YieldOp(reduce(",
        "            ivs[d] = arith.SubIOp(const(sizes[d] - 1), loop.induction_variable).result\n"
        "            scf.YieldOp(reduce(",
        ("numerics/test_numerics_tiling.py",),
        ("cli",),
    ),
    Mutant(
        "register-tile-shared-rows",
        "an input that depends on the row is read once, for the first row, for all rows of a "
        "register tile",
        TILING,
        "            rowwise = any(by_row.search(str(e)) for e in amap.results)\n",
        "            rowwise = False\n",
        ("numerics/test_numerics_tiling.py",),
        ("cli",),
    ),
)
