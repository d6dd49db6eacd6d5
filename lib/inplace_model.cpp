//===- inplace_model.cpp - Op semantics for the in-place core ---------------===//
//
// Upstream's BufferizableOpInterface answers per op, as in the Python
// reference model (python/memplan/inplace/model.py). Any op or pattern the
// reference models but this file does not is declined, never guessed.
//
//===----------------------------------------------------------------------===//

#include "inplace_state.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"

#include <algorithm>
#include <unordered_set>

namespace memplan {
namespace inplace {

namespace {

void appendToString(MlirStringRef ref, void *userData) {
  static_cast<std::string *>(userData)->append(ref.data, ref.length);
}

bool startsWith(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

std::string dialectOf(const std::string &name) { return name.substr(0, name.find('.')); }

const std::unordered_set<std::string> kBufferizableDialects = {
    "tensor", "linalg", "scf", "bufferization", "vector", "func", "sparse_tensor",
    "shape", "ml_program", "cf", "memref", "affine", "gpu", "async"};
const std::unordered_set<std::string> kArithBufferizable = {"arith.constant", "arith.select",
                                                           "arith.index_cast"};
const std::unordered_set<std::string> kUpstreamUnknown = {"linalg.pack", "linalg.unpack",
                                                         "tensor.bitcast"};
const std::unordered_set<std::string> kAlwaysOps = {"scf.for", "scf.while", "scf.forall", "scf.if",
                                                "scf.index_switch", "scf.execute_region",
                                                "func.func"};
const std::unordered_set<std::string> kRegionOk = {"linalg.yield", "tensor.yield", "scf.yield",
                                                  "vector.yield", "scf.condition",
                                                  "scf.forall.in_parallel"};
const std::unordered_set<std::string> kNotStructured = {
    "linalg.yield", "linalg.index", "linalg.pack", "linalg.unpack", "linalg.softmax",
    "linalg.winograd_filter_transform", "linalg.winograd_input_transform",
    "linalg.winograd_output_transform"};
const std::unordered_set<std::string> kReducing = {
    "linalg.matmul", "linalg.batch_matmul", "linalg.matvec", "linalg.vecmat", "linalg.dot",
    "linalg.batch_matvec", "linalg.batch_vecmat", "linalg.reduce", "linalg.batch_reduce_matmul",
    "linalg.contract", "linalg.mmt4d", "linalg.batch_mmt4d", "linalg.quantized_matmul",
    "linalg.quantized_batch_matmul", "linalg.matmul_transpose_a", "linalg.matmul_transpose_b",
    "linalg.batch_matmul_transpose_a", "linalg.batch_matmul_transpose_b"};
const std::unordered_set<std::string> kElementwiseNamed = {
    "linalg.copy", "linalg.map", "linalg.fill", "linalg.add", "linalg.sub", "linalg.mul",
    "linalg.div", "linalg.div_unsigned", "linalg.max", "linalg.min", "linalg.powf",
    "linalg.exp", "linalg.log", "linalg.abs", "linalg.ceil", "linalg.floor", "linalg.negf",
    "linalg.reciprocal", "linalg.round", "linalg.sqrt", "linalg.rsqrt", "linalg.square",
    "linalg.tanh", "linalg.erf", "linalg.select"};

[[noreturn]] void decline(int32_t op, const std::string &reason) { throw DeclineError{op, reason}; }

}  // namespace

MlirAttribute attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

bool hasAttr(MlirOperation op, const char *name) { return !mlirAttributeIsNull(attr(op, name)); }

std::vector<int64_t> denseInts(MlirAttribute a) {
  std::vector<int64_t> out;
  if (mlirAttributeIsNull(a))
    return out;
  intptr_t n = mlirDenseArrayGetNumElements(a);
  bool i32 = mlirAttributeIsADenseI32Array(a);
  for (intptr_t i = 0; i < n; ++i)
    out.push_back(i32 ? mlirDenseI32ArrayGetElement(a, i) : mlirDenseI64ArrayGetElement(a, i));
  return out;
}

std::string attrText(MlirAttribute a) {
  std::string s;
  mlirAttributePrint(a, appendToString, &s);
  return s;
}

State::State(const Graph &graph, const Options &o) : g(graph), opts(o) {
  nops = g.numOps();
  nvalues = g.numValues();
  noperands = static_cast<int32_t>(g.operands.size());
  rootIsModule = nops > 0 && name(0) == "builtin.module";
  idExtractSlice = g.nameId("tensor.extract_slice");
  idMaterialize = g.nameId("bufferization.materialize_in_destination");
  idScfIf = g.nameId("scf.if");
  idIndexSwitch = g.nameId("scf.index_switch");
  idScfFor = g.nameId("scf.for");
  idScfWhile = g.nameId("scf.while");
  idFuncCall = g.nameId("func.call");
  idFuncFunc = g.nameId("func.func");
  idFuncReturn = g.nameId("func.return");
  idToTensor = g.nameId("bufferization.to_tensor");
  isTensor.resize(nvalues);
  for (int32_t v = 0; v < nvalues; ++v)
    isTensor[v] = g.types[g.valueType[v]].isTensor();
  opndOp.resize(noperands);
  topBegin.assign(nops + 1, 0);
  touches.assign(nops, 0);
  for (int32_t op = 0; op < nops; ++op) {
    topBegin[op] = static_cast<int32_t>(topnds.size());
    for (int32_t o = g.operandBegin[op]; o < g.operandBegin[op + 1]; ++o) {
      opndOp[o] = op;
      int32_t v = g.operands[o];
      if (v >= 0 && isTensor[v]) {
        topnds.push_back(o);
        touches[op] = 1;
      }
    }
  }
  topBegin[nops] = static_cast<int32_t>(topnds.size());
  for (int32_t v = 0; v < nvalues; ++v) {
    if (!isTensor[v])
      continue;
    touches[owner(v)] = 1;
  }
  useOpnd.resize(g.useOp.size());
  for (size_t u = 0; u < g.useOp.size(); ++u)
    useOpnd[u] = g.operandBegin[g.useOp[u]] + g.useOperand[u];
  sem.resize(nops);
  rd.assign(noperands, 0);
  wr.assign(noperands, 0);
  mustInplace.assign(noperands, 0);
  alias.resize(noperands);
  loopAlias.assign(noperands, -1);
  lazyRead.assign(noperands, -1);
  resultWrite.assign(nvalues, -1);
  writable.assign(nvalues, -1);
  allocation.assign(nvalues, 0);
}

int32_t State::entryBlock(int32_t op, int32_t region) const {
  int32_t r = g.regionBegin[op] + region;
  if (g.regionBlockBegin[r + 1] == g.regionBlockBegin[r])
    return -1;
  return g.regionBlocks[g.regionBlockBegin[r]];
}

int32_t State::terminator(int32_t block) const {
  int32_t parent = g.blockParentOp[block];
  int32_t last = -1;
  for (int32_t op = g.blockFirstOp[block]; op >= 0 && op <= g.opEnd[parent]; op = g.opEnd[op] + 1) {
    if (g.opBlock[op] != block)
      break;
    last = op;
  }
  return last;
}

bool State::hasTensors(int32_t op) const {
  if (topBegin[op + 1] > topBegin[op])
    return true;
  for (int32_t v = g.resultBegin[op], e = v + g.numResults[op]; v < e; ++v)
    if (isTensor[v])
      return true;
  for (int32_t r = g.regionBegin[op]; r < g.regionBegin[op + 1]; ++r)
    for (int32_t i = g.regionBlockBegin[r]; i < g.regionBlockBegin[r + 1]; ++i) {
      int32_t b = g.regionBlocks[i];
      for (int32_t a = g.blockArgBegin[b], e = a + g.blockNumArgs[b]; a < e; ++a)
        if (isTensor[a])
          return true;
    }
  return false;
}

bool State::isAllowed(int32_t op) const {
  return !(startsWith(name(op), "func.") && !opts.functionBoundaries);
}

void State::describeAll() {
  for (int32_t op = 0; op < nops; ++op)
    describe(op);
}

namespace {

std::vector<int32_t> tensorResults(const State &s, int32_t op) {
  std::vector<int32_t> out;
  for (int32_t v = s.g.resultBegin[op], e = v + s.g.numResults[op]; v < e; ++v)
    if (s.isTensor[v])
      out.push_back(v);
  return out;
}

void unknownSem(State &s, int32_t op) {
  Sem &m = s.sem[op];
  m.present = true;
  m.bufferizable = false;
  std::vector<int32_t> targets = tensorResults(s, op);
  for (int32_t r = s.g.regionBegin[op]; r < s.g.regionBegin[op + 1]; ++r) {
    if (s.g.regionBlockBegin[r + 1] == s.g.regionBlockBegin[r])
      continue;
    int32_t b = s.g.regionBlocks[s.g.regionBlockBegin[r]];
    for (int32_t a = s.g.blockArgBegin[b], e = a + s.g.blockNumArgs[b]; a < e; ++a)
      if (s.isTensor[a])
        targets.push_back(a);
  }
  for (const int32_t *o = s.tbegin(op); o != s.tend(op); ++o) {
    s.set(*o, true, true);
    for (int32_t t : targets)
      s.alias[*o].push_back({t, kUnknown, false});
  }
}

bool isTensorOperand(const State &s, int32_t o) {
  int32_t v = s.g.operands[o];
  return v >= 0 && s.isTensor[v];
}

std::vector<int32_t> regionYields(State &s, int32_t op) {
  std::vector<int32_t> yields;
  for (int32_t r = s.g.regionBegin[op]; r < s.g.regionBegin[op + 1]; ++r) {
    int32_t n = s.g.regionBlockBegin[r + 1] - s.g.regionBlockBegin[r];
    if (n > 1)
      decline(op, "multi-block regions are not supported");
    if (n == 1)
      yields.push_back(s.terminator(s.g.regionBlocks[s.g.regionBlockBegin[r]]));
  }
  return yields;
}

bool insertReadsDest(State &s, int32_t op) {
  const SliceKey &key = s.sliceKey(op);
  const std::vector<int64_t> &shape =
      s.g.types[s.g.valueType[s.g.operands[s.g.operandBegin[op] + 1]]].shape;
  // key = offsets, -sep-, sizes, -sep-, strides
  size_t i = 0;
  bool allZero = true, sizesMatch = true, stridesOne = true;
  for (; !(key[i].isConst && key[i].v == INT64_MIN + 1); ++i)
    allZero &= key[i].isConst && key[i].v == 0;
  ++i;
  size_t k = 0;
  for (; !(key[i].isConst && key[i].v == INT64_MIN + 1); ++i, ++k)
    sizesMatch &= k < shape.size() && key[i].isConst && key[i].v == shape[k];
  sizesMatch &= k == shape.size();
  ++i;
  for (; i < key.size(); ++i)
    stridesOne &= key[i].isConst && key[i].v == 1;
  return !(allZero && sizesMatch && stridesOne);
}

bool structuredLinalg(State &s, int32_t op) {
  const std::string &n = s.name(op);
  if (kNotStructured.count(n))
    return false;
  return hasAttr(s.mop(op), "operandSegmentSizes") || n == "linalg.map" || n == "linalg.reduce" ||
         n == "linalg.transpose" || n == "linalg.broadcast";
}

void linalgModel(State &s, int32_t op) {
  Sem &m = s.sem[op];
  int32_t ob = s.g.operandBegin[op];
  int32_t n = s.g.operandBegin[op + 1] - ob;
  int32_t nIns, nOuts;
  std::vector<int64_t> seg = denseInts(attr(s.mop(op), "operandSegmentSizes"));
  if (!seg.empty()) {
    nIns = static_cast<int32_t>(seg[0]);
    nOuts = static_cast<int32_t>(seg[1]);
  } else {
    nOuts = s.g.numResults[op];
    nIns = n - nOuts;
  }
  if (nIns + nOuts != n)
    decline(op, "unexpected operands of '" + s.name(op) + "'");
  int32_t rb = s.g.resultBegin[op];
  bool tensorInits = false;
  for (int32_t i = 0; i < nOuts; ++i)
    tensorInits |= isTensorOperand(s, ob + nIns + i);
  if (tensorInits && s.g.numResults[op] != nOuts)
    decline(op, "linalg op with tensor inits but a different number of results");
  int32_t block = s.hasRegions(op) ? s.entryBlock(op) : -1;
  if (block < 0)
    decline(op, "linalg op without a body");
  int32_t nargs = s.g.blockNumArgs[block];
  int32_t arg0 = s.g.blockArgBegin[block];
  for (int32_t i = 0; i < n; ++i) {
    int32_t o = ob + i;
    if (!isTensorOperand(s, o))
      continue;
    bool used = i < nargs && s.hasUses(arg0 + i);
    if (i >= nIns)
      s.set(o, used, true, {rb + i - nIns, kEquiv, true});
    else
      s.set(o, used, false);
  }
  m.elementwise = kLinalg;
}

}  // namespace

const SliceKey &State::sliceKey(int32_t op) {
  Sem &m = sem[op];
  if (m.hasSliceKey)
    return m.sliceKey;
  MlirOperation mo = mop(op);
  int32_t dynBegin = g.operandBegin[op] + (name(op) == "tensor.extract_slice" ? 1 : 2);
  std::vector<int64_t> seg = denseInts(attr(mo, "operandSegmentSizes"));
  (void)seg;
  int32_t pos = dynBegin;
  SliceKey key;
  const char *parts[3] = {"static_offsets", "static_sizes", "static_strides"};
  for (int p = 0; p < 3; ++p) {
    if (p)
      key.push_back({true, INT64_MIN + 1});
    for (int64_t st : denseInts(attr(mo, parts[p]))) {
      if (st != INT64_MIN) {
        key.push_back({true, st});
        continue;
      }
      int32_t val = g.operands[pos++];
      int32_t cop = val >= 0 ? g.valueOp[val] : -1;
      if (cop >= 0 && name(cop) == "arith.constant") {
        MlirAttribute c = attr(mop(cop), "value");
        if (!mlirAttributeIsNull(c) && mlirAttributeIsAInteger(c)) {
          key.push_back({true, mlirIntegerAttrGetValueInt(c)});
          continue;
        }
      }
      key.push_back({false, val});
    }
  }
  m.sliceKey = std::move(key);
  m.hasSliceKey = true;
  return m.sliceKey;
}

bool State::linalgElementwise(int32_t op, int32_t o1, int32_t o2) {
  Sem &m = sem[op];
  if (m.ewState < 0) {
    MlirOperation mo = mop(op);
    const std::string &n = name(op);
    int32_t nopnds = g.operandBegin[op + 1] - g.operandBegin[op];
    m.ewIdentity.clear();
    if (n == "linalg.generic") {
      std::string its = attrText(attr(mo, "iterator_types"));
      if (its.find("reduction") != std::string::npos || its.find("window") != std::string::npos) {
        m.ewState = 0;
      } else {
        MlirAttribute maps = attr(mo, "indexing_maps");
        for (intptr_t i = 0, e = mlirArrayAttrGetNumElements(maps); i < e; ++i) {
          MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
          m.ewIdentity.push_back(mlirAffineMapGetNumSymbols(map) == 0 &&
                                 mlirAffineMapIsIdentity(map));
        }
        m.ewState = 1;
      }
    } else if (kReducing.count(n) || startsWith(n, "linalg.conv") ||
               startsWith(n, "linalg.pooling") || startsWith(n, "linalg.depthwise")) {
      m.ewState = 0;
    } else if (n == "linalg.transpose" || n == "linalg.broadcast") {
      m.ewIdentity.assign(nopnds, 0);
      m.ewIdentity.back() = 1;
      m.ewState = 1;
    } else if (kElementwiseNamed.count(n) && !hasAttr(mo, "indexing_maps")) {
      m.ewIdentity.assign(nopnds, 1);
      m.ewState = 1;
    } else {
      decline(op, "element-wise access of '" + n + "' is not modeled");
    }
  }
  if (m.ewState == 0)
    return false;
  int32_t ob = g.operandBegin[op];
  auto identity = [&](int32_t o) {
    size_t k = static_cast<size_t>(o - ob);
    return k < m.ewIdentity.size() && m.ewIdentity[k];
  };
  return identity(o1) && identity(o2);
}

void State::describe(int32_t op) {
  const std::string &n = name(op);
  if (n == "builtin.module")
    return;
  std::string dialect = dialectOf(n);
  if (!touches[op] && (!kAlwaysOps.count(n) || !isAllowed(op))) {
    if (hasRegions(op) && kBufferizableDialects.count(dialect) && !kAlwaysOps.count(n) &&
        !kRegionOk.count(n) && !startsWith(n, "linalg."))
      decline(op, "memplan's in-place analysis does not model '" + n + "'");
    return;
  }
  if (!isAllowed(op)) {
    if (hasTensors(op))
      unknownSem(*this, op);
    return;
  }
  Sem &m = sem[op];
  MlirOperation mo = mop(op);
  int32_t ob = g.operandBegin[op];
  int32_t rb = g.resultBegin[op];
  auto tensorOps = [&]() { return std::vector<int32_t>(tbegin(op), tend(op)); };
  auto view = [&](bool isCast) {
    std::vector<int32_t> res = tensorResults(*this, op);
    for (int32_t o : tensorOps()) {
      if (o == ob)
        set(o, false, false, {res.at(0), kEquiv, true});
      else
        set(o, true, false);
    }
    m.isCast = isCast;
  };
  auto readOnly = [&]() {
    for (int32_t o : tensorOps())
      set(o, true, false);
  };
  auto allocLike = [&]() {
    for (int32_t o : tensorOps())
      set(o, true, false);
    for (int32_t r : tensorResults(*this, op))
      allocation[r] = 1;
  };
  auto dpsAllRead = [&](int32_t init, int32_t tied) {
    for (int32_t o : tensorOps()) {
      if (o == init)
        set(o, true, true, {tied, kEquiv, true});
      else
        set(o, true, false);
    }
  };
  m.present = true;
  if (kUpstreamUnknown.count(n)) {
    // Not bufferizable upstream either: handled as an unknown op below.
  } else if (n == "tensor.empty") {
    for (int32_t r : tensorResults(*this, op)) {
      allocation[r] = 1;
      resultWrite[r] = 0;
    }
    return;
  } else if (n == "linalg.softmax") {
    set(ob, true, false);
    set(ob + 1, false, true, {rb, kEquiv, true});
    return;
  } else if (n == "tensor.extract_slice") {
    set(ob, false, false, {rb, kUnknown, true});
    return;
  } else if (n == "tensor.insert_slice") {
    set(ob, true, false);
    set(ob + 1, insertReadsDest(*this, op), true, {rb, kEquiv, true});
    m.subsetSrc = ob;
    m.subsetDest = ob + 1;
    return;
  } else if (n == "tensor.cast") {
    view(true);
    return;
  } else if (n == "tensor.collapse_shape" || n == "tensor.expand_shape" ||
             n == "tensor.reshape" || n == "arith.index_cast") {
    view(false);
    return;
  } else if (n == "tensor.dim" || n == "tensor.rank") {
    for (int32_t o : tensorOps())
      set(o, false, false);
    return;
  } else if (n == "tensor.extract" || n == "vector.transfer_read" || n == "func.return") {
    readOnly();
    return;
  } else if (n == "tensor.insert") {
    dpsAllRead(ob + 1, rb);
    return;
  } else if (n == "vector.transfer_write") {
    dpsAllRead(g.numResults[op] ? ob + 1 : -1, rb);
    return;
  } else if (n == "tensor.pad" || n == "tensor.generate" || n == "tensor.from_elements" ||
             n == "tensor.splat" || n == "tensor.concat") {
    allocLike();
    return;
  } else if (n == "tensor.yield") {
    return;
  } else if (n == "bufferization.alloc_tensor") {
    std::vector<int64_t> seg = denseInts(attr(mo, "operandSegmentSizes"));
    bool copy = seg.size() > 1 && seg[1] > 0;
    readOnly();
    allocation[rb] = 1;
    resultWrite[rb] = copy;
    return;
  } else if (n == "bufferization.to_tensor") {
    writable[rb] = hasAttr(mo, "writable");
    m.restrict_ = hasAttr(mo, "restrict");
    return;
  } else if (n == "bufferization.materialize_in_destination") {
    set(ob, true, false);
    mustInplace[ob] = 1;
    if (isTensorOperand(*this, ob + 1)) {
      set(ob + 1, false, true, {rb, kEquiv, true});
      mustInplace[ob + 1] = 1;
      m.subsetSrc = ob;
      m.subsetDest = ob + 1;
    }
    m.elementwise = kAlways;
    return;
  } else if (n == "bufferization.dealloc_tensor") {
    set(ob, false, false);
    return;
  } else if (n == "bufferization.to_buffer") {
    set(ob, true, !hasAttr(mo, "read_only"));
    return;
  } else if (n == "arith.constant") {
    for (int32_t r : tensorResults(*this, op))
      writable[r] = 0;
    return;
  } else if (n == "arith.select") {
    if (isTensorOperand(*this, ob))
      decline(op, "arith.select with a tensor condition");
    for (int32_t o = ob + 1; o <= ob + 2; ++o)
      if (isTensorOperand(*this, o))
        set(o, false, false, {rb, kEquiv, false});
    return;
  } else if (n == "scf.yield") {
    int32_t parent = g.opParent[op];
    const std::string &pn = name(parent);
    for (int32_t o : tensorOps()) {
      int32_t k = o - ob;
      set(o, true, false);
      if (pn == "scf.if")
        alias[o].push_back({g.resultBegin[parent] + k, kEquiv, false});
      else if (pn == "scf.execute_region")
        alias[o].push_back({g.resultBegin[parent] + k, kEquiv, true});
      else if (pn != "scf.index_switch" && pn != "scf.for" && pn != "scf.while")
        decline(op, "scf.yield inside '" + pn + "' is not modeled by the C++ core");
      mustInplace[o] = 1;
    }
    return;
  } else if (n == "scf.if" || n == "scf.index_switch") {
    m.regionBranch = true;
    std::vector<int32_t> yields = regionYields(*this, op);
    std::vector<int32_t> res = tensorResults(*this, op);
    std::vector<int32_t> order;
    if (n == "scf.if") {
      if (!res.empty() && yields.size() != 2)
        decline(op, "scf.if with tensor results but no else region");
      order = yields;
    } else {
      // Regions are (default, case...); upstream lists the cases first.
      order.assign(yields.begin() + (yields.empty() ? 0 : 1), yields.end());
      if (!yields.empty())
        order.push_back(yields[0]);
    }
    for (int32_t r : res) {
      std::vector<OpAlias> &lst = valueAliasOperands[r];
      for (int32_t y : order)
        lst.push_back({g.operandBegin[y] + (r - rb), kEquiv, false});
    }
    return;
  } else if (n == "scf.execute_region") {
    m.regionBranch = true;
    std::vector<int32_t> yields = regionYields(*this, op);
    for (int32_t r : tensorResults(*this, op)) {
      std::vector<OpAlias> &lst = valueAliasOperands[r];
      for (int32_t y : yields)
        lst.push_back({g.operandBegin[y] + (r - rb), kEquiv, true});
    }
    return;
  } else if (n == "scf.for") {
    m.regionBranch = true;
    m.repetitive = 1;
    int32_t block = entryBlock(op);
    int32_t yieldOp = terminator(block);
    int32_t arg0 = g.blockArgBegin[block];
    for (int32_t o : tensorOps()) {
      int32_t k = o - ob - 3;
      if (k < 0)
        continue;
      rd[o] = 1;
      wr[o] = 1;
      alias[o].assign(1, {rb + k, kUnknown, false});
      loopAlias[o] = static_cast<int32_t>(loops.size());
      loops.push_back({rb + k, arg0 + 1 + k, g.operandBegin[yieldOp] + k});
      lazyRead[o] = arg0 + 1 + k;
    }
    m.forYield = yieldOp;
    return;
  } else if (n == "func.func") {
    int32_t block = hasRegions(op) ? entryBlock(op) : -1;
    if (block >= 0) {
      MlirAttribute argAttrs = attr(mo, "arg_attrs");
      if (!mlirAttributeIsNull(argAttrs)) {
        for (int32_t i = 0; i < g.blockNumArgs[block]; ++i) {
          int32_t a = g.blockArgBegin[block] + i;
          if (!isTensor[a])
            continue;
          MlirAttribute d = mlirArrayAttrGetElement(argAttrs, i);
          MlirAttribute w = mlirDictionaryAttrGetElementByName(
              d, mlirStringRefCreateFromCString("bufferization.writable"));
          if (!mlirAttributeIsNull(w))
            writable[a] = mlirBoolAttrGetValue(w);
        }
      }
    }
    return;
  } else if (n == "func.call") {
    m.call = true;
    return;
  } else if (startsWith(n, "linalg.") && structuredLinalg(*this, op)) {
    linalgModel(*this, op);
    return;
  } else if (n == "scf.while") {
    m.regionBranch = true;
    m.repetitive = 3;
    int32_t before = entryBlock(op, 0), after = entryBlock(op, 1);
    if (before < 0 || after < 0)
      decline(op, "scf.while without both regions");
    int32_t cond = terminator(before), yld = terminator(after);
    m.whileCond = cond;
    m.whileYield = yld;
    int32_t nb = g.blockNumArgs[before], na = g.blockNumArgs[after];
    int32_t b0 = g.blockArgBegin[before], a0 = g.blockArgBegin[after];
    for (int32_t o : tensorOps()) {
      int32_t k = o - ob;
      rd[o] = 1;
      wr[o] = 1;
      alias[o].clear();
      if (k >= g.numResults[op] || g.valueType[g.operands[o]] != g.valueType[rb + k])
        continue;
      LoopAlias la{rb + k, -1, -1};
      int32_t condOpnd = g.operandBegin[cond] + 1 + k;
      if (k < nb && g.valueType[b0 + k] == g.valueType[rb + k] && condOpnd < g.operandBegin[cond + 1] &&
          k < na && g.operandBegin[yld] + k < g.operandBegin[yld + 1]) {
        la.a1 = b0 + k;
        la.o1 = condOpnd;
        la.a2 = a0 + k;
        la.o2 = g.operandBegin[yld] + k;
      } else {
        la.never = true;
      }
      alias[o].assign(1, {rb + k, kUnknown, false});
      loopAlias[o] = static_cast<int32_t>(loops.size());
      loops.push_back(la);
    }
    return;
  } else if (n == "scf.condition") {
    for (int32_t o : tensorOps()) {
      set(o, true, false);
      mustInplace[o] = 1;
    }
    return;
  } else if (n == "scf.forall") {
    m.regionBranch = true;
    m.repetitive = 1;
    m.parallel = 1;
    hasParallel = true;
    std::vector<int64_t> seg = denseInts(attr(mo, "operandSegmentSizes"));
    if (seg.size() != 4)
      decline(op, "unexpected operands of 'scf.forall'");
    int32_t nCtrl = static_cast<int32_t>(seg[0] + seg[1] + seg[2]);
    for (int32_t o : tensorOps()) {
      int32_t k = o - ob - nCtrl;
      if (k < 0)
        decline(op, "tensor loop bound in scf.forall");
      set(o, true, true, {rb + k, kEquiv, true});
    }
    return;
  } else if (n == "scf.forall.in_parallel") {
    return;
  } else if (n == "tensor.parallel_insert_slice") {
    // The destination (a shared_outs bbArg) aliases itself, as upstream reports.
    set(ob, true, false);
    set(ob + 1, false, true, {g.operands[ob + 1], kEquiv, true});
    m.subsetSrc = ob;
    m.subsetDest = ob + 1;
    return;
  }
  m = Sem();
  bool modeledDialect =
      (kBufferizableDialects.count(dialect) || kArithBufferizable.count(n)) && !kUpstreamUnknown.count(n);
  if (modeledDialect) {
    if (hasTensors(op) || (hasRegions(op) && !kRegionOk.count(n)))
      decline(op, "memplan's in-place analysis does not model '" + n + "'");
    return;
  }
  if (!hasTensors(op))
    return;
  if (!opts.allowUnknownOps)
    decline(op, "op '" + n + "' is not bufferizable");
  unknownSem(*this, op);
}

}  // namespace inplace
}  // namespace memplan
