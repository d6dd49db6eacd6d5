//===- InplaceAnalysis.cpp - One-Shot Analysis over the interfaces --------===//

#include "InplaceAnalysis.h"

#include "memplan/IR/UseWalk.h"
#include "memplan/Inplace/AnalysisSteps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#include <random>
#include <string>

#define DEBUG_TYPE "memplan-inplace-analysis"

using namespace mlir;
using namespace mlir::bufferization;

namespace memplan {
namespace {

bool isTensor(Value v) { return isa<TensorType>(v.getType()); }

/// Upstream's test annotation of a conflict or non-writable value: a unit
/// attribute named `<id>[<what>: ...]` on the op owning the value.
void annotateValue(Value v, const std::string &prefix) {
  Operation *op;
  std::string what;
  if (auto result = dyn_cast<OpResult>(v)) {
    op = result.getOwner();
    what = "result " + std::to_string(result.getResultNumber());
  } else {
    auto arg = cast<BlockArgument>(v);
    op = arg.getOwner()->getParentOp();
    what = "bbArg " + std::to_string(arg.getArgNumber());
  }
  op->setAttr(prefix + what + "]", UnitAttr::get(op->getContext()));
}

/// Upstream's subset models of tensor.insert_slice and
/// tensor.parallel_insert_slice match a tensor.extract_slice candidate when
/// the candidate's source is equivalent to the destination and ValueBounds
/// proves every offset, size and stride equal. Two slices spelled alike (the
/// same static array, the same SSA values in the dynamic positions) are equal
/// to any bound analysis, so that answer needs no constraint set. Returns
/// std::nullopt when only the model itself can answer.
std::optional<bool>
identicalSliceAnswer(Operation *insertion, Value candidate,
                     function_ref<bool(Value, Value)> equivalent) {
  if (!isa<tensor::InsertSliceOp, tensor::ParallelInsertSliceOp>(insertion))
    return std::nullopt;
  auto extract = candidate.getDefiningOp<tensor::ExtractSliceOp>();
  if (!extract)
    return std::nullopt;
  auto inserted = cast<OffsetSizeAndStrideOpInterface>(insertion);
  Value destination =
      cast<SubsetInsertionOpInterface>(insertion).getDestinationOperand().get();
  if (!equivalent(destination, extract.getSource()))
    return false;
  if (inserted.getStaticOffsets() != extract.getStaticOffsets() ||
      inserted.getStaticSizes() != extract.getStaticSizes() ||
      inserted.getStaticStrides() != extract.getStaticStrides() ||
      !llvm::equal(inserted.getOffsets(), extract.getOffsets()) ||
      !llvm::equal(inserted.getSizes(), extract.getSizes()) ||
      !llvm::equal(inserted.getStrides(), extract.getStrides()))
    return std::nullopt;
  return true;
}

} // namespace

InplaceAnalysis::InplaceAnalysis(Operation *root, const IRNumbering &ir,
                                 OneShotAnalysisState &state,
                                 const EngineOptions &options,
                                 SharedFacts *shared)
    : root(root), state(state), options(options), ir(ir), shared(shared),
      facts(shared ? shared->interface : ownFacts),
      cCounter(options.conflictCounter), wCounter(options.nonWritableCounter) {
  size_t nv = ir.tensors.values.size(), no = ir.tensors.operands.size();
  parent.resize(nv);
  for (size_t v = 0; v < nv; ++v)
    parent[v] = static_cast<int32_t>(v);
  nInplaceWrites.assign(nv, 0);
  nNonWritable.assign(nv, 0);
  inPlace.assign(no, 0);
  outOfPlace.assign(no, 0);
  deferred.assign(no, 0);
  for (auto [opId, number] : options.deferredOperands) {
    if (opId < 0 || opId >= static_cast<int32_t>(ir.ops.size()) || number < 0 ||
        number >= static_cast<int32_t>(ir.ops[opId]->getNumOperands()))
      continue;
    if (int32_t o = ir.tensorOperand(&ir.ops[opId]->getOpOperand(number));
        o >= 0)
      deferred[o] = 1;
  }
  // Own facts start empty; shared ones are allocated by the first analysis.
  if (facts.tensorSemantics.empty())
    facts.allocate(no, nv, ir.ops.size(), ir.blocks.size());
  if (shared && shared->tablesKnown) {
    opInterface = shared->opInterface;
    hasParallelRegions = shared->hasParallelRegions;
    for (int32_t v : shared->nonWritableValues)
      nNonWritable[v] = 1;
  } else {
    const BufferizationOptions &opts = state.getOptions();
    opInterface.reserve(ir.ops.size());
    for (Operation *op : ir.ops) {
      opInterface.push_back(opts.dynCastBufferizableOp(op));
      if (opInterface.back())
        for (unsigned i = 0; i < op->getNumRegions(); ++i)
          hasParallelRegions |= opInterface.back().isParallelRegion(i);
    }
    for (size_t v = 0; v < nv; ++v)
      if (!state.isWritable(ir.tensors.values[v]))
        nNonWritable[v] = 1;
    if (shared) {
      shared->tablesKnown = true;
      shared->opInterface = opInterface;
      shared->hasParallelRegions = hasParallelRegions;
      for (size_t v = 0; v < nv; ++v)
        if (nNonWritable[v])
          shared->nonWritableValues.push_back(static_cast<int32_t>(v));
    }
  }
  // The state's constructor put the operands that must bufferize in place
  // in place (and merged their alias sets): mirror that.
  for (size_t o = 0; o < no; ++o)
    if (state.isInPlace(*ir.tensors.operands[o]))
      bufferizeInPlace(static_cast<int32_t>(o));
}

EngineValue InplaceAnalysis::describe(Value v) const {
  EngineValue out;
  if (auto result = dyn_cast<OpResult>(v)) {
    out.op = ir.op(result.getOwner());
    out.index = result.getResultNumber();
    return out;
  }
  auto arg = cast<BlockArgument>(v);
  Block *block = arg.getOwner();
  Region *region = block->getParent();
  out.blockArgument = true;
  out.op = ir.op(region->getParentOp());
  out.region = region->getRegionNumber();
  out.block = static_cast<int32_t>(
      std::distance(region->begin(), Region::iterator(block)));
  out.index = arg.getArgNumber();
  return out;
}

// ------------------------------------------------------------------ caches

void InterfaceFacts::allocate(size_t operands, size_t values, size_t ops,
                              size_t blocks) {
  blockRepetitive.assign(blocks, nullptr);
  blockRepetitiveKnown.assign(blocks, 0);
  tensorSemantics.assign(ops, -1);
  reads.assign(operands, -1);
  writes.assign(operands, -1);
  aliasesKnown.assign(operands, 0);
  aliases.assign(operands, {});
  aliasesUnnumbered.assign(operands, 0);
  valueRead.assign(values, -1);
  valueWrites.assign(values, -1);
  definitionsKnown.assign(values, 0);
  definitions.assign(values, {});
  touchedOperands.clear();
  touchedValues.clear();
}

void InterfaceFacts::reset() {
  for (int32_t o : touchedOperands) {
    reads[o] = writes[o] = -1;
    aliasesKnown[o] = 0;
  }
  for (int32_t v : touchedValues) {
    valueRead[v] = valueWrites[v] = -1;
    definitionsKnown[v] = 0;
    definitions[v].clear();
  }
  touchedOperands.clear();
  touchedValues.clear();
}

void InplaceAnalysis::resetScopeCaches() {
  // Shared facts hold for every scope of the IR.
  if (!shared)
    facts.reset();
  subsetPairCache.clear();
  equivalentSubsetCache.clear();
  regionWriteCache.clear();
  readUseCache.clear();
  windowCache.clear();
  state.resetCache();
}

bool InplaceAnalysis::reads(int32_t o) {
  if (facts.reads[o] < 0) {
    facts.reads[o] = state.bufferizesToMemoryRead(*ir.tensors.operands[o]);
    facts.touchedOperands.push_back(o);
  }
  return facts.reads[o];
}

bool InplaceAnalysis::writes(int32_t o) {
  if (facts.writes[o] < 0) {
    facts.writes[o] = state.bufferizesToMemoryWrite(*ir.tensors.operands[o]);
    facts.touchedOperands.push_back(o);
  }
  return facts.writes[o];
}

const llvm::SmallVector<int32_t, 2> &
InplaceAnalysis::aliasingValues(int32_t o) {
  // The aliasing values (not their relation) stay fixed while decisions are
  // made; the relation is asked of the state where it matters.
  if (!facts.aliasesKnown[o]) {
    facts.aliases[o].clear();
    facts.aliasesUnnumbered[o] = 0;
    for (AliasingValue alias :
         state.getAliasingValues(*ir.tensors.operands[o])) {
      int32_t v = ir.tensor(alias.value);
      if (v >= 0)
        facts.aliases[o].push_back(v);
      else
        facts.aliasesUnnumbered[o] = 1;
    }
    facts.aliasesKnown[o] = 1;
    facts.touchedOperands.push_back(o);
  }
  return facts.aliases[o];
}

bool InplaceAnalysis::aliasOnly(int32_t o) {
  if (!bufferizable(ir.tensors.operandOp[o]) || reads(o) || writes(o))
    return false;
  return !aliasingValues(o).empty() || facts.aliasesUnnumbered[o];
}

bool InplaceAnalysis::isValueRead(int32_t v) {
  // A value is read if one of its uses reads, or only aliases a value that
  // is read: upstream walks those uses per question; here every value on the
  // way keeps its answer. Depth-first with an explicit stack (alias chains
  // can be as long as the IR). A cycle (through block arguments of
  // unstructured control flow) or an alias that is not a numbered value
  // hands the question to upstream.
  enum : int8_t { Unknown = -1, No = 0, Yes = 1, Open = 2 };
  if (facts.valueRead[v] != Unknown)
    return facts.valueRead[v] == Yes;
  struct Frame {
    int32_t value, use;
    uint32_t alias;
  };
  SmallVector<Frame, 8> stack{{v, ir.tensors.useBegin[v], 0}};
  facts.valueRead[v] = Open;
  facts.touchedValues.push_back(v);
  bool fallback = false;
  while (!stack.empty()) {
    Frame &f = stack.back();
    if (f.use == ir.tensors.useBegin[f.value + 1]) {
      facts.valueRead[f.value] = No;
      stack.pop_back();
      continue;
    }
    int32_t u = ir.tensors.uses[f.use];
    if (f.alias == 0) {
      if (reads(u))
        break;
      if (!aliasOnly(u)) {
        ++f.use;
        continue;
      }
      if (facts.aliasesUnnumbered[u]) {
        fallback = true;
        break;
      }
    }
    const SmallVector<int32_t, 2> &aliases = aliasingValues(u);
    if (f.alias == aliases.size()) {
      ++f.use;
      f.alias = 0;
      continue;
    }
    int32_t a = aliases[f.alias++];
    int8_t known = facts.valueRead[a];
    if (known == Yes)
      break;
    if (known == No)
      continue;
    if (known == Open) {
      fallback = true;
      break;
    }
    facts.valueRead[a] = Open;
    facts.touchedValues.push_back(a);
    stack.push_back({a, ir.tensors.useBegin[a], 0});
  }
  // Left on the stack: the values that reach the read found (or, on a
  // fallback, those still undecided).
  for (const Frame &f : stack)
    facts.valueRead[f.value] = fallback ? Unknown : Yes;
  if (fallback)
    facts.valueRead[v] = state.isValueRead(ir.tensors.values[v]) ? Yes : No;
  return facts.valueRead[v] == Yes;
}

bool InplaceAnalysis::valueWrites(int32_t v) {
  if (facts.valueWrites[v] < 0) {
    facts.valueWrites[v] = state.bufferizesToMemoryWrite(ir.tensors.values[v]);
    facts.touchedValues.push_back(v);
  }
  return facts.valueWrites[v];
}

llvm::ArrayRef<int32_t> InplaceAnalysis::definitions(int32_t o) {
  // Upstream walks the reverse use-def chain from the operand's value to the
  // values that write. A value that does not write and has exactly one
  // aliasing operand has the definitions of that operand's value, in the same
  // order (the walk from it is the walk from that value), so the chain is
  // followed until a value with a known answer, a write, or a fork (handed to
  // upstream), and every value on it gets the answer.
  int32_t v = ir.tensors.operandValue[o];
  if (facts.definitionsKnown[v] == 1)
    return facts.definitions[v];
  SmallVector<int32_t, 8> chain;
  OpOperand *start = ir.tensors.operands[o];
  llvm::SmallVector<int32_t, 1> answer;
  for (int32_t cur = v;;) {
    if (facts.definitionsKnown[cur] == 1) {
      answer = facts.definitions[cur];
      break;
    }
    // Back on the chain: a cycle of values that do not write defines nothing.
    if (facts.definitionsKnown[cur] == 2)
      break;
    chain.push_back(cur);
    facts.definitionsKnown[cur] = 2;
    if (valueWrites(cur)) {
      answer.push_back(cur);
      break;
    }
    int32_t owner = ir.tensors.valueOwner[cur];
    if (!bufferizable(owner))
      break;
    AliasingOpOperandList aliases =
        state.getAliasingOpOperands(ir.tensors.values[cur]);
    if (aliases.getNumAliases() == 0)
      break;
    if (aliases.getNumAliases() == 1) {
      OpOperand *next = aliases.getAliases()[0].opOperand;
      int32_t nextValue = ir.tensor(next->get());
      if (nextValue >= 0) {
        start = next;
        cur = nextValue;
        continue;
      }
    }
    for (Value d : state.findDefinitions(start))
      answer.push_back(ir.tensor(d));
    break;
  }
  for (int32_t c : chain) {
    facts.definitions[c] = answer;
    facts.definitionsKnown[c] = 1;
    facts.touchedValues.push_back(c);
  }
  return facts.definitions[v];
}

LogicalResult InplaceAnalysis::checkFacts(int32_t scope, bool reverse) {
  const BufferizationOptions &opts = state.getOptions();
  auto fail = [&](Operation *op, const std::string &what) {
    return op->emitOpError(
        "memplan: kept interface fact differs from upstream's: " + what);
  };
  std::vector<int32_t> ops, values, operands;
  for (int32_t op = scope; op <= ir.graph.opEnd[scope]; ++op) {
    ops.push_back(op);
    for (int32_t o = ir.tensors.opOperandBegin[op];
         o < ir.tensors.opOperandBegin[op + 1]; ++o)
      if (ir.tensors.operandValue[o] >= 0)
        operands.push_back(o);
  }
  for (size_t v = 0; v < ir.tensors.values.size(); ++v)
    if (ir.isAncestor(scope, ir.tensors.valueOwner[static_cast<int32_t>(v)]))
      values.push_back(static_cast<int32_t>(v));
  if (reverse) {
    std::reverse(ops.begin(), ops.end());
    std::reverse(values.begin(), values.end());
    std::reverse(operands.begin(), operands.end());
  }
  for (int32_t op : ops)
    if (repetitiveRegionOfOp(op) !=
        state.getEnclosingRepetitiveRegion(ir.ops[op], opts))
      return fail(ir.ops[op], "enclosing repetitive region of the op");
  for (int32_t v : values) {
    Operation *owner = ir.ops[ir.tensors.valueOwner[v]];
    if (repetitiveRegionOfValue(v) !=
        state.getEnclosingRepetitiveRegion(ir.tensors.values[v], opts))
      return fail(owner, "enclosing repetitive region of a value");
    if (isValueRead(v) != state.isValueRead(ir.tensors.values[v]))
      return fail(owner, "whether a value is read");
  }
  for (int32_t o : operands) {
    SmallVector<int32_t> upstream;
    for (Value d : state.findDefinitions(ir.tensors.operands[o]))
      upstream.push_back(ir.tensor(d));
    if (!llvm::equal(definitions(o), upstream))
      return fail(
          ir.tensors.operands[o]->getOwner(),
          "definitions of operand " +
              std::to_string(ir.tensors.operands[o]->getOperandNumber()));
  }
  return success();
}

// ------------------------------------------------------------- alias sets

int32_t InplaceAnalysis::find(int32_t v) {
  int32_t r = v;
  while (parent[r] != r)
    r = parent[r];
  while (parent[v] != r) {
    int32_t up = parent[v];
    parent[v] = r;
    v = up;
  }
  return r;
}

void InplaceAnalysis::unionAlias(int32_t a, int32_t b) {
  int32_t ra = find(a), rb = find(b);
  if (ra == rb)
    return;
  parent[rb] = ra;
  nInplaceWrites[ra] += nInplaceWrites[rb];
  nNonWritable[ra] += nNonWritable[rb];
  if (indexOn)
    index.merge(ra, rb);
}

bool InplaceAnalysis::hasInplaceWrites(ArrayRef<int32_t> values) {
  return llvm::any_of(values,
                      [&](int32_t v) { return nInplaceWrites[find(v)] != 0; });
}

void InplaceAnalysis::valueAndAliases(int32_t o,
                                      SmallVectorImpl<int32_t> &out) {
  out.push_back(ir.tensors.operandValue[o]);
  for (int32_t v : aliasingValues(o))
    out.push_back(v);
}

// -------------------------------------------------------------- conflicts

void InplaceAnalysis::valueReads(int32_t v, SmallVectorImpl<int32_t> &out) {
  for (int32_t u = ir.tensors.useBegin[v]; u < ir.tensors.useBegin[v + 1];
       ++u) {
    int32_t o = ir.tensors.uses[u];
    if (reads(o)) {
      out.push_back(o);
      continue;
    }
    // A use that only creates an alias whose value is read later.
    if (!writes(o) && llvm::any_of(aliasingValues(o),
                                   [&](int32_t a) { return isValueRead(a); }))
      out.push_back(o);
  }
}

void InplaceAnalysis::aliasingReads(SmallVectorImpl<int32_t> &out, int32_t v) {
  state.applyOnAliases(ir.tensors.values[v], [&](Value alias) {
    int32_t a = ir.tensor(alias);
    if (a >= 0)
      valueReads(a, out);
  });
}

void InplaceAnalysis::aliasingInplaceWrites(SmallVectorImpl<int32_t> &out,
                                            int32_t v) {
  state.applyOnAliases(ir.tensors.values[v], [&](Value alias) {
    int32_t a = ir.tensor(alias);
    if (a < 0)
      return;
    for (int32_t u = ir.tensors.useBegin[a]; u < ir.tensors.useBegin[a + 1];
         ++u)
      if (inPlace[ir.tensors.uses[u]] && writes(ir.tensors.uses[u]))
        out.push_back(ir.tensors.uses[u]);
  });
}

bool InplaceAnalysis::happensBefore(Operation *a, Operation *b) const {
  do {
    if (a->isProperAncestor(b))
      return false;
    if (domInfo->properlyDominates(a, b))
      return true;
  } while ((a = a->getParentOp()));
  return false;
}

namespace {
/// Whether `to` is reachable from `from` through successors, not passing
/// `except`.
bool isReachable(Block *from, Block *to, Block *except) {
  llvm::DenseSet<Block *> visited;
  SmallVector<Block *> work(from->getSuccessors().begin(),
                            from->getSuccessors().end());
  while (!work.empty()) {
    Block *next = work.pop_back_val();
    if (next == except)
      continue;
    if (next == to)
      return true;
    if (!visited.insert(next).second)
      continue;
    for (Block *succ : next->getSuccessors())
      work.push_back(succ);
  }
  return false;
}

/// Whether `writeOp`, outside the block `block` whose argument is read by
/// `readOp`, can clobber that argument before the read: the write lies in a
/// block of `block`'s region that `block` reaches, and the read in a block
/// the write's block reaches without passing through `block` again (which
/// would define the argument anew), or outside the region.
///
/// Upstream One-Shot Analysis takes any write outside the block of a block
/// argument as unable to clobber it. That holds for the single block of a
/// structured op's region, but not under unstructured control flow: an
/// argument of a function's entry block is live in every block the entry
/// reaches. Upstream writes `tensor.insert %c into %arg0` in place in a
/// `cf.cond_br` successor while a block after it still reads `%arg0`, a
/// miscompile; memplan keeps that write out of place, and otherwise decides
/// as upstream does.
bool clobbersAcrossBlocks(Block *block, Operation *writeOp, Operation *readOp) {
  Region *region = block->getParent();
  Operation *write = region->findAncestorOpInRegion(*writeOp);
  if (!write || !isReachable(block, write->getBlock(), nullptr))
    return false;
  Operation *read = region->findAncestorOpInRegion(*readOp);
  return !read || read->getBlock() == write->getBlock() ||
         isReachable(write->getBlock(), read->getBlock(), block);
}
} // namespace

bool InplaceAnalysis::isRepetitive(int32_t op, Region *region) const {
  BufferizableOpInterface iface = bufferizable(op);
  return iface && iface.isRepetitiveRegion(region->getRegionNumber());
}

Region *InplaceAnalysis::repetitiveRegionOfBlock(int32_t block) {
  // Upstream's getEnclosingRepetitiveRegion, over the numbering: out through
  // the enclosing blocks until a repetitive region; every block on the way
  // shares it.
  SmallVector<int32_t, 8> path;
  Region *found;
  for (int32_t b = block;;) {
    if (facts.blockRepetitiveKnown[b]) {
      found = facts.blockRepetitive[b];
      break;
    }
    path.push_back(b);
    Region *region = ir.blocks[b]->getParent();
    int32_t parent = ir.graph.blockParentOp[b];
    if (isRepetitive(parent, region)) {
      found = region;
      break;
    }
    if (ir.graph.opBlock[parent] < 0) {
      // The root: its ancestors are not numbered.
      found = state.getEnclosingRepetitiveRegion(ir.ops[parent],
                                                 state.getOptions());
      break;
    }
    b = ir.graph.opBlock[parent];
  }
  for (int32_t b : path) {
    facts.blockRepetitive[b] = found;
    facts.blockRepetitiveKnown[b] = 1;
  }
  return found;
}

Region *InplaceAnalysis::repetitiveRegionOfOp(int32_t op) {
  int32_t block = ir.graph.opBlock[op];
  return block < 0 ? state.getEnclosingRepetitiveRegion(ir.ops[op],
                                                        state.getOptions())
                   : repetitiveRegionOfBlock(block);
}

Region *InplaceAnalysis::repetitiveRegionOfValue(int32_t v) {
  return ir.tensors.valueOp[v] >= 0
             ? repetitiveRegionOfOp(ir.tensors.valueOp[v])
             : repetitiveRegionOfBlock(ir.tensors.valueBlock[v]);
}

bool InplaceAnalysis::hasTensorSemantics(int32_t op) {
  if (facts.tensorSemantics[op] < 0)
    facts.tensorSemantics[op] = bufferization::hasTensorSemantics(ir.ops[op]);
  return facts.tensorSemantics[op];
}

bool InplaceAnalysis::canUseOpDominance(int32_t r, int32_t w,
                                        llvm::ArrayRef<int32_t> defs) {
  const BufferizationOptions &opts = state.getOptions();
  Operation *readOp = ir.tensors.operands[r]->getOwner();
  Operation *writeOp = ir.tensors.operands[w]->getOwner();
  for (int32_t d : defs) {
    Region *rRead = repetitiveRegionOfOp(ir.tensors.operandOp[r]);
    Region *rDef = repetitiveRegionOfValue(d);
    if (rRead == rDef)
      continue;
    while (true) {
      if (!rRead) {
        // Upstream asserts here.
        if (!error)
          readOp->emitOpError("memplan: unexpected nesting of repetitive "
                              "regions (upstream One-Shot "
                              "Analysis asserts on this input)");
        error = true;
        return true;
      }
      Region *next = getNextEnclosingRepetitiveRegion(rRead, opts);
      if (next == rDef)
        break;
      rRead = next;
    }
    if (rRead->getParentOp()->isAncestor(writeOp))
      return false;
  }
  // Unstructured control flow: op order proves nothing for a read and a
  // write on a CFG cycle that avoids the definition's block.
  if (readOp->getParentRegion() != writeOp->getParentRegion())
    return true;
  Block *readBlock = readOp->getBlock(), *writeBlock = writeOp->getBlock();
  for (int32_t d : defs) {
    Block *defBlock = Value(ir.tensors.values[d]).getParentBlock();
    if (isReachable(readBlock, writeBlock, defBlock) &&
        isReachable(writeBlock, readBlock, defBlock))
      return false;
  }
  return true;
}

bool InplaceAnalysis::walkBufferOrigins(
    Value start, DenseSet<Value> &seen, function_ref<bool(Value)> hit,
    function_ref<bool(OpOperand &)> followUndecided) {
  const BufferizationOptions &opts = state.getOptions();
  SmallVector<Value> work{start};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (hit(v))
      return true;
    auto arg = dyn_cast<BlockArgument>(v);
    // An argument of a function's entry block is a buffer of its own, as
    // One-Shot Analysis assumes (function arguments do not alias).
    bool functionArgument =
        arg && arg.getOwner()->isEntryBlock() &&
        isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (!opts.dynCastBufferizableOp(v)) {
      if (functionArgument)
        continue;
      return true;
    }
    // A block argument a predecessor forwards without BranchOpInterface
    // (upstream's aliasing query asserts on it) may hold any buffer.
    if (arg && !arg.getOwner()->isEntryBlock() &&
        llvm::any_of(arg.getOwner()->getPredecessors(), [](Block *pred) {
          return !isa<BranchOpInterface>(pred->getTerminator());
        }))
      return true;
    AliasingOpOperandList aliases = state.getAliasingOpOperands(v);
    if (aliases.getNumAliases() == 0) {
      // A result aliasing no operand has a new buffer; an argument of
      // another block (a structured op's iteration argument) may hold any.
      if (arg && !functionArgument)
        return true;
      continue;
    }
    for (AliasingOpOperand alias : aliases) {
      // An operand decided out of place gives the value a new buffer; one
      // not decided yet may still be in place.
      int32_t o = ir.tensorOperand(alias.opOperand);
      if (o >= 0 && outOfPlace[o])
        continue;
      if (followUndecided && !(o >= 0 && inPlace[o]) &&
          !followUndecided(*alias.opOperand))
        return true;
      work.push_back(alias.opOperand->get());
    }
  }
  return false;
}

bool InplaceAnalysis::mayWriteBufferOf(int32_t w, BlockArgument def) {
  // Alias sets merge at a join: a block argument that takes `%a` from one
  // predecessor and `%b` from another puts both in one set, but a write into
  // `%b`'s buffer does not write `%a`'s. The buffers `def` may be and those
  // the written value may be are found by walking the aliasing operands
  // back. Operands not decided yet are followed, so later decisions only
  // shrink both walks: an answer of "no" stays true for the rest of the
  // analysis (the incremental check does not ask a pair again).
  DenseSet<Value> defOrigins, writtenOrigins;
  if (walkBufferOrigins(def, defOrigins, [](Value) { return false; }))
    return true;
  return walkBufferOrigins(ir.tensors.operands[w]->get(), writtenOrigins,
                           [&](Value v) { return defOrigins.contains(v); });
}

namespace {
/// The operands `branch` forwards when control enters `successor`.
OperandRange forwardedTo(RegionBranchOpInterface branch,
                         const RegionSuccessor &successor) {
  return branch.getEntrySuccessorOperands(successor);
}
/// The operands `terminator` forwards to `successor`.
OperandRange forwardedTo(RegionBranchTerminatorOpInterface terminator,
                         const RegionSuccessor &successor) {
  return terminator.getSuccessorOperands(successor);
}

/// The region successors of `terminator`, its operands' values unknown.
SmallVector<RegionSuccessor>
successorsOf(RegionBranchTerminatorOpInterface terminator) {
  SmallVector<Attribute> unknown(terminator->getNumOperands());
  SmallVector<RegionSuccessor> successors;
  terminator.getSuccessorRegions(unknown, successors);
  return successors;
}

/// Where `operand`, an operand the region branch point `from` (a region
/// branch op entering its successors `succs`, or a region terminator)
/// forwards, goes: the successors' inputs, into `out`; not the results of
/// `stopAt`. False where a successor's inputs do not match the forwarded
/// operands (the caller gives up then).
template <typename BranchPoint>
bool forwardOperand(BranchPoint from, ArrayRef<RegionSuccessor> succs,
                    OpOperand &operand, Operation *stopAt,
                    SmallVectorImpl<Value> &out) {
  for (const RegionSuccessor &succ : succs) {
    OperandRange forwarded = forwardedTo(from, succ);
    unsigned n = operand.getOperandNumber();
    if (forwarded.empty() || n < forwarded.getBeginOperandIndex() ||
        n >= forwarded.getBeginOperandIndex() + forwarded.size())
      continue;
    ValueRange inputs = succ.getSuccessorInputs();
    if (inputs.size() != forwarded.size())
      return false;
    Value input = inputs[n - forwarded.getBeginOperandIndex()];
    // Leaving the op whose operand is asked about: its results alias that
    // operand (the analysis checks their writes on its own).
    if (succ.isParent() && input.getDefiningOp() == stopAt)
      continue;
    out.push_back(input);
  }
  return true;
}
} // namespace

bool InplaceAnalysis::regionsMayWrite(int32_t w) {
  auto [cached, inserted] = regionWriteCache.try_emplace(w, true);
  if (!inserted)
    return cached->second;
  OpOperand &operand = *ir.tensors.operands[w];
  Operation *op = operand.getOwner();
  auto branch = dyn_cast<RegionBranchOpInterface>(op);
  if (!branch || !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return true;
  // The region arguments `w` enters, then every value that may share their
  // buffer: aliasing values (whatever is decided) and what terminators
  // forward, inside the op. Any use that may write (or an op that is not
  // bufferizable) means the op may write `w`'s buffer.
  SmallVector<Value> work;
  SmallVector<RegionSuccessor> succs;
  branch.getSuccessorRegions(RegionBranchPoint::parent(), succs);
  if (!forwardOperand(branch, succs, operand, /*stopAt=*/op, work))
    return true;
  llvm::erase_if(work, [&](Value v) { return !isa<BlockArgument>(v); });
  if (work.empty())
    return true;
  const BufferizationOptions &opts = state.getOptions();
  if (anyUseReached(work, [&](OpOperand &use) {
        Operation *user = use.getOwner();
        if (!opts.dynCastBufferizableOp(user) ||
            state.bufferizesToMemoryWrite(use))
          return true;
        for (AliasingValue alias : state.getAliasingValues(use))
          work.push_back(alias.value);
        auto terminator = dyn_cast<RegionBranchTerminatorOpInterface>(user);
        return terminator &&
               !forwardOperand(terminator, successorsOf(terminator), use,
                               /*stopAt=*/op, work);
      }))
    return true;
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] operand #"
                          << operand.getOperandNumber() << " of "
                          << op->getName() << " at " << op->getLoc()
                          << ": its regions never write it\n");
  regionWriteCache[w] = false;
  return false;
}

bool InplaceAnalysis::readReachesUse(int32_t r) {
  auto [cached, inserted] = readUseCache.try_emplace(r, true);
  if (!inserted)
    return cached->second;
  // The read's data lives on only in the results of its op, when the op has
  // no other effect (an op that may have one, a terminator or a call, counts
  // as a use). Each use of a result is followed: through ops without other
  // effects to their results, and through region terminators to the results
  // of the op around them. A terminator that may forward into a region (a
  // loop's yield) or a branch to another block counts as a use.
  Operation *readOp = ir.tensors.operands[r]->getOwner();
  if (!wouldOpBeTriviallyDead(readOp))
    return true;
  SmallVector<Value> work(readOp->getResults());
  if (anyUseReached(work, [&](OpOperand &use) {
        Operation *user = use.getOwner();
        auto terminator = dyn_cast<RegionBranchTerminatorOpInterface>(user);
        if (!terminator) {
          if (!wouldOpBeTriviallyDead(user))
            return true;
          llvm::append_range(work, user->getResults());
          return false;
        }
        // A function's return is return-like, but its results are used.
        if (!isa<RegionBranchOpInterface>(user->getParentOp()))
          return true;
        SmallVector<RegionSuccessor> next = successorsOf(terminator);
        return llvm::any_of(
                   next,
                   [](const RegionSuccessor &s) { return !s.isParent(); }) ||
               !forwardOperand(terminator, next, use, /*stopAt=*/nullptr, work);
      }))
    return true;
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] operand #"
                          << ir.tensors.operands[r]->getOperandNumber()
                          << " of " << readOp->getName() << " at "
                          << readOp->getLoc()
                          << ": what it reads is never used\n");
  readUseCache[r] = false;
  return false;
}

bool InplaceAnalysis::clobbersAcrossBlocksLater(int32_t w) {
  if (options.bufferize.cfgConflictsAsUpstream)
    return false;
  OpOperand *uWrite = ir.tensors.operands[w];
  Operation *writeOp = uWrite->getOwner();
  // Only under unstructured control flow: a region around the write with
  // several blocks (single-block IR pays one walk up).
  bool severalBlocks = false;
  for (Region *r = writeOp->getParentRegion(); r && !severalBlocks;
       r = r->getParentRegion())
    severalBlocks = !r->hasOneBlock();
  if (!severalBlocks)
    return false;
  BufferizableOpInterface iface = bufferizable(ir.tensors.operandOp[w]);
  if (!iface || iface.mustBufferizeInPlace(*uWrite, state))
    return false;
  // The buffers the written value may come to share: its aliasing operands
  // walked back, through those not decided yet. Each of those must lie in a
  // block that properly dominates the write's (every path through the write
  // passes it), or before an op of its own block in whose regions the write
  // is (a branch after it): then a copy at the write is made on no more
  // paths than one at that operand. Otherwise the write is left to the usual
  // rule.
  auto dominatesWrite = [&](OpOperand &link) {
    Operation *linkOp = link.getOwner();
    Block *linkBlock = linkOp->getBlock();
    Operation *write = linkBlock->getParent()->findAncestorOpInRegion(*writeOp);
    if (!write)
      return false;
    if (write->getBlock() == linkBlock)
      return write != writeOp && linkOp->isBeforeInBlock(write);
    return domInfo->dominates(linkBlock, write->getBlock());
  };
  DenseSet<Value> origins;
  if (walkBufferOrigins(
          uWrite->get(), origins, [](Value) { return false; }, dominatesWrite))
    return false;
  SmallVector<int32_t, 4> roots;
  SmallVector<int32_t, 4> values;
  valueAndAliases(w, values);
  for (int32_t v : values)
    roots.push_back(find(v));
  SmallVector<int32_t> readList;
  for (Value origin : origins) {
    auto arg = dyn_cast<BlockArgument>(origin);
    int32_t a = arg ? ir.tensor(arg) : -1;
    // An argument of the write's block (or of one around it) is upstream's
    // case; one already in the write's sets was checked with them.
    if (a < 0 || arg.getOwner()->findAncestorOpInBlock(*writeOp) ||
        llvm::is_contained(roots, find(a)))
      continue;
    readList.clear();
    aliasingReads(readList, a);
    for (int32_t r : readList) {
      llvm::ArrayRef<int32_t> defs = definitions(r);
      if (defs.empty())
        continue;
      int32_t d = pairConflict(r, w, defs);
      if (d >= 0) {
        LLVM_DEBUG(llvm::dbgs()
                   << "[" DEBUG_TYPE "] operand #" << uWrite->getOperandNumber()
                   << " of " << writeOp->getName() << " at "
                   << writeOp->getLoc()
                   << ": out of place in its block, its buffer may come to "
                      "be that of argument #"
                   << arg.getArgNumber() << " of an earlier block\n");
        reportConflict(w, r, w, d);
        return true;
      }
    }
  }
  return false;
}

int32_t InplaceAnalysis::pairConflict(int32_t r, int32_t w,
                                      llvm::ArrayRef<int32_t> defs) {
  OpOperand *uRead = ir.tensors.operands[r], *uWrite = ir.tensors.operands[w];
  Operation *readOp = uRead->getOwner(), *writeOp = uWrite->getOwner();
  if (canUseOpDominance(r, w, defs)) {
    if (happensBefore(readOp, writeOp))
      return -1;
    if (r == w)
      return -1;
    // Ops of one region are never in mutually exclusive regions (the first
    // region branch op around both holds them in the same region).
    if (readOp->getParentRegion() != writeOp->getParentRegion() &&
        state.insideMutuallyExclusiveRegions(readOp, writeOp))
      return -1;
    if (readOp == writeOp) {
      if (auto readInterface = bufferizable(ir.tensors.operandOp[r])) {
        if (readInterface.bufferizesToElementwiseAccess(state,
                                                        {uRead, uWrite})) {
          auto equivalentInChain = [&](OpOperand *start, Value other) {
            TraversalConfig config;
            config.followEquivalentOnly = true;
            config.alwaysIncludeLeaves = false;
            config.followSameTypeOrCastsOnly = true;
            return !state
                        .findValueInReverseUseDefChain(
                            start, [&](Value v) { return v == other; }, config)
                        .empty();
          };
          if (equivalentInChain(uRead, uWrite->get()) ||
              equivalentInChain(uWrite, uRead->get()))
            return -1;
        }
      }
    }
  }
  // The first definition the write can clobber before the read. The rules
  // after it only rule conflicts out, so checking it first changes nothing
  // but cost.
  int32_t found = -1;
  for (int32_t d : defs) {
    Value def = ir.tensors.values[d];
    if (Operation *defOp = def.getDefiningOp()) {
      if (happensBefore(writeOp, defOp))
        continue;
      if (defOp->isProperAncestor(writeOp))
        continue;
    } else if (!cast<BlockArgument>(def).getOwner()->findAncestorOpInBlock(
                   *writeOp) &&
               // cfg-conflicts-as-upstream: upstream's rule that a write
               // outside a block argument's block never clobbers it.
               (options.bufferize.cfgConflictsAsUpstream ||
                !clobbersAcrossBlocks(cast<BlockArgument>(def).getOwner(),
                                      writeOp, readOp) ||
                !mayWriteBufferOf(w, cast<BlockArgument>(def)) ||
                !regionsMayWrite(w) || !readReachesUse(r))) {
      // A write outside the argument's block cannot clobber it before the
      // read, unless a path of blocks runs from that block to the write and
      // on to the read (clobbersAcrossBlocks), the written buffer may be
      // the argument's, the write is one (an iteration argument's operand,
      // written, the interface says, whose loop never writes it writes
      // nothing: regionsMayWrite), and what the read reads may be used
      // (readReachesUse).
      continue;
    }
    const SmallVector<int32_t, 2> &aliases = aliasingValues(w);
    if (aliases.size() == 1 && aliases[0] == d)
      continue;
    found = d;
    break;
  }
  if (found < 0)
    return -1;
  if (nonConflictingSubsets(r, w))
    return -1;
  if (auto readInterface = bufferizable(ir.tensors.operandOp[r]))
    if (readInterface.isNotConflicting(uRead, uWrite, state))
      return -1;
  if (writeOp != readOp)
    if (auto writeInterface = bufferizable(ir.tensors.operandOp[w]))
      if (writeInterface.isNotConflicting(uRead, uWrite, state))
        return -1;
  return found;
}

bool InplaceAnalysis::matchesInsertDestination(
    OpOperand *start, SubsetInsertionOpInterface insertion) {
  // Every value the reverse use-def chain from `start` ends at must be an op
  // result extracting the very subset `insertion` inserts into. Equivalence
  // classes do not change while a scope's decisions are made, so each
  // (insertion, value) answer holds for the whole scope.
  auto isMatchingSubset = [&](Value v) {
    auto result = dyn_cast<OpResult>(v);
    if (!result)
      return false;
    auto [it, inserted] =
        equivalentSubsetCache.try_emplace({insertion.getOperation(), v}, false);
    if (!inserted)
      return it->second;
    auto equivalent = [&](Value a, Value b) {
      return state.areEquivalentBufferizedValues(a, b);
    };
    std::optional<bool> known =
        identicalSliceAnswer(insertion, result, equivalent);
    it->second =
        known ? *known : insertion.isEquivalentSubset(result, equivalent);
    return it->second;
  };
  SetVector<Value> ends =
      state.findValueInReverseUseDefChain(start, isMatchingSubset);
  return llvm::all_of(ends, isMatchingSubset);
}

bool InplaceAnalysis::nonConflictingSubsets(int32_t r, int32_t w) {
  auto [cached, inserted] = subsetPairCache.try_emplace({r, w}, false);
  if (!inserted)
    return cached->second;
  OpOperand *uRead = ir.tensors.operands[r], *uWrite = ir.tensors.operands[w];
  bool nonConflicting = false;
  if (auto insertion =
          dyn_cast<SubsetInsertionOpInterface>(uRead->getOwner())) {
    // The insertion reads the rest of its destination, not the subset the
    // write fills; and it reads its source where an equivalent destination
    // already holds it.
    if (uRead == &insertion.getDestinationOperand())
      nonConflicting = matchesInsertDestination(uWrite, insertion);
    else if (uRead == &insertion.getSourceOperand() &&
             uWrite == &insertion.getDestinationOperand())
      nonConflicting = matchesInsertDestination(uRead, insertion);
  }
  if (!nonConflicting)
    if (auto insertion =
            dyn_cast<SubsetInsertionOpInterface>(uWrite->getOwner()))
      // The insertion writes back what the read value already holds there.
      nonConflicting =
          uWrite == &insertion.getDestinationOperand() &&
          state.areEquivalentBufferizedValues(
              uRead->get(), insertion.getSourceOperand().get()) &&
          matchesInsertDestination(&insertion.getSourceOperand(), insertion);
  // try_emplace's iterator may have moved while the chain was followed.
  subsetPairCache[{r, w}] = nonConflicting;
  return nonConflicting;
}

void InplaceAnalysis::reportConflict(int32_t o, int32_t r, int32_t w,
                                     int32_t def) {
  EngineConflict c;
  c.op = ir.tensors.operandOp[o];
  c.operand = ir.tensors.operands[o]->getOperandNumber();
  if (r >= 0) {
    c.readOp = ir.tensors.operandOp[r];
    c.readOperand = ir.tensors.operands[r]->getOperandNumber();
    c.writeOp = ir.tensors.operandOp[w];
    c.writeOperand = ir.tensors.operands[w]->getOperandNumber();
    c.definition = describe(ir.tensors.values[def]);
  }
  conflictList.push_back(c);
  if (!options.printConflicts || r < 0)
    return;
  std::string id = "C_" + std::to_string(cCounter++);
  OpOperand *uRead = ir.tensors.operands[r], *uWrite = ir.tensors.operands[w];
  MLIRContext *ctx = root->getContext();
  uWrite->getOwner()->setAttr(
      id + "[CONFL-WRITE: " + std::to_string(uWrite->getOperandNumber()) + "]",
      UnitAttr::get(ctx));
  uRead->getOwner()->setAttr(
      id + "[READ: " + std::to_string(uRead->getOperandNumber()) + "]",
      UnitAttr::get(ctx));
  annotateValue(ir.tensors.values[def], id + "[DEF: ");
}

bool InplaceAnalysis::fullRaw(int32_t o, ArrayRef<int32_t> values,
                              bool writesOperand, bool record) {
  SmallVector<int32_t> readList, writeList;
  for (int32_t v : values) {
    aliasingReads(readList, v);
    aliasingInplaceWrites(writeList, v);
  }
  if (writesOperand)
    writeList.push_back(o);
  llvm::sort(readList);
  readList.erase(std::unique(readList.begin(), readList.end()), readList.end());
  llvm::sort(writeList);
  writeList.erase(std::unique(writeList.begin(), writeList.end()),
                  writeList.end());
  const BufferizationOptions &opts = state.getOptions();
  if (opts.checkParallelRegions && !readList.empty() && hasParallelRegions) {
    // A write in a parallel region into a buffer defined outside of it.
    for (int32_t w : writeList) {
      OpOperand *uWrite = ir.tensors.operands[w];
      SetVector<Value> defsOrLeaves = state.findValueInReverseUseDefChain(
          uWrite, [&](Value v) { return state.bufferizesToMemoryWrite(v); });
      Region *writeRegion =
          getParallelRegion(uWrite->getOwner()->getParentRegion(), opts);
      for (Value d : defsOrLeaves)
        if (getParallelRegion(d.getParentRegion(), opts) != writeRegion) {
          if (record)
            reportConflict(o, -1, w, -1);
          return true;
        }
    }
  }
  for (int32_t r : readList) {
    llvm::ArrayRef<int32_t> defs = definitions(r);
    if (defs.empty())
      continue;
    for (int32_t w : writeList) {
      int32_t d = pairConflict(r, w, defs);
      if (d >= 0) {
        if (record)
          reportConflict(o, r, w, d);
        return true;
      }
    }
  }
  return false;
}

const AliasIndex::Window &InplaceAnalysis::window(int32_t r) {
  auto it = windowCache.find(r);
  if (it != windowCache.end())
    return it->second;
  llvm::ArrayRef<int32_t> defs = definitions(r);
  AliasIndex::Window w;
  if (!defs.empty()) {
    int32_t block = ir.graph.opBlock[ir.tensors.operandOp[r]];
    int64_t lo = INT64_MAX;
    bool anywhere = false;
    for (int32_t d : defs) {
      int32_t defOp = ir.tensors.valueOp[d];
      int32_t defBlock =
          defOp >= 0 ? ir.graph.opBlock[defOp] : ir.tensors.valueBlock[d];
      if (defBlock != block) {
        anywhere = true;
        break;
      }
      lo = std::min<int64_t>(lo, defOp >= 0 ? defOp : -1);
    }
    if (anywhere)
      w.kind = AliasIndex::Window::Anywhere;
    else
      w = {AliasIndex::Window::InBlock, block, lo};
  }
  return windowCache.emplace(r, w).first->second;
}

void InplaceAnalysis::buildIndex(int32_t scope) {
  index.clear();
  windowCache.clear();
  SmallVector<int32_t> readList;
  for (size_t v = 0; v < ir.tensors.values.size(); ++v) {
    int32_t owner =
        ir.tensors.valueOp[v] >= 0
            ? ir.tensors.valueOp[v]
            : ir.op(ir.blocks[ir.tensors.valueBlock[v]]->getParentOp());
    if (!ir.isAncestor(scope, owner))
      continue;
    int32_t rootId = find(static_cast<int32_t>(v));
    readList.clear();
    valueReads(static_cast<int32_t>(v), readList);
    for (int32_t r : readList)
      index.addRead(rootId, r, ir.tensors.operandOp[r], window(r));
    for (int32_t u = ir.tensors.useBegin[v]; u < ir.tensors.useBegin[v + 1];
         ++u) {
      int32_t o = ir.tensors.uses[u];
      if (inPlace[o] && writes(o))
        index.addWrite(rootId, o, ir.tensors.operandOp[o],
                       ir.graph.opBlock[ir.tensors.operandOp[o]]);
    }
  }
}

bool InplaceAnalysis::incrementalRaw(int32_t o, ArrayRef<int32_t> values,
                                     bool writesOperand) {
  SmallVector<int32_t, 4> roots;
  for (int32_t v : values) {
    int32_t r = find(v);
    if (!llvm::is_contained(roots, r))
      roots.push_back(r);
  }
  if (roots.size() == 1 && !writesOperand)
    return false;
  int32_t hitRead = -1, hitWrite = -1, hitDef = -1;
  auto check = [&](int32_t r, int32_t w, llvm::ArrayRef<int32_t> defs) {
    int32_t d = pairConflict(r, w, defs);
    if (d < 0)
      return false;
    hitRead = r, hitWrite = w, hitDef = d;
    return true;
  };
  // Pairs across two sets the decision merges.
  for (size_t i = 0; i < roots.size(); ++i) {
    const AliasIndex::Set &ri = index.get(roots[i]);
    if (ri.numReads == 0)
      continue;
    for (size_t j = 0; j < roots.size(); ++j) {
      if (i == j)
        continue;
      const AliasIndex::Set &wj = index.get(roots[j]);
      if (wj.numWrites == 0)
        continue;
      bool found;
      if (ri.numReads <= wj.numWrites) {
        found = AliasIndex::anyRead(ri, [&](int32_t r) {
          llvm::ArrayRef<int32_t> defs = definitions(r);
          return AliasIndex::anyWriteForRead(
              wj, ir.tensors.operandOp[r], window(r),
              [&](int32_t w) { return check(r, w, defs); });
        });
      } else {
        found = AliasIndex::anyWrite(wj, [&](int32_t w) {
          int32_t wop = ir.tensors.operandOp[w];
          return AliasIndex::anyReadForWrite(
              ri, wop, ir.graph.opBlock[wop],
              [&](int32_t r) { return check(r, w, definitions(r)); });
        });
      }
      if (found) {
        reportConflict(o, hitRead, hitWrite, hitDef);
        return true;
      }
    }
  }
  // The decision's own write against every read of the merged set.
  if (writesOperand) {
    int32_t wop = ir.tensors.operandOp[o];
    for (int32_t rootId : roots) {
      bool found = AliasIndex::anyReadForWrite(
          index.get(rootId), wop, ir.graph.opBlock[wop], [&](int32_t r) {
            llvm::ArrayRef<int32_t> defs = definitions(r);
            return !defs.empty() && check(r, o, defs);
          });
      if (found) {
        reportConflict(o, hitRead, hitWrite, hitDef);
        return true;
      }
    }
  }
  return false;
}

bool InplaceAnalysis::wouldCreateRaw(int32_t o, bool consistencyOnly) {
  SmallVector<int32_t, 4> values;
  valueAndAliases(o, values);
  bool writesOperand = !consistencyOnly && writes(o);
  if (!writesOperand && !hasInplaceWrites(values))
    return false;
  bool useIndex =
      indexOn && !consistencyOnly &&
      !(state.getOptions().checkParallelRegions && hasParallelRegions);
  if (useIndex)
    return incrementalRaw(o, values, writesOperand);
  return fullRaw(o, values, writesOperand, /*record=*/!consistencyOnly);
}

bool InplaceAnalysis::wouldCreateWriteToNonWritable(int32_t o,
                                                    bool consistencyOnly) {
  SmallVector<int32_t, 4> values;
  valueAndAliases(o, values);
  bool foundWrite = (!consistencyOnly && writes(o)) || hasInplaceWrites(values);
  if (!foundWrite)
    return false;
  if (!llvm::any_of(values,
                    [&](int32_t v) { return nNonWritable[find(v)] != 0; }))
    return false;
  if (options.printConflicts || !consistencyOnly) {
    std::vector<EngineValue> *hits =
        consistencyOnly ? nullptr : &nonWritable[o];
    llvm::DenseSet<Value> seen;
    auto visit = [&](Value v) {
      if (state.isWritable(v))
        return;
      if (options.printConflicts)
        annotateValue(v, "W_" + std::to_string(wCounter++) + "[NOT-WRITABLE: ");
      if (hits && seen.insert(v).second)
        hits->push_back(describe(v));
    };
    state.applyOnAliases(ir.tensors.operands[o]->get(), visit);
    for (AliasingValue alias : state.getAliasingValues(*ir.tensors.operands[o]))
      state.applyOnAliases(alias.value, visit);
  }
  return true;
}

// -------------------------------------------------------------- decisions

void InplaceAnalysis::bufferizeInPlace(int32_t o) {
  if (inPlace[o])
    return;
  inPlace[o] = 1;
  state.bufferizeInPlace(*ir.tensors.operands[o]);
  int32_t v = ir.tensors.operandValue[o];
  if (writes(o)) {
    int32_t rootId = find(v);
    nInplaceWrites[rootId]++;
    if (indexOn)
      index.addWrite(rootId, o, ir.tensors.operandOp[o],
                     ir.graph.opBlock[ir.tensors.operandOp[o]]);
  }
  for (int32_t a : aliasingValues(o))
    unionAlias(a, v);
}

void InplaceAnalysis::analyzeOperand(int32_t o) {
  // memplan's cross-block rule also asks a write about the block arguments
  // its buffer may come to share once aliasing operands not decided yet
  // join its sets: a write in a branch then goes out of place there (an
  // allocation on the writing path only) rather than leaving a view in the
  // argument's block to be copied later on every path.
  bool conflict = wouldCreateWriteToNonWritable(o, false) ||
                  wouldCreateRaw(o, false) ||
                  (writes(o) && clobbersAcrossBlocksLater(o));
  OpOperand *operand = ir.tensors.operands[o];
  decided.push_back({ir.tensors.operandOp[o],
                     static_cast<int32_t>(operand->getOperandNumber()),
                     !conflict});
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] operand #"
                          << operand->getOperandNumber() << " of "
                          << operand->getOwner()->getName() << " at "
                          << operand->getOwner()->getLoc() << ": "
                          << (conflict ? "out of place" : "in place") << "\n");
  if (conflict) {
    outOfPlace[o] = 1;
    state.bufferizeOutOfPlace(*operand);
  } else
    bufferizeInPlace(o);
}

LogicalResult
InplaceAnalysis::checkPreBufferizationAssumptions(ArrayRef<int32_t> ops) {
  for (int32_t id : ops) {
    BufferizableOpInterface op = opInterface[id];
    if (op.supportsUnstructuredControlFlow())
      continue;
    for (Region &r : op->getRegions())
      if (r.getBlocks().size() > 1)
        return op->emitOpError(
            "op or BufferizableOpInterface implementation does not support "
            "unstructured "
            "control flow, but at least one region has multiple blocks");
  }
  for (int32_t id : ops) {
    BufferizableOpInterface op = opInterface[id];
    if (auto toTensor = dyn_cast<ToTensorOp>(op.getOperation()))
      if (!toTensor.getRestrict() && !toTensor->getUses().empty())
        return op->emitOpError("to_tensor ops without `restrict` are not "
                               "supported by One-Shot Analysis");
    // The op's tensor operands, in operand order.
    for (int32_t o = ir.tensors.opOperandBegin[id];
         o < ir.tensors.opOperandBegin[id + 1]; ++o) {
      if (wouldCreateRaw(o, true))
        return op->emitOpError("not bufferizable under the given constraints: "
                               "cannot avoid RaW conflict");
      if (inPlace[o] && wouldCreateWriteToNonWritable(o, true))
        return op->emitOpError("not bufferizable under the given constraints: "
                               "would write to read-only buffer");
    }
  }
  return failure(error);
}

std::vector<Operation *> InplaceAnalysis::analysisOrder(Operation *scope) {
  std::vector<Operation *> ops;
  if (options.heuristic == "bottom-up-from-terminators") {
    llvm::SetVector<Operation *> traversed;
    scope->walk<WalkOrder::PostOrder>(
        [&](RegionBranchTerminatorOpInterface term) {
          if (!traversed.insert(term))
            return;
          SmallVector<OpResult> work;
          for (Value v : term->getOperands())
            if (isTensor(v))
              if (auto result = dyn_cast<OpResult>(v))
                work.push_back(result);
          while (!work.empty()) {
            OpResult result = work.pop_back_val();
            Operation *def = result.getDefiningOp();
            if (!traversed.insert(def))
              continue;
            if (!term->getParentRegion()->findAncestorOpInRegion(*def))
              continue;
            for (AliasingOpOperand alias :
                 state.getAliasingOpOperands(result)) {
              Value v = alias.opOperand->get();
              if (isTensor(v))
                if (auto r = dyn_cast<OpResult>(v))
                  work.push_back(r);
            }
          }
        });
    ops.assign(traversed.begin(), traversed.end());
    scope->walk<WalkOrder::PostOrder, mlir::ReverseIterator>(
        [&](Operation *op) {
          if (!traversed.contains(op) && hasTensorSemantics(ir.op(op)))
            ops.push_back(op);
        });
    return ops;
  }
  for (int32_t id : ir.postOrderOf(ir.op(scope)))
    if (hasTensorSemantics(id))
      ops.push_back(ir.ops[id]);
  if (options.heuristic == "fuzzer") {
    std::mt19937 rng(options.fuzzerSeed);
    llvm::shuffle(ops.begin(), ops.end(), rng);
  }
  if (options.heuristic == "bottom-up")
    std::reverse(ops.begin(), ops.end());
  return ops;
}

LogicalResult InplaceAnalysis::analyzeScope(Operation *scope) {
  resetScopeCaches();
  domInfo = std::make_unique<DominanceInfo>(scope);
  // The scope's bufferizable ops, in post-order (as upstream walks them).
  SmallVector<int32_t> scopeIds;
  SmallVector<BufferizableOpInterface> scopeOps;
  for (int32_t id : ir.postOrderOf(ir.op(scope)))
    if (opInterface[id]) {
      scopeIds.push_back(id);
      scopeOps.push_back(opInterface[id]);
    }
  int32_t scopeId = ir.op(scope);
  if (!shared || !shared->checkedScopes.contains(scopeId)) {
    if (failed(checkPreBufferizationAssumptions(scopeIds)))
      return failure();
    if (shared)
      shared->checkedScopes.insert(scopeId);
  }
  std::vector<Operation *> order = analysisOrder(scope);
  buildIndex(ir.op(scope));
  indexOn = true;
  // Deferred operands go after all the others, in the same order.
  SmallVector<int32_t> last;
  for (Operation *op : order) {
    int32_t id = ir.op(op);
    for (int32_t o = ir.tensors.opOperandBegin[id];
         o < ir.tensors.opOperandBegin[id + 1]; ++o) {
      if (deferred[o])
        last.push_back(o);
      else
        analyzeOperand(o);
    }
    if (error)
      break;
  }
  for (int32_t o : last) {
    if (error)
      break;
    analyzeOperand(o);
  }
  indexOn = false;
  index.clear();
  if (error)
    return failure();
  if (options.checkFacts) {
    // Against the answers kept while deciding, then asked afresh the other
    // way round (the kept answers depend on which value was asked first).
    if (failed(checkFacts(scopeId, /*reverse=*/false)))
      return failure();
    if (!shared) {
      facts.reset();
      if (failed(checkFacts(scopeId, /*reverse=*/true)))
        return failure();
    }
  }
  equivalenceAnalysis(scopeOps, state, [&](OpResult result) {
    if (!shared)
      return state.getAliasingOpOperands(result);
    auto [it, inserted] = shared->resultAliases.try_emplace(ir.tensor(result));
    if (inserted)
      it->second = state.getAliasingOpOperands(result);
    return it->second;
  });
  // Only copy insertion asks which tensor uses are undefined.
  if (!options.testAnalysisOnly && options.undefinedUses)
    state.gatherUndefinedTensorUses(scope);
  return verifyAnalysis(scopeOps, state);
}

} // namespace memplan
