//===- Graph.h - Compact array form of an MLIR operation tree ---*- C++ -*-===//
//
// The IR bridge hands the analyses a flat, index-based copy of the IR so that
// hot loops never go back to the IR. It is the numbering of
// lib/IR/IRNumbering (MLIR's C++ API), the one the in-place engine
// uses too. Every op, block and value gets a dense id:
//   * ops are numbered in pre-order (the root is op 0), so the subtree of op i
//     is the id range [i, opEnd[i]];
//   * value ids follow the same walk: an op's results, then the arguments of
//     each block of its regions as those blocks are entered;
//   * operands and uses are stored CSR-style.
// The ops (mlir::Operation pointers, which are also MlirOperation handles)
// are kept so rewrites and queries can find them.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_IR_GRAPH_H
#define MEMPLAN_IR_GRAPH_H

#include "mlir-c/IR.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class Block;
class Operation;
class Value;
} // namespace mlir

namespace memplan {

class GraphDominance;
class GraphIndex;
class ValueBoundsGuard;

enum class TypeKind : int32_t {
  Other = 0,
  RankedTensor = 1,
  UnrankedTensor = 2,
  MemRef = 3,
  UnrankedMemRef = 4,
  Index = 5,
  Integer = 6,
  Float = 7,
};

/// What the analyses need to know of a type. Types are uniqued by MLIR, so one
/// TypeInfo serves every value of that type.
struct TypeInfo {
  TypeKind kind = TypeKind::Other;
  std::vector<int64_t> shape; ///< Dynamic dims are kDynamic.
  int64_t elemBits = 0;       ///< Element bit width (0 when unknown).
  bool identityLayout = true; ///< MemRef layout is the identity map.
  int64_t memorySpace = 0; ///< Integer memory space; -1 for a non-integer attr.
  std::string text;        ///< Printed form.
  /// Shaped types: bytes per element as LLVM's default data layout lays them
  /// out (the stride of a GEP over the element type); -1 when memplan does
  /// not model the element's layout, with the reason in `elemReason`.
  int64_t elemBytes = -1;
  std::string elemReason;

  static constexpr int64_t kDynamic = INT64_MIN;
  bool isTensor() const {
    return kind == TypeKind::RankedTensor || kind == TypeKind::UnrankedTensor;
  }
  bool isMemRef() const {
    return kind == TypeKind::MemRef || kind == TypeKind::UnrankedMemRef;
  }
  bool hasStaticShape() const;
  /// Byte size of a statically shaped tensor/memref; -1 otherwise.
  int64_t staticBytes() const;
};

/// A loop bound: the value id of its operand (-1 when it is not an operand
/// of the loop), and its integer when constant.
struct LoopBound {
  int32_t value = -1;
  std::optional<int64_t> constant;
};

/// The bounds of a loop's single induction variable: lower <= iv < upper.
struct InductionBounds {
  LoopBound lower, upper;
};

struct Graph {
  // --- ops (pre-order) ---
  std::vector<int32_t> opName;       ///< Index into names.
  std::vector<int32_t> opParent;     ///< Parent op id; -1 for the root.
  std::vector<int32_t> opBlock;      ///< Block holding the op; -1 for the root.
  std::vector<int32_t> opEnd;        ///< Last op id of the subtree (inclusive).
  std::vector<int32_t> opDepth;      ///< Nesting depth; the root is 0.
  std::vector<int32_t> operandBegin; ///< CSR over operands, size numOps+1.
  std::vector<int32_t> operands;     ///< Value ids.
  std::vector<int32_t> resultBegin;  ///< Result value ids are contiguous.
  std::vector<int32_t> numResults;
  std::vector<int32_t>
      regionBegin;             ///< First region id of each op, size numOps+1.
  std::vector<void *> opPtr;   ///< The ops (mlir::Operation *).
  std::vector<int32_t> opRole; ///< Role word (memplan/IR/OpRoles.h), from
                               ///< MLIR's interfaces.
  /// Region-branch forwarding, CSR over operand slots (size operands+1):
  /// operand slot s flows to the values flowTarget[flowBegin[s] ..
  /// flowBegin[s+1]).
  std::vector<int32_t> flowBegin;
  std::vector<int32_t> flowTarget;
  /// OperandAccess bits (memplan/IR/OpRoles.h) per operand slot.
  std::vector<int32_t> operandAccess;
  /// Per op with kFlagAsync: the op that waits for its work, or -1
  /// (analysis/OpRoles.h).
  std::vector<int32_t> asyncEnd;
  /// OpPurity bits (memplan/IR/OpRoles.h) per op.
  std::vector<int32_t> opPurity;
  /// Per op: the operand number of its view source (ViewLikeOpInterface), or
  /// -1.
  std::vector<int32_t> viewSource;
  /// OpInterfaceBit bits (memplan/IR/OpRoles.h) per op.
  std::vector<int32_t> opInterfaces;

  // --- regions: op i owns regions [regionBegin[i], regionBegin[i+1]); region r
  // holds blocks regionBlocks[regionBlockBegin[r] .. regionBlockBegin[r+1]) ---
  std::vector<int32_t> regionOp;         ///< Owning op.
  std::vector<int32_t> regionBlockBegin; ///< CSR, size numRegions+1.
  std::vector<int32_t> regionBlocks;     ///< Block ids in region order.

  // --- blocks ---
  std::vector<int32_t> blockParentOp; ///< Op owning the block's region.
  std::vector<int32_t> blockRegion;   ///< Region id.
  std::vector<int32_t> blockArgBegin; ///< First argument value id.
  std::vector<int32_t> blockNumArgs;
  std::vector<int32_t> blockFirstOp; ///< First op id in the block; -1 if empty.

  // --- values ---
  std::vector<int32_t> valueType; ///< Index into types.
  std::vector<int32_t> valueOp;   ///< Defining op, or -1 for a block argument.
  std::vector<int32_t>
      valueBlock; ///< Owning block for a block argument, else -1.
  std::vector<int32_t> valueIndex; ///< Result number or argument number.
  std::vector<int32_t> useBegin;   ///< CSR over uses, size numValues+1.
  std::vector<int32_t> useOp;      ///< Using op.
  std::vector<int32_t> useOperand; ///< Operand index within the using op.

  // --- interned tables ---
  std::vector<std::string> names;
  std::vector<TypeInfo> types;

  /// The edits applied through this graph since it was extracted, each as
  /// (kind, the function op it changed or -1 for any): the ids name the IR
  /// as it was, so whoever applies edits (lib/Bindings/EditClasses.h) reads
  /// this to refuse one whose ids an earlier edit may have made stale.
  std::vector<std::pair<int32_t, int32_t>> appliedEdits;

  int32_t numOps() const { return static_cast<int32_t>(opParent.size()); }
  int32_t numValues() const { return static_cast<int32_t>(valueOp.size()); }
  int32_t numBlocks() const {
    return static_cast<int32_t>(blockParentOp.size());
  }
  int32_t numRegions() const { return static_cast<int32_t>(regionOp.size()); }

  /// The op with id `id`.
  mlir::Operation *op(int32_t id) const {
    return static_cast<mlir::Operation *>(opPtr[id]);
  }

  /// Id of `name` in the name table, or -1.
  int32_t nameId(const std::string &name) const;

  /// True if `a` is `b` or one of its ancestors.
  bool isAncestor(int32_t a, int32_t b) const {
    return a <= b && b <= opEnd[a];
  }
  /// The ancestor of `op` (possibly `op` itself) that lives directly in
  /// `block`, or -1 if `op` is not nested in `block`.
  int32_t ancestorInBlock(int32_t block, int32_t op) const;
  /// Upstream One-Shot's happens-before: `a`, or an op enclosing it that
  /// does not enclose `b`, properly dominates `b` (MLIR's DominanceInfo, so
  /// it follows control flow across blocks, not the textual order).
  bool happensBefore(int32_t a, int32_t b) const;
  /// `a` properly dominates `b` (DominanceInfo); an op does not dominate the
  /// ops nested in it.
  bool properlyDominates(int32_t a, int32_t b) const;
  /// The value with id `v`.
  mlir::Value value(int32_t v) const;
  /// The block with id `b`.
  mlir::Block *block(int32_t b) const;
  /// The value `v` properly dominates the op `b` (DominanceInfo).
  bool valueDominates(int32_t v, int32_t b) const;

  /// Printed location of op `op` (e.g. `loc("f.mlir":3:5)`).
  std::string location(int32_t op) const;
  /// Whether op `op` has an attribute `name`.
  bool hasAttribute(int32_t op, const std::string &name) const;
  /// Value of the attribute `name` of op `op` when it is an IntegerAttr (of
  /// `index` or an integer type of at most 64 bits; signless values
  /// sign-extended, so an i1 `true` (a BoolAttr) is -1); nullopt when
  /// absent, of another kind, or not representable.
  std::optional<int64_t> intAttribute(int32_t op,
                                      const std::string &name) const;
  /// Value of the attribute `name` of op `op` when it is a StringAttr.
  std::optional<std::string> strAttribute(int32_t op,
                                          const std::string &name) const;
  /// Symbol of the attribute `name` of op `op` when it is a
  /// FlatSymbolRefAttr (without the `@`).
  std::optional<std::string> symbolAttribute(int32_t op,
                                             const std::string &name) const;
  /// The integer value of op `op`'s result when the op is a constant
  /// (ConstantLike, folded: arith.constant, index.constant, ...) of an
  /// integer or index type of at most 64 bits (sign-extended).
  std::optional<int64_t> constantInt(int32_t op) const;
  /// The symbol a call (CallOpInterface) calls, as its leaf reference
  /// (without the `@`); nullopt for an indirect call or an op that is not
  /// a call.
  std::optional<std::string> callee(int32_t op) const;

  /// A ShapedDimOpInterface op's shaped operand (its operand number) and
  /// dimension (when constant); nullopt for another op.
  std::optional<std::pair<int32_t, std::optional<int64_t>>>
  shapedDim(int32_t op) const;
  /// When value `v` is the single induction variable of a loop
  /// (LoopLikeOpInterface) with a single lower and upper bound and a step
  /// that is not a known non-positive constant: those bounds.
  std::optional<InductionBounds> inductionBounds(int32_t v) const;
  /// A closed constant upper bound of the index value `v` from upstream's
  /// ValueBoundsOpInterface (ValueBoundsConstraintSet::computeConstantBound,
  /// BoundType::UB), its backward slice followed until `stop` (a value id)
  /// says to stop or the graph does not number a value; nullopt when the
  /// interfaces state none, or when the slice reaches an argument of a
  /// block that is not an entry block. (computeBound's symbolic bounds are not
  /// asked: it asserts when a value has more than one, as affine.min's may.)
  std::optional<int64_t>
  upperBound(int32_t v, const std::function<bool(int32_t)> &stop) const;
  /// Whether index values `a` and `b` are equal whatever the program's
  /// inputs, as upstream's ValueBoundsOpInterface states
  /// (ValueBoundsConstraintSet::areEqual): a dimension of an allocation
  /// equals its size operand, for example. False when unknown, and when
  /// their slices reach an argument of a block that is not an entry block.
  bool equalIndex(int32_t a, int32_t b) const;
  /// The value of the program that integer value `v` equals once upstream's
  /// `arith-int-range-optimizations`, `canonicalize` and `cse` have
  /// simplified its pure backward slice on a scratch copy (the program is
  /// not changed), with the equality folded the same way to be sure; `v`
  /// when there is no other (lib/IR/SizeValues.cpp).
  int32_t simplifiedIndex(int32_t v) const;
  /// The id of `value`, or -1 when the graph does not number it.
  int32_t valueId(mlir::Value value) const;
  /// The id of op `o`, or -1 when the graph does not number it.
  int32_t opId(mlir::Operation *o) const;
  /// The id of `block`, or -1 when the graph does not number it.
  int32_t blockId(mlir::Block *block) const;
  /// The references to a symbol of the root's symbol table that are not the
  /// callee of a call (SymbolTable::getSymbolUses without the
  /// CallOpInterface callees, nor memplan's own `memplan.*` annotations):
  /// (user op, symbol name without the `@`), in walk order. Nested symbol
  /// tables are not searched.
  std::vector<std::pair<int32_t, std::string>> nonCallSymbolUses() const;

  /// DominanceInfo of the IR, built on the first query.
  mutable std::shared_ptr<GraphDominance> dominance;
  /// Op ids by op, built on the first query that needs them.
  mutable std::shared_ptr<GraphIndex> index;
  /// Which values upstream's ValueBoundsOpInterface may be asked about,
  /// built on the first query.
  mutable std::shared_ptr<ValueBoundsGuard> boundsGuard;

private:
  const GraphDominance &dominanceInfo() const;
  ValueBoundsGuard &valueBoundsGuard() const;
};

/// The Graph of `root` and everything nested in it, numbered by
/// IRNumbering, with names, types, and roles from MLIR's interfaces.
Graph buildGraph(MlirOperation root);

/// OpInterfaceBit bits (memplan/IR/OpRoles.h) of one op.
int32_t interfacesOf(MlirOperation op);

/// A ShapedDimOpInterface op's shaped operand (its operand number) and
/// dimension (when constant); nullopt for another op.
std::optional<std::pair<int32_t, std::optional<int64_t>>>
shapedDimOf(MlirOperation op);

/// Bytes per element of `type` at LLVM's default data-layout size (integers
/// above 64 bits rounded up to 16 bytes, the largest alignment layouts give
/// them), or -1 with the reason when memplan does not model it.
int64_t elementLayout(MlirType type, std::string &reason);

/// The op printed with default flags (optionally without verifying it first).
std::string printOperation(MlirOperation op, bool assumeVerified);

} // namespace memplan

#endif // MEMPLAN_IR_GRAPH_H
