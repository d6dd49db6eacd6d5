//===- inplace_driver.cpp - Module order, scopes and results ---------------===//
//
// Drives the conflict analysis (inplace_conflicts.h) over a module the way
// one-shot-bufferize does: must-in-place operands, function order over the
// call graph, per-scope analysis order (the four upstream heuristics),
// equivalence and loop checks, function boundary facts, then the copy plan
// and the annotations. Mirrors python/memplan/inplace/driver.py.
//
//===----------------------------------------------------------------------===//

#include "inplace_conflicts.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <random>
#include <tuple>

namespace memplan {
namespace inplace {
namespace {

using detail::Analysis;
using detail::decline;

// ===================================================================== driver

struct Driver {
  State &s;
  const Graph &g;
  Analysis an;
  std::vector<int32_t> funcs;
  std::unordered_map<std::string, int32_t> symbolFuncs;
  std::unordered_map<int32_t, size_t> factsOf;  // func -> index in facts
  std::vector<FuncFacts> facts;
  std::vector<int32_t> scopes;

  explicit Driver(State &st) : s(st), g(st.g), an(st) {}

  std::vector<int32_t> postOrder(int32_t root) const {
    std::vector<int32_t> ops;
    for (int32_t i = root; i <= g.opEnd[root]; ++i)
      ops.push_back(i);
    std::sort(ops.begin(), ops.end(), [&](int32_t a, int32_t b) {
      if (g.opEnd[a] != g.opEnd[b])
        return g.opEnd[a] < g.opEnd[b];
      return g.opDepth[a] > g.opDepth[b];
    });
    return ops;
  }

  std::string strAttr(int32_t op, const char *name) {
    MlirAttribute a = attr(s.mop(op), name);
    MlirStringRef r = mlirStringAttrGetValue(a);
    return std::string(r.data, r.length);
  }

  MlirType functionType(int32_t f) {
    return mlirTypeAttrGetValue(attr(s.mop(f), "function_type"));
  }

  static bool isTensorType(MlirType t) { return mlirTypeIsARankedTensor(t) || mlirTypeIsAUnrankedTensor(t); }

  bool tensorSignature(int32_t f) {
    MlirType ft = functionType(f);
    for (intptr_t i = 0, e = mlirFunctionTypeGetNumInputs(ft); i < e; ++i)
      if (isTensorType(mlirFunctionTypeGetInput(ft, i)))
        return true;
    for (intptr_t i = 0, e = mlirFunctionTypeGetNumResults(ft); i < e; ++i)
      if (isTensorType(mlirFunctionTypeGetResult(ft, i)))
        return true;
    return false;
  }

  int32_t callee(int32_t call) {
    MlirStringRef r = mlirFlatSymbolRefAttrGetValue(attr(s.mop(call), "callee"));
    auto it = symbolFuncs.find(std::string(r.data, r.length));
    if (it == symbolFuncs.end())
      decline(call, "callee not found");
    return it->second;
  }

  void setCall(int32_t call, const FuncFacts *f) {
    std::vector<int32_t> results;
    for (int32_t v = g.resultBegin[call], e = v + g.numResults[call]; v < e; ++v)
      if (s.isTensor[v])
        results.push_back(v);
    for (const int32_t *op = s.tbegin(call); op != s.tend(call); ++op) {
      int32_t o = *op;
      int32_t k = o - g.operandBegin[call];
      s.alias[o].clear();
      if (!f) {
        s.rd[o] = 1;
        s.wr[o] = 1;
        for (int32_t r : results)
          s.alias[o].push_back({r, kUnknown, false});
        continue;
      }
      s.rd[o] = k < (int32_t)f->read.size() && f->read[k];
      s.wr[o] = k < (int32_t)f->written.size() && f->written[k];
      auto it = f->aliasing.find(k);
      if (it == f->aliasing.end())
        continue;
      const std::vector<int32_t> &rets = it->second;
      bool equiv = false;
      if (rets.size() == 1) {
        auto eq = f->equivalent.find(rets[0]);
        equiv = eq != f->equivalent.end();
        // Upstream asserts ("inconsistent analysis state"): the only result
        // aliasing this operand is equivalent to another argument.
        if (equiv && eq->second != k)
          decline(call, "the callee's result aliases one argument but is equivalent to another");
      }
      for (int32_t ri : rets)
        s.alias[o].push_back({g.resultBegin[call] + ri, equiv ? kEquiv : kUnknown, equiv});
    }
  }

  void setup() {
    s.describeAll();
    for (int32_t op = 0; op < s.nops; ++op)
      for (int32_t r = g.regionBegin[op]; r < g.regionBegin[op + 1]; ++r)
        if (g.regionBlockBegin[r + 1] - g.regionBlockBegin[r] > 1)
          decline(op, "unstructured control flow (multi-block region) is not supported");
    for (int32_t v = 0; v < s.nvalues; ++v)
      if (g.types[g.valueType[v]].kind == TypeKind::UnrankedTensor)
        decline(s.owner(v), "unranked tensors are not modeled");
    for (int32_t v = 0; v < s.nvalues; ++v)
      if (s.isTensor[v] && !an.isWritable(v))
        an.nNonwritable[v] = 1;
    for (int32_t op = 1; op < s.nops; ++op) {
      if (!s.is(op, s.idFuncFunc))
        continue;
      if (g.opParent[op] != 0)
        decline(op, "func.func nested below the module is not supported");
      funcs.push_back(op);
    }
    for (int32_t f : funcs)
      symbolFuncs[strAttr(f, "sym_name")] = f;
    for (int32_t op = 0; op < s.nops; ++op)
      if (s.sem[op].present && s.sem[op].bufferizable && s.sem[op].call)
        setCall(op, nullptr);
    for (int32_t op : postOrder(0)) {
      const Sem &m = s.sem[op];
      if (!m.present || !m.bufferizable)
        continue;
      for (const int32_t *o = s.tbegin(op); o != s.tend(op); ++o)
        if (s.mustInplace[*o])
          an.bufferizeInplace(*o);
    }
  }

  void orderFunctions(std::vector<int32_t> &ordered, std::vector<int32_t> &remaining) {
    std::unordered_map<int32_t, std::vector<int32_t>> calledBy;
    std::unordered_map<int32_t, int32_t> count;
    for (int32_t f : funcs) {
      calledBy[f];
      count[f] = 0;
    }
    for (int32_t f : funcs) {
      std::unordered_set<int32_t> seen;
      for (int32_t op = f; op <= g.opEnd[f]; ++op) {
        if (!s.is(op, s.idFuncCall))
          continue;
        int32_t c = callee(op);
        if (!tensorSignature(c))
          continue;
        std::vector<int32_t> &cb = calledBy[c];
        if (!seen.count(f) && std::find(cb.begin(), cb.end(), f) == cb.end()) {
          cb.push_back(f);
          count[f] += 1;
        }
        seen.insert(c);
      }
    }
    std::vector<int32_t> work;
    for (auto it = funcs.rbegin(); it != funcs.rend(); ++it)
      if (count[*it] == 0)
        work.push_back(*it);
    while (!work.empty()) {
      int32_t f = work.back();
      work.pop_back();
      ordered.push_back(f);
      for (int32_t caller : calledBy[f]) {
        auto it = count.find(caller);
        if (it == count.end())
          continue;
        if (--it->second == 0)
          work.push_back(caller);
      }
      count.erase(f);
    }
    for (int32_t f : funcs)
      if (count.count(f))
        remaining.push_back(f);
  }

  void run() {
    setup();
    if (!s.opts.functionBoundaries) {
      scopes.push_back(0);
      analyzeScope(0);
      return;
    }
    std::vector<int32_t> ordered, remaining;
    orderFunctions(ordered, remaining);
    std::vector<int32_t> all = ordered;
    all.insert(all.end(), remaining.begin(), remaining.end());
    std::unordered_set<int32_t> rem(remaining.begin(), remaining.end());
    for (int32_t f : all) {
      for (int32_t op = f; op <= g.opEnd[f]; ++op) {
        if (s.is(op, s.idFuncCall) && s.sem[op].present && s.sem[op].bufferizable) {
          auto it = factsOf.find(callee(op));
          setCall(op, it == factsOf.end() ? nullptr : &facts[it->second]);
        }
      }
      scopes.push_back(f);
      analyzeScope(f);
      if (rem.count(f))
        continue;
      factsOf[f] = facts.size();
      facts.push_back(boundaryFacts(f));
    }
  }

  bool tensorSemantics(int32_t op) {
    if (s.is(op, s.idFuncFunc) && s.sem[op].present && s.sem[op].bufferizable)
      return tensorSignature(op);
    return s.hasTensors(op);
  }

  void analyzeScope(int32_t root) {
    an.clearReadCache();
    an.defsCache.clear();
    an.subsetCache.clear();
    std::vector<int32_t> post = postOrder(root);
    for (int32_t op : post)
      for (const int32_t *o = s.tbegin(op); o != s.tend(op); ++o)
        if (s.lazyRead[*o] >= 0)
          s.rd[*o] = an.isValueRead(s.lazyRead[*o]);
    an.clearReadCache();
    checkAssumptions(post);
    std::vector<int32_t> order;
    if (s.opts.heuristic == kFromTerminators) {
      order = fromTerminators(root, post);
    } else {
      for (int32_t op : post)
        if (tensorSemantics(op))
          order.push_back(op);
    }
    if (s.opts.heuristic == kBottomUp) {
      std::reverse(order.begin(), order.end());
    } else if (s.opts.heuristic == kFuzzer) {
      std::mt19937 rng(s.opts.fuzzerSeed);
      size_t first = 0, size = order.size();
      while (size > 1) {
        uint32_t off = rng() % size;
        if (off)
          std::swap(order[first], order[first + off]);
        ++first;
        --size;
      }
    }
    std::vector<int32_t> values;
    for (int32_t op = root; op <= g.opEnd[root]; ++op) {
      for (int32_t v = g.resultBegin[op], e = v + g.numResults[op]; v < e; ++v)
        if (s.isTensor[v])
          values.push_back(v);
      for (int32_t r = g.regionBegin[op]; r < g.regionBegin[op + 1]; ++r)
        for (int32_t i = g.regionBlockBegin[r]; i < g.regionBlockBegin[r + 1]; ++i) {
          int32_t b = g.regionBlocks[i];
          for (int32_t a = g.blockArgBegin[b], e = a + g.blockNumArgs[b]; a < e; ++a)
            if (s.isTensor[a])
              values.push_back(a);
        }
    }
    an.buildIndex(values);
    an.indexOn = true;
    for (int32_t op : order)
      for (const int32_t *o = s.tbegin(op); o != s.tend(op); ++o)
        an.analyzeOperand(*o);
    an.indexOn = false;
    an.sets.clear();
    an.elig.clear();
    equivalenceAnalysis(post);
    verify(post);
  }

  static bool isRegionTerminator(const std::string &n) {
    return n == "scf.yield" || n == "func.return" || n == "linalg.yield" || n == "tensor.yield" ||
           n == "scf.condition" || n == "scf.in_parallel" || n == "vector.yield" || n == "scf.reduce" ||
           n == "affine.yield";
  }

  /// bottom-up-from-terminators: the use-def chains of region terminators,
  /// walked backwards, first; then every other op in reversed post-order.
  std::vector<int32_t> fromTerminators(int32_t root, const std::vector<int32_t> &post) {
    std::vector<int32_t> result;
    std::unordered_set<int32_t> traversed;
    auto visit = [&](int32_t op) {
      if (!traversed.insert(op).second)
        return false;
      result.push_back(op);
      return true;
    };
    for (int32_t term : post) {
      if (!isRegionTerminator(s.name(term)) || !visit(term))
        continue;
      std::vector<int32_t> work;
      for (int32_t o = g.operandBegin[term]; o < g.operandBegin[term + 1]; ++o) {
        int32_t v = g.operands[o];
        if (v >= 0 && s.isTensor[v] && g.valueOp[v] >= 0)
          work.push_back(v);
      }
      while (!work.empty()) {
        int32_t v = work.back();
        work.pop_back();
        int32_t d = g.valueOp[v];
        if (!visit(d))
          continue;
        if (an.ancestorInBlock(g.opBlock[term], d) < 0)
          continue;
        for (const OpAlias &a : an.aliasingOpOperands(v)) {
          int32_t x = g.operands[a.operand];
          if (x >= 0 && s.isTensor[x] && g.valueOp[x] >= 0)
            work.push_back(x);
        }
      }
    }
    // walk<PostOrder, ReverseIterator>: nested ops first, back to front.
    std::unordered_map<int32_t, std::vector<int32_t>> children;
    for (int32_t op = root + 1; op <= g.opEnd[root]; ++op)
      children[g.opBlock[op]].push_back(op);
    std::vector<std::pair<int32_t, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [op, expanded] = stack.back();
      stack.pop_back();
      if (expanded) {
        if (!traversed.count(op) && tensorSemantics(op))
          result.push_back(op);
        continue;
      }
      stack.push_back({op, true});
      for (int32_t r = g.regionBegin[op]; r < g.regionBegin[op + 1]; ++r)
        for (int32_t i = g.regionBlockBegin[r]; i < g.regionBlockBegin[r + 1]; ++i) {
          auto it = children.find(g.regionBlocks[i]);
          if (it != children.end())
            for (int32_t child : it->second)
              stack.push_back({child, false});
        }
    }
    return result;
  }

  void checkAssumptions(const std::vector<int32_t> &post) {
    for (int32_t op : post) {
      const Sem &m = s.sem[op];
      if (!m.present || !m.bufferizable)
        continue;
      if (s.is(op, s.idToTensor) && !m.restrict_ &&
          s.hasUses(g.resultBegin[op]))
        decline(op, "to_tensor without restrict");
      for (const int32_t *o = s.tbegin(op); o != s.tend(op); ++o) {
        if (an.wouldCreateRaw(*o, true))
          decline(op, "cannot avoid RaW conflict");
        if (an.inplace[*o] && an.wouldWriteNonwritable(*o, true))
          decline(op, "would write to read-only buffer");
      }
    }
  }

  void equivalenceAnalysis(const std::vector<int32_t> &post) {
    for (int32_t op : post) {
      const Sem &m = s.sem[op];
      if (!m.present || !m.bufferizable)
        continue;
      for (int32_t r = g.resultBegin[op], e = r + g.numResults[op]; r < e; ++r) {
        if (!s.isTensor[r])
          continue;
        std::vector<OpAlias> aliases = an.aliasingOpOperands(r);
        if (aliases.empty())
          continue;
        int32_t first = g.operands[aliases[0].operand];
        bool allEq = true;
        for (const OpAlias &a : aliases) {
          bool isEq = a.rel == kEquiv;
          bool inpl = an.inplace[a.operand];
          int32_t val = g.operands[a.operand];
          if (isEq && inpl && a.definite) {
            int32_t root;
            an.equivUF.unite(r, val, root);
            allEq = false;
            break;
          }
          if (!isEq || !inpl)
            allEq = false;
          if (!an.equivalent(val, first))
            allEq = false;
        }
        if (allEq && !s.allocation[r]) {
          int32_t root;
          an.equivUF.unite(r, first, root);
        }
      }
    }
  }

  void verify(const std::vector<int32_t> &post) {
    if (s.opts.allowReturnAllocsFromLoops)
      return;
    for (int32_t op : post) {
      if (s.is(op, s.idScfWhile)) {
        verifyWhile(op);
        continue;
      }
      if (!s.is(op, s.idScfFor))
        continue;
      for (const int32_t *o = s.tbegin(op); o != s.tend(op); ++o) {
        if (*o - g.operandBegin[op] < 3)
          continue;
        if (an.aliasingValues(*o).at(0).rel != kEquiv)
          decline(op, "yield operand not equivalent to its iter bbArg");
      }
    }
  }

  void verifyWhile(int32_t op) {
    const Sem &m = s.sem[op];
    int32_t before = s.entryBlock(op, 0), after = s.entryBlock(op, 1);
    struct Term {
      int32_t term, first, argBegin, nargs;
    } terms[2] = {{m.whileCond, g.operandBegin[m.whileCond] + 1, g.blockArgBegin[before], g.blockNumArgs[before]},
                  {m.whileYield, g.operandBegin[m.whileYield], g.blockArgBegin[after], g.blockNumArgs[after]}};
    for (const Term &t : terms) {
      for (int32_t o = t.first; o < g.operandBegin[t.term + 1]; ++o) {
        int32_t v = g.operands[o];
        if (!s.isTensor[v])
          continue;
        int32_t k = o - t.first;
        if (k >= t.nargs || !an.equivalent(v, t.argBegin + k))
          decline(op, "scf.while operand not equivalent to its iter bbArg");
      }
    }
  }

  // ------------------------------------------------------- copy planning
  /// gatherUndefinedTensorUses: a bufferizable op's result with no
  /// definitions in its reverse use-def chain.
  bool undefinedContents(int32_t v) {
    int32_t op = g.valueOp[v];
    if (op < 0 || !s.sem[op].present || !s.sem[op].bufferizable)
      return false;
    if (!s.hasUses(v))
      return false;
    return an.definitions(s.useOpnd[g.useBegin[v]]).empty();
  }

  bool canOmitCopy(int32_t o) {
    if (undefinedContents(g.operands[o]))
      return true;
    if (s.wr[o] && !s.rd[o])
      return true;
    if (!s.rd[o]) {
      for (const Alias &a : an.aliasingValues(o))
        if (an.isValueRead(a.value))
          return false;
      return true;
    }
    return false;
  }

  bool regionProperlyEncloses(int32_t outer, int32_t inner) const {
    for (int32_t r = inner; r >= 0;) {
      r = an.opRegion(g.regionOp[r]);
      if (r == outer)
        return true;
    }
    return false;
  }

  /// scf.for's resolveConflicts: a yielded value aliasing a buffer from
  /// outside the loop (other than its iter_arg) gets a fresh allocation.
  void forYieldCopies(int32_t op, std::vector<std::array<int32_t, 4>> &out) {
    int32_t block = s.entryBlock(op);
    int32_t y = s.terminator(block);
    int32_t region = g.blockRegion[block];
    for (int32_t o = g.operandBegin[y]; o < g.operandBegin[y + 1]; ++o) {
      int32_t k = o - g.operandBegin[y];
      if (!s.isTensor[g.operands[g.operandBegin[op] + 3 + k]])
        continue;
      int32_t iterArg = g.blockArgBegin[block] + 1 + k;
      bool ok = true;
      for (int32_t m = an.aliasUF.find(g.operands[o]); m != -1; m = an.aliasUF.next[m]) {
        if (m == iterArg)
          continue;
        int32_t mr = an.valueRegion(m);
        if (g.valueOp[m] < 0) {
          if (!regionProperlyEncloses(region, mr))
            ok = false;
        } else if (!(mr == region || regionProperlyEncloses(region, mr))) {
          ok = false;
        }
      }
      if (!ok)
        out.push_back({2, y, k, 1});
    }
  }

  std::vector<std::array<int32_t, 4>> planCopies() {
    std::vector<std::array<int32_t, 4>> out;
    for (int32_t scope : scopes) {
      for (int32_t op : postOrder(scope)) {
        const Sem &m = s.sem[op];
        if (!m.present || !m.bufferizable)
          continue;
        for (const int32_t *po = s.tbegin(op); po != s.tend(op); ++po) {
          int32_t o = *po;
          if (an.inplace[o])
            continue;
          if (g.types[g.valueType[g.operands[o]]].kind != TypeKind::RankedTensor)
            decline(op, "copying of unranked tensors is not implemented");
          const std::vector<Alias> &aliases = an.aliasingValues(o);
          int32_t copy = canOmitCopy(o) ? 0 : 1;
          if (aliases.size() == 1 && g.valueOp[aliases[0].value] >= 0 && !s.wr[o] &&
              an.aliasingOpOperands(aliases[0].value).size() == 1)
            out.push_back({1, op, aliases[0].value, copy});
          else
            out.push_back({0, op, o - g.operandBegin[op], copy});
        }
        if (s.is(op, s.idScfFor))
          forYieldCopies(op, out);
      }
    }
    return out;
  }

  /// Bytes and number of the copies that copy contents; unknown ops' copies
  /// count as copies of their operand (explain.copy_cost).
  std::pair<int64_t, int64_t> copyCost() {
    constexpr int64_t kDynamicCost = int64_t(1) << 40;
    int64_t bytes = 0, count = 0;
    for (int32_t scope : scopes)
      for (int32_t op = scope; op <= g.opEnd[scope]; ++op)
        for (const int32_t *po = s.tbegin(op); po != s.tend(op); ++po) {
          int32_t o = *po;
          if (an.inplace[o])
            continue;
          int32_t target = g.operands[o];
          const Sem &m = s.sem[op];
          if (m.present && m.bufferizable) {
            const std::vector<Alias> &aliases = an.aliasingValues(o);
            if (aliases.size() == 1 && g.valueOp[aliases[0].value] >= 0 && !s.wr[o] &&
                an.aliasingOpOperands(aliases[0].value).size() == 1)
              target = aliases[0].value;
            if (canOmitCopy(o))
              continue;
          }
          int64_t b = g.types[g.valueType[target]].staticBytes();
          bytes += b < 0 ? kDynamicCost : b;
          count += 1;
        }
    return {bytes, count};
  }

  bool isValueWritten(int32_t v) {
    for (int32_t m = an.aliasUF.find(v); m != -1; m = an.aliasUF.next[m])
      for (int32_t u = g.useBegin[m]; u < g.useBegin[m + 1]; ++u) {
        int32_t o = s.useOpnd[u];
        if (an.inplace[o] && s.wr[o])
          return true;
      }
    return false;
  }

  FuncFacts boundaryFacts(int32_t f) {
    FuncFacts ff;
    ff.func = f;
    MlirType ft = functionType(f);
    intptr_t nIn = mlirFunctionTypeGetNumInputs(ft), nOut = mlirFunctionTypeGetNumResults(ft);
    ff.read.assign(nIn, false);
    ff.written.assign(nIn, false);
    int32_t block = s.hasRegions(f) ? s.entryBlock(f) : -1;
    if (block < 0) {
      for (intptr_t i = 0; i < nIn; ++i) {
        if (!isTensorType(mlirFunctionTypeGetInput(ft, i)))
          continue;
        std::vector<int32_t> &al = ff.aliasing[i];
        for (intptr_t j = 0; j < nOut; ++j)
          if (isTensorType(mlirFunctionTypeGetResult(ft, j)))
            al.push_back(static_cast<int32_t>(j));
      }
    } else {
      std::vector<int32_t> returns;
      for (int32_t op = f; op <= g.opEnd[f]; ++op)
        if (s.is(op, s.idFuncReturn))
          returns.push_back(op);
      if (returns.empty())
        decline(f, "func.func without func.return");
      auto ranked = [&](int32_t v) { return g.types[g.valueType[v]].kind == TypeKind::RankedTensor; };
      int32_t a0 = g.blockArgBegin[block], na = g.blockNumArgs[block];
      for (int32_t a = a0; a < a0 + na; ++a) {
        if (!ranked(a))
          continue;
        std::vector<int32_t> al;
        for (int32_t ret : returns)
          for (int32_t o = g.operandBegin[ret]; o < g.operandBegin[ret + 1]; ++o) {
            int32_t v = g.operands[o];
            if (ranked(v) && an.aliasUF.find(v) == an.aliasUF.find(a)) {
              int32_t k = o - g.operandBegin[ret];
              if (std::find(al.begin(), al.end(), k) == al.end())
                al.push_back(k);
            }
          }
        if (!al.empty())
          ff.aliasing[g.valueIndex[a]] = al;
      }
      auto equivArg = [&](int32_t o) -> int32_t {
        int32_t v = g.operands[o];
        if (!s.isTensor[v])
          return -1;
        for (int32_t a = a0; a < a0 + na; ++a)
          if (ranked(a) && an.equivalent(v, a)) {
            int32_t rop = s.opndOp[o];
            ff.equivAnnot[rop][o - g.operandBegin[rop]] = g.valueIndex[a];
            return g.valueIndex[a];
          }
        return -1;
      };
      int32_t n = g.operandBegin[returns[0] + 1] - g.operandBegin[returns[0]];
      for (int32_t i = 0; i < n; ++i) {
        int32_t e = equivArg(g.operandBegin[returns[0]] + i);
        if (e < 0)
          continue;
        bool all = true;
        for (size_t k = 1; k < returns.size() && all; ++k)
          all = equivArg(g.operandBegin[returns[k]] + i) == e;
        if (all)
          ff.equivalent[i] = e;
      }
    }
    MlirAttribute argAttrs = attr(s.mop(f), "arg_attrs");
    for (intptr_t i = 0; i < nIn; ++i) {
      if (!isTensorType(mlirFunctionTypeGetInput(ft, i)))
        continue;
      int access = -1;  // bit 0 read, bit 1 written
      if (!mlirAttributeIsNull(argAttrs)) {
        MlirAttribute d = mlirArrayAttrGetElement(argAttrs, i);
        MlirAttribute acc = mlirDictionaryAttrGetElementByName(
            d, mlirStringRefCreateFromCString("bufferization.access"));
        if (!mlirAttributeIsNull(acc)) {
          MlirStringRef r = mlirStringAttrGetValue(acc);
          std::string a(r.data, r.length);
          access = (a == "read" || a == "read-write" ? 1 : 0) | (a == "write" || a == "read-write" ? 2 : 0);
        }
      }
      bool isRead, isWritten;
      if (access >= 0) {
        isRead = access & 1;
        isWritten = access & 2;
      } else if (block < 0) {
        isRead = isWritten = true;
      } else {
        int32_t a = g.blockArgBegin[block] + static_cast<int32_t>(i);
        isRead = an.isValueRead(a);
        isWritten = isValueWritten(a);
      }
      ff.access[i] = isRead && isWritten ? "read-write" : isRead ? "read" : isWritten ? "write" : "none";
      ff.read[i] = isRead;
      ff.written[i] = isWritten;
    }
    return ff;
  }
};

}  // namespace

Result analyze(const Graph &g, const Options &opts) {
  Result res;
  try {
    State st(g, opts);
    Driver d(st);
    d.run();
    if (opts.planCopies) {
      res.copies = d.planCopies();
      std::tie(res.copyBytes, res.copyCount) = d.copyCost();
    }
    res.ok = true;
    res.inplace = std::move(d.an.inplace);
    res.decided = std::move(d.an.decided);
    res.scopes = std::move(d.scopes);
    res.facts = std::move(d.facts);
    res.conflicts = std::move(d.an.conflicts);
  } catch (const DeclineError &e) {
    res.ok = false;
    res.decline = {e.op, e.reason};
  } catch (const std::exception &e) {
    res.ok = false;
    res.decline = {-1, std::string("internal: ") + e.what()};
  }
  return res;
}

}  // namespace inplace
}  // namespace memplan
