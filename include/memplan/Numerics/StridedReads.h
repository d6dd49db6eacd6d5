//===- StridedReads.h - Strided reads packed in tiles -----------*- C++ -*-===//
//
// For the numerics harness' lowering (python/memplan/numerics/lowering.py):
// a structured op on buffers whose innermost loop reads an input with a
// stride (a matmul reading its weight through a transposed indexing map)
// cannot vectorize that loop, and runs many times slower than the same
// matmul on a transposed copy. Real code generators pack such operands; this
// does the same, tile by tile, in a small stack buffer, so that a program
// that reads operands where they lie runs as fast as one that copies them.
// The values are the same bit for bit: every output element sees its
// reduction in the same order.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_NUMERICS_STRIDEDREADS_H
#define MEMPLAN_NUMERICS_STRIDEDREADS_H

#include "mlir-c/IR.h"

#include <cstdint>

namespace memplan {

/// Rewrites every `linalg.generic` on buffers under `root` whose innermost
/// loop `j` is parallel and indexes an input at a dimension other than its
/// last (a strided read), where that input is read again across other loops
/// (its map lacks loop dimensions of at least 4 iterations together, or of
/// dynamic extent): a loop over tiles of `j` packs the
/// input's tile, `j` moved to its last dimension, into a `memref.alloca`
/// (made once, before the loop), and runs the op on the tile, reading the
/// pack. A tile is the largest power of two of iterations up to `maxTile`
/// (and `j`'s extent) whose packs take at most `maxBytes`, and at least 8.
/// The op's loops keep their order within a tile, so every output element
/// is computed in the same order. Ops with `linalg.index`, nested regions,
/// or dynamic sizes in the packed input other than `j`'s are left alone.
/// Returns the number of ops rewritten.
int64_t packStridedReads(MlirOperation root, int64_t maxTile, int64_t maxBytes);

} // namespace memplan

#endif // MEMPLAN_NUMERICS_STRIDEDREADS_H
