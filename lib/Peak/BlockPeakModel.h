//===- BlockPeakModel.h - Bytes a block's tensors hold ----------*- C++ -*-===//
//
// The storage a tensor program's block needs once bufferized, modeled on
// the tensors themselves (no analysis run, the IR untouched): the dataflow
// bound in tensor terms. Each tensor result of an op of the block is a new
// buffer unless BufferizableOpInterface says it aliases an operand: then it
// shares that operand's buffer when the op does not write it (a view), or
// when the op writes it and every value of that buffer dies at the op (in
// place only into a destination that dies there). A buffer is held from the
// op defining its first value to the last op of the block using one of its
// values (a use nested in a region counts at the op of the block holding
// it). Function arguments are the caller's (no bytes; an op may write one in
// place where it dies), constants are read-only (a write into one is a new
// buffer). What happens inside the regions of an op of the block is not
// modeled.
//
// Points: op i of the block is point 2i, the gap between op i and op i + 1
// is point 2i + 1 (where an op inserted before op i + 1 runs).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_PEAK_BLOCKPEAKMODEL_H
#define MEMPLAN_LIB_PEAK_BLOCKPEAKMODEL_H

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace memplan {

/// Bytes a heap buffer of static type `type` takes: LLVM's element sizes
/// (memplan's TypeInfo), rounded up to the heap's 64-byte blocks; -1 for a
/// type that is not a statically shaped tensor or memref of a modeled
/// element type.
int64_t heapBytes(mlir::Type type);

/// Live bytes per point, changed by ranges: a lazy segment tree (range add,
/// maximum over all points), O(log n) per change.
class PeakProfile {
public:
  explicit PeakProfile(int32_t points);
  /// Adds `bytes` to every point of [first, last] (clamped to the points).
  void add(int32_t first, int32_t last, int64_t bytes);
  /// The largest live bytes of any point, and the first point holding them.
  int64_t max() const { return tree.empty() ? 0 : tree[1]; }
  int32_t argmax() const;

private:
  void add(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last,
           int64_t bytes);
  int32_t size;
  std::vector<int64_t> tree, lazy;
};

class BlockPeakModel {
public:
  /// Models `block` with the interface answers of `state`.
  BlockPeakModel(mlir::Block &block, mlir::bufferization::AnalysisState &state);

  struct Buffer {
    int64_t bytes = 0;     ///< heapBytes of its first value; -1: dynamic.
    int32_t first = 0;     ///< First point (its first value's op).
    int32_t last = 0;      ///< Last point (its last use's op).
    bool external = false; ///< A function argument's or a constant's.
    bool writable = false; ///< External and writable (an argument).
    llvm::SmallVector<mlir::Value, 4> values;
  };

  /// The index of the op of the block that holds `op` (`op` itself or an
  /// ancestor), -1 when no op of the block does.
  int32_t indexOf(mlir::Operation *op) const;
  int32_t numOps() const { return static_cast<int32_t>(ops.size()); }
  int32_t numPoints() const { return 2 * numOps(); }
  mlir::Operation *op(int32_t index) const { return ops[index]; }

  /// The buffer holding `value` (a tensor of the block or an external one),
  /// -1 when the model does not know it.
  int32_t bufferOf(mlir::Value value) const;
  const Buffer &buffer(int32_t b) const { return buffers[b]; }
  /// The index of the last op of the block using `value`, or of the op
  /// defining it when it has no use there.
  int32_t lastUse(mlir::Value value) const;

  /// Adds every buffer of known size to `profile` (numPoints() points).
  void addTo(PeakProfile &profile) const;

private:
  int32_t newBuffer(mlir::Value value, int32_t at, bool external);
  mlir::Block &block;
  std::vector<mlir::Operation *> ops;
  llvm::DenseMap<mlir::Operation *, int32_t> index;
  llvm::DenseMap<mlir::Value, int32_t> bufferIndex;
  llvm::DenseMap<mlir::Value, int32_t> lastUses;
  std::vector<Buffer> buffers;
};

} // namespace memplan

#endif // MEMPLAN_LIB_PEAK_BLOCKPEAKMODEL_H
