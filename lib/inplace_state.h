//===- inplace_state.h - Shared state of the in-place core -------*- C++ -*-===//
//
// Private to lib/inplace_*.cpp. Op semantics (the BufferizableOpInterface
// answers) live in per-operand and per-value arrays rather than per-op maps:
// a 100k-op module then costs a handful of flat vectors.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_INPLACE_STATE_H
#define MEMPLAN_INPLACE_STATE_H

#include "memplan/inplace.h"

#include "mlir-c/IR.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace memplan {
namespace inplace {

/// Thrown when the input needs what only the Python reference models.
struct DeclineError {
  int32_t op;
  std::string reason;
};

/// llvm::EquivalenceClasses with upstream's member order: the leader's list
/// first, merged lists appended.
struct UnionFind {
  std::vector<int32_t> parent, next, tail;
  explicit UnionFind(int32_t n) : parent(n), next(n, -1), tail(n) {
    for (int32_t i = 0; i < n; ++i)
      parent[i] = tail[i] = i;
  }
  int32_t find(int32_t v) {
    int32_t root = v;
    while (parent[root] != root)
      root = parent[root];
    while (parent[v] != root) {
      int32_t up = parent[v];
      parent[v] = root;
      v = up;
    }
    return root;
  }
  /// Merges b's class into a's; returns the absorbed root or -1.
  int32_t unite(int32_t a, int32_t b, int32_t &root) {
    int32_t ra = find(a), rb = find(b);
    root = ra;
    if (ra == rb)
      return -1;
    next[tail[ra]] = rb;
    tail[ra] = tail[rb];
    parent[rb] = ra;
    return rb;
  }
};

enum Elementwise : uint8_t { kNotElementwise = 0, kLinalg = 1, kAlways = 2 };

struct SliceEntry {
  bool isConst;
  int64_t v;  ///< Constant, or value id.
  bool operator==(const SliceEntry &o) const { return isConst == o.isConst && v == o.v; }
};
using SliceKey = std::vector<SliceEntry>;  ///< offsets, sizes, strides, with -2 separators.

/// Per-op semantics. Operand- and value-keyed facts live in State arrays.
struct Sem {
  bool present = false;
  bool bufferizable = true;
  bool regionBranch = false;
  bool isCast = false;
  bool call = false;
  bool restrict_ = true;
  uint8_t repetitive = 0;  ///< Bit mask over region indices.
  uint8_t parallel = 0;    ///< Bit mask over region indices.
  uint8_t elementwise = kNotElementwise;
  int32_t subsetSrc = -1, subsetDest = -1;
  int32_t forYield = -1;
  int32_t whileCond = -1, whileYield = -1;  ///< scf.while terminators.
  // Lazily computed caches.
  int8_t ewState = -1;  ///< -1 unknown, 0 not element-wise, 1 per-operand list.
  std::vector<uint8_t> ewIdentity;
  bool hasSliceKey = false;
  SliceKey sliceKey;
};

/// A loop's init operand aliases its result; the relation is equivalence
/// only while the loop carries the buffer through unchanged: bbArg `a1`
/// equivalent to operand `o1` (the yielded value) and, for scf.while, `a2`
/// to `o2` as well. `never`: the relation is always unknown.
struct LoopAlias {
  int32_t result;
  int32_t a1, o1;
  int32_t a2 = -1, o2 = -1;
  bool never = false;
};

struct State {
  const Graph &g;
  Options opts;
  bool hasParallel = false;  ///< Some op has a parallel region (scf.forall).
  int32_t nops, nvalues, noperands;
  bool rootIsModule = false;
  // Name ids of the ops the analysis asks about by name (-1: not in the module).
  int32_t idExtractSlice, idMaterialize, idScfIf, idIndexSwitch, idScfFor, idScfWhile, idFuncCall,
      idFuncFunc, idFuncReturn, idToTensor;
  std::vector<uint8_t> isTensor;     // per value
  std::vector<int32_t> opndOp;       // operand -> owner op
  std::vector<int32_t> useOpnd;      // uses as operand ids
  std::vector<int32_t> topBegin, topnds;  // tensor operands per op (CSR)
  std::vector<uint8_t> touches;      // op touches tensors

  // Semantics.
  std::vector<Sem> sem;
  std::vector<uint8_t> rd, wr, mustInplace;    // per operand
  std::vector<std::vector<Alias>> alias;       // per operand
  std::vector<int32_t> loopAlias;              // per operand: index into loops, or -1
  std::vector<LoopAlias> loops;
  std::vector<int32_t> lazyRead;               // per operand: bbArg, or -1
  std::vector<int8_t> resultWrite;             // per value: -1 default
  std::vector<int8_t> writable;                // per value: -1 default (true)
  std::vector<uint8_t> allocation;             // per value
  std::unordered_map<int32_t, std::vector<OpAlias>> valueAliasOperands;

  explicit State(const Graph &graph, const Options &o);

  // IR helpers.
  MlirOperation mop(int32_t op) const { return MlirOperation{g.opPtr[op]}; }
  const std::string &name(int32_t op) const { return g.names[g.opName[op]]; }
  bool is(int32_t op, int32_t nameId) const { return g.opName[op] == nameId; }
  bool hasRegions(int32_t op) const { return g.regionBegin[op + 1] > g.regionBegin[op]; }
  int32_t entryBlock(int32_t op, int32_t region = 0) const;
  int32_t terminator(int32_t block) const;
  int32_t owner(int32_t v) const {
    int32_t op = g.valueOp[v];
    return op >= 0 ? op : g.blockParentOp[g.valueBlock[v]];
  }
  bool hasTensors(int32_t op) const;
  bool isAllowed(int32_t op) const;
  const int32_t *tbegin(int32_t op) const { return topnds.data() + topBegin[op]; }
  const int32_t *tend(int32_t op) const { return topnds.data() + topBegin[op + 1]; }
  bool hasUses(int32_t v) const { return g.useBegin[v + 1] > g.useBegin[v]; }

  // Model (inplace_model.cpp).
  void describeAll();
  void describe(int32_t op);
  const SliceKey &sliceKey(int32_t op);
  bool linalgElementwise(int32_t op, int32_t o1, int32_t o2);
  void set(int32_t o, bool read, bool write) {
    rd[o] = read;
    wr[o] = write;
    alias[o].clear();
  }
  void set(int32_t o, bool read, bool write, Alias a) {
    set(o, read, write);
    alias[o].push_back(a);
  }
};

// Attribute access through the C API.
MlirAttribute attr(MlirOperation op, const char *name);
bool hasAttr(MlirOperation op, const char *name);
std::vector<int64_t> denseInts(MlirAttribute a);
std::string attrText(MlirAttribute a);

}  // namespace inplace
}  // namespace memplan

#endif  // MEMPLAN_INPLACE_STATE_H
