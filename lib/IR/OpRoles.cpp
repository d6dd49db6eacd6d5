//===- OpRoles.cpp - Op roles from MLIR's interfaces ----------------------===//
//
// See include/memplan/IR/OpRoles.h. Built on MLIR's C++ API without RTTI
// (memplan_mlir in CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "OpRoleTable.h"
#include "memplan/IR/AsyncWork.h"
#include "memplan/IR/IRNumbering.h"
#include "memplan/IR/LayoutCopies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Async/IR/Async.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ShapedOpInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <algorithm>

using namespace mlir;

namespace memplan {
namespace {

bool isBuffer(Type t) { return isa<BaseMemRefType>(t); }
bool isShaped(Type t) { return isa<BaseMemRefType, TensorType>(t); }

/// Interfaces say nothing of time: the regions of an `async` op run after
/// the op returns, so none of them is a region that runs during its op.
bool isAsynchronous(Operation *op) {
  Dialect *d = op->getDialect();
  return d && d->getNamespace() == "async";
}

/// A view whose one result is its one source seen whole: both statically
/// shaped contiguous memrefs of the same byte size, and the op takes no
/// offsets (a reshape or cast of the whole buffer, not a slice of it).
bool isWholeView(Operation *op) {
  if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
      isa<OffsetSizeAndStrideOpInterface>(op))
    return false;
  auto source = dyn_cast<MemRefType>(op->getOperand(0).getType());
  auto result = dyn_cast<MemRefType>(op->getResult(0).getType());
  if (!source || !result || !source.hasStaticShape() ||
      !result.hasStaticShape() || !source.getLayout().isIdentity() ||
      !result.getLayout().isIdentity())
    return false;
  auto bits = [](MemRefType t) -> int64_t {
    Type e = t.getElementType();
    if (!e.isIntOrFloat())
      return -1;
    return t.getNumElements() * static_cast<int64_t>(e.getIntOrFloatBitWidth());
  };
  return bits(source) >= 0 && bits(source) == bits(result);
}

/// Role of an op without regions of its own semantics, from its effects.
int32_t effectRole(Operation *op) {
  if (isa<CallOpInterface>(op))
    return kRoleCall;
  if (op->hasTrait<OpTrait::IsTerminator>()) {
    Operation *parent = op->getParentOp();
    if (parent && isa<FunctionOpInterface>(parent) &&
        op->hasTrait<OpTrait::ReturnLike>())
      return kRoleReturn;
    if (parent && isa<RegionBranchTerminatorOpInterface>(op) &&
        isa<RegionBranchOpInterface>(parent) && !isAsynchronous(parent))
      return kRoleTerminator;
    // Other terminators (linalg.yield, ...) may hand a buffer to their parent
    // in ways we do not model.
    return kRoleOther;
  }
  if (isa<ViewLikeOpInterface>(op))
    return kRoleAlias | (isWholeView(op) ? kFlagWholeView : 0);
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return kRoleOther; // no effects information: unknown user
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  bool allocatesAutomatic = false, allocates = false, writes = false;
  llvm::SmallDenseSet<Value, 4> touched, allocated;
  for (const MemoryEffects::EffectInstance &e : effects) {
    Value v = e.getValue();
    if (isa<MemoryEffects::Free>(e.getEffect())) {
      // A free of its one operand and nothing else is a dealloc; anything
      // else that frees (conditional deallocs, realloc) is not understood.
      bool plain = op->getNumOperands() == 1 && op->getNumResults() == 0 &&
                   v == op->getOperand(0);
      return plain ? kRoleDealloc : kRoleOther;
    }
    if (isa<MemoryEffects::Allocate>(e.getEffect())) {
      if (isa<SideEffects::AutomaticAllocationScopeResource>(e.getResource()))
        allocatesAutomatic = true;
      else
        allocates = true;
      if (v)
        allocated.insert(v);
      continue;
    }
    if (isa<MemoryEffects::Write>(e.getEffect()))
      writes = true;
    if (v)
      touched.insert(v);
  }
  // An allocation that is GPU work (gpu::AsyncOpInterface: gpu.alloc) is
  // made on a device, in the order of its stream: not memory memplan may
  // free, pool or place in host storage.
  if ((allocates || allocatesAutomatic) && isa<gpu::AsyncOpInterface>(op))
    return kRoleOther;
  if (allocatesAutomatic)
    return kRoleAlloca;
  bool bufferOperands = llvm::any_of(op->getOperandTypes(), isBuffer);
  if (allocates && !bufferOperands)
    return kRoleAlloc;
  // A shaped result the op does not allocate may be (a view of) an operand.
  for (Value r : op->getResults())
    if (isShaped(r.getType()) && !allocated.contains(r))
      return kRoleAlias;
  if (effects.empty()) {
    // A pure op reading a buffer's shape keeps nothing of it; any other
    // pure op turning a memref into a scalar (its pointer as an index, ...)
    // may let the buffer escape.
    if (!bufferOperands || isa<ShapedDimOpInterface>(op))
      return kRoleAccess;
    return kRoleOther;
  }
  int32_t role = kRoleAccess;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isBuffer(operand.get().getType()) || touched.contains(operand.get()))
      continue;
    // A buffer the op neither reads nor writes through: stored as a value
    // (memref.store of a memref) when it is operand 0 of a writing op.
    if (operand.getOperandNumber() == 0 && writes)
      role = kRoleStore;
    else
      return kRoleOther;
  }
  // A heap allocation made from the buffers it reads (a copy).
  return role | (allocates ? kFlagHeapCopy : 0);
}

/// OperandAccess bits of each operand of `op` into `out`.
void operandAccess(Operation *op, int32_t *out) {
  unsigned n = op->getNumOperands();
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface) {
    // Region ops with recursive effects touch nothing themselves: their
    // nested ops are uses of their own. Anything else is unknown.
    bool recursive = op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
    for (unsigned k = 0; k < n; ++k)
      out[k] = recursive ? 0 : kAccessRead | kAccessWrite;
    return;
  }
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  for (const MemoryEffects::EffectInstance &e : effects) {
    int32_t bits = 0;
    if (isa<MemoryEffects::Read>(e.getEffect()))
      bits = kAccessRead;
    else if (isa<MemoryEffects::Write>(e.getEffect()))
      bits = kAccessWrite | (e.getEffectOnFullRegion() ? kAccessFullWrite : 0);
    else
      continue; // allocations and frees are not accesses
    if (OpOperand *operand = e.getEffectValue<OpOperand *>()) {
      out[operand->getOperandNumber()] |= bits;
      continue;
    }
    Value v = e.getValue();
    for (unsigned k = 0; k < n; ++k) {
      if (v ? op->getOperand(k) == v : isBuffer(op->getOperand(k).getType()))
        out[k] |= v ? bits : bits & ~kAccessFullWrite;
    }
  }
}

/// Every region runs at least once whenever the op runs, as far as the
/// interfaces tell: a loop whose static trip count (LoopLikeOpInterface) is
/// at least one, a single region every execution enters
/// (scf.execute_region), or invocation bounds of at least one for every
/// region (RegionBranchOpInterface, constant operands known). Not an scf.if,
/// nor a loop of unknown trip count.
bool alwaysRuns(RegionBranchOpInterface op) {
  // A loop with a known trip count of at least one.
  if (auto loop = dyn_cast<LoopLikeOpInterface>(op.getOperation())) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    return trips && !trips->isZero() && op->getNumRegions() == 1;
  }
  // One region, entered on every execution (scf.execute_region).
  if (op->getNumRegions() == 1) {
    SmallVector<RegionSuccessor> entries;
    op.getEntrySuccessorRegions(SmallVector<Attribute>(op->getNumOperands()),
                                entries);
    if (entries.size() == 1 && !entries.front().isParent())
      return true;
  }
  SmallVector<Attribute> operands(op->getNumOperands());
  for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i)
    (void)matchPattern(op->getOperand(i), m_Constant(&operands[i]));
  SmallVector<InvocationBounds> bounds;
  op.getRegionInvocationBounds(operands, bounds);
  return bounds.size() == op->getNumRegions() &&
         llvm::all_of(bounds, [](const InvocationBounds &b) {
           return b.getLowerBound() >= 1;
         });
}

/// Every region only returns to the op: one of them runs per execution.
/// One of the op's regions is entered on every execution: its entry
/// successors, whatever its operands, are regions only.
bool oneRegionRuns(RegionBranchOpInterface op) {
  SmallVector<RegionSuccessor> entries;
  op.getEntrySuccessorRegions(SmallVector<Attribute>(op->getNumOperands()),
                              entries);
  return !entries.empty() &&
         llvm::none_of(entries,
                       [](const RegionSuccessor &s) { return s.isParent(); });
}

bool exclusiveRegions(RegionBranchOpInterface op) {
  for (Region &region : op->getRegions()) {
    SmallVector<RegionSuccessor> successors;
    op.getSuccessorRegions(region, successors);
    for (const RegionSuccessor &s : successors)
      if (!s.isParent())
        return false;
  }
  return true;
}

/// The divisor of a division is a constant that cannot trap: not zero, and
/// not -1 for a signed one (INT_MIN / -1 overflows).
bool safeConstantDivisor(Operation *op, bool isSigned) {
  APInt divisor;
  if (op->getNumOperands() != 2 ||
      !matchPattern(op->getOperand(1), m_ConstantInt(&divisor)))
    return false;
  return !divisor.isZero() && !(isSigned && divisor.isAllOnes());
}

/// ConditionallySpeculatable's answer, except for three arith ops MLIR 22
/// declares always speculatable although a zero divisor is undefined
/// behaviour there as in arith.divsi (and traps on x86): arith.remui,
/// arith.remsi and arith.floordivsi. Upstream marks the remainders
/// conditionally speculatable after this release (llvm-project PR 188263);
/// until the pinned MLIR has it, they are asked what a division is asked.
bool speculatable(Operation *op) {
  if (isa<arith::RemUIOp>(op))
    return safeConstantDivisor(op, /*isSigned=*/false);
  if (isa<arith::RemSIOp, arith::FloorDivSIOp>(op))
    return safeConstantDivisor(op, /*isSigned=*/true);
  return isSpeculatable(op);
}

/// OpPurity bits of `op`.
int32_t purity(Operation *op) {
  if (op->getNumRegions() != 0)
    return 0;
  if (isMemoryEffectFree(op))
    return kPurityEffectFree | (speculatable(op) ? kPuritySpeculatable : 0);
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (iface && iface.onlyHasEffect<MemoryEffects::Read>())
    return kPurityReadsOnly;
  return 0;
}

/// The operand number of the view source of a ViewLikeOpInterface op, or -1.
int32_t viewSource(Operation *op) {
  auto view = dyn_cast<ViewLikeOpInterface>(op);
  if (!view)
    return -1;
  Value source = view.getViewSource();
  for (OpOperand &operand : op->getOpOperands())
    if (operand.get() == source)
      return (int32_t)operand.getOperandNumber();
  return -1;
}

int32_t classify(Operation *op) {
  if (op->getNumRegions() == 0)
    return effectRole(op);
  if (isa<FunctionOpInterface>(op))
    return kRoleFunc;
  if (isAsynchronous(op))
    return kRoleOther;
  if (op->hasTrait<OpTrait::HasParallelRegion>())
    return kRoleParallel | kFlagCaptureOk;
  if (auto branch = dyn_cast<RegionBranchOpInterface>(op))
    return kRoleBranch | kFlagCaptureOk | kFlagSequential |
           (exclusiveRegions(branch) ? kFlagExclusive : 0) |
           (alwaysRuns(branch) ? kFlagAlwaysRuns : 0) |
           (oneRegionRuns(branch) ? kFlagOneRuns : 0);
  // An op that declares its own effects (linalg structured ops, atomic
  // read-modify-write) runs its regions as part of itself: outer buffers may
  // be used there, but an allocation inside is not hoisted.
  if (isa<MemoryEffectOpInterface>(op))
    return effectRole(op) | kFlagCaptureOk;
  return kRoleOther;
}

} // namespace

Operation *completionPoint(Operation *op, ArrayRef<Value> completions) {
  llvm::SmallPtrSet<Value, 8> pending(completions.begin(), completions.end());
  auto isPending = [&](Value v) { return pending.contains(v); };
  SmallVector<Value> chained;
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    chained.clear();
    if (asyncStep(next, isPending, chained) == AsyncStep::Waits)
      return next;
    pending.insert(chained.begin(), chained.end());
  }
  return nullptr;
}

SmallVector<Value> asyncCompletions(Operation *op) {
  if (auto gpuOp = dyn_cast<gpu::AsyncOpInterface>(op)) {
    if (Value token = gpuOp.getAsyncToken())
      return {token};
    return {};
  }
  if (auto execute = dyn_cast<async::ExecuteOp>(op))
    return SmallVector<Value>(execute->getResults());
  return {};
}

AsyncStep asyncStep(Operation *next, function_ref<bool(Value)> isPending,
                    SmallVectorImpl<Value> &chained) {
  if (llvm::none_of(next->getOperands(), isPending))
    return AsyncStep::None;
  if (auto gpuOp = dyn_cast<gpu::AsyncOpInterface>(next)) {
    if (llvm::none_of(gpuOp.getAsyncDependencies(), isPending))
      return AsyncStep::None;
    if (Value token = gpuOp.getAsyncToken()) {
      chained.push_back(token);
      return AsyncStep::Chains;
    }
    return AsyncStep::Waits;
  }
  if (isa<async::AwaitOp, async::AwaitAllOp>(next))
    return AsyncStep::Waits;
  if (auto execute = dyn_cast<async::ExecuteOp>(next)) {
    chained.append(execute->result_begin(), execute->result_end());
    return AsyncStep::Chains;
  }
  if (auto add = dyn_cast<async::AddToGroupOp>(next)) {
    if (!isPending(add.getOperand()))
      return AsyncStep::None;
    chained.push_back(add.getGroup());
    return AsyncStep::Chains;
  }
  return AsyncStep::None;
}

int32_t opInterfaces(Operation *op) {
  int32_t bits = 0;
  if (isa<FunctionOpInterface>(op))
    bits |= kInterfaceFunction;
  if (isa<ModuleOp>(op))
    bits |= kInterfaceModule;
  if (isa<CastOpInterface>(op))
    bits |= kInterfaceCast;
  if (isa<ShapedDimOpInterface>(op))
    bits |= kInterfaceShapedDim;
  if (isa<OffsetSizeAndStrideOpInterface>(op))
    bits |= kInterfaceOffsetsSizesStrides;
  if (op->hasTrait<OpTrait::ConstantLike>())
    bits |= kInterfaceConstantLike;
  if (std::optional<AffineMap> map = layoutCopyMap(op);
      map && !map->isIdentity())
    bits |= kInterfacePermutedCopy;
  if (isa<linalg::LinalgOp>(op))
    bits |= kInterfaceStructured;
  if (OpTrait::hasElementwiseMappableTraits(op))
    bits |= kInterfaceElementwiseMappable;
  return bits;
}

OpRoleTable classifyOps(const IRNumbering &ir) {
  const Graph &g = ir.graph;
  OpRoleTable t;
  size_t n = ir.ops.size();
  t.role.resize(n);
  t.asyncEnd.assign(n, -1);
  t.purity.resize(n);
  t.viewSource.resize(n);
  t.interfaces.resize(n);
  std::vector<std::pair<int32_t, int32_t>> flows; // (operand slot, value id)
  size_t numSlots = g.operands.size();
  t.access.assign(numSlots, 0);
  for (size_t i = 0; i < n; ++i) {
    Operation *op = ir.ops[i];
    t.role[i] = classify(op);
    t.purity[i] = purity(op);
    t.viewSource[i] = viewSource(op);
    t.interfaces[i] = opInterfaces(op);
    operandAccess(op, t.access.data() + g.operandBegin[i]);
    SmallVector<Value> completions = asyncCompletions(op);
    if (!completions.empty()) {
      // Its regions (async.execute's body) may use outer buffers: their
      // uses last until the completion point, like the op's own.
      t.role[i] |= kFlagAsync | (op->getNumRegions() ? kFlagCaptureOk : 0);
      if (Operation *end = completionPoint(op, completions))
        t.asyncEnd[i] = ir.op(end);
    }
    if ((t.role[i] & 0xff) != kRoleBranch)
      continue;
    RegionBranchSuccessorMapping mapping;
    cast<RegionBranchOpInterface>(op).getSuccessorOperandInputMapping(mapping);
    for (auto &[operand, inputs] : mapping) {
      int32_t owner = ir.op(operand->getOwner());
      if (owner < 0)
        continue;
      int32_t slot =
          g.operandBegin[owner] + (int32_t)operand->getOperandNumber();
      for (Value input : inputs) {
        int32_t id = ir.value(input);
        if (id >= 0)
          flows.emplace_back(slot, id);
      }
    }
  }
  std::sort(flows.begin(), flows.end());
  flows.erase(std::unique(flows.begin(), flows.end()), flows.end());
  t.flowBegin.assign(numSlots + 1, 0);
  for (auto &f : flows)
    ++t.flowBegin[f.first + 1];
  for (size_t s = 0; s < numSlots; ++s)
    t.flowBegin[s + 1] += t.flowBegin[s];
  t.flowTarget.reserve(flows.size());
  for (auto &f : flows)
    t.flowTarget.push_back(f.second);
  return t;
}

} // namespace memplan
