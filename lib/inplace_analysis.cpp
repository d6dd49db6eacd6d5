//===- inplace_analysis.cpp - RaW conflicts, decisions and the driver -------===//
//
// The One-Shot analysis proper: alias and equivalence sets, definitions,
// read-after-write conflicts with upstream's happens-before, region and
// subset rules, the incremental pair index, function order and boundary
// facts. Mirrors python/memplan/inplace/{analysis,incremental,driver}.py.
//
//===----------------------------------------------------------------------===//

#include "inplace_state.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <algorithm>
#include <random>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace memplan {
namespace inplace {
namespace {

constexpr int64_t kInf = int64_t(1) << 62;

/// Small ordered set of ints: a vector while small, plus a hash set when big.
class IntSet {
 public:
  bool contains(int32_t x) const {
    if (big_)
      return set_.count(x) != 0;
    return std::find(items_.begin(), items_.end(), x) != items_.end();
  }
  bool insert(int32_t x) {
    if (contains(x))
      return false;
    items_.push_back(x);
    if (big_) {
      set_.insert(x);
    } else if (items_.size() > 24) {
      big_ = true;
      set_.insert(items_.begin(), items_.end());
    }
    return true;
  }
  const std::vector<int32_t> &items() const { return items_; }

 private:
  std::vector<int32_t> items_;
  std::unordered_set<int32_t> set_;
  bool big_ = false;
};

/// llvm::SetVector with pop_back.
class WorkList {
 public:
  bool insert(int32_t x) {
    if (members_.contains(x))
      return false;
    stack_.push_back(x);
    members_.insert(x);
    return true;
  }
  bool empty() const { return stack_.empty(); }
  int32_t pop() {
    int32_t x = stack_.back();
    stack_.pop_back();
    members_.erase(x);
    return x;
  }

 private:
  std::vector<int32_t> stack_;
  struct Members {
    std::unordered_set<int32_t> set;
    std::vector<int32_t> small;
    bool contains(int32_t x) const {
      return set.empty() ? std::find(small.begin(), small.end(), x) != small.end()
                         : set.count(x) != 0;
    }
    void insert(int32_t x) {
      if (!set.empty() || small.size() >= 24) {
        if (set.empty())
          set.insert(small.begin(), small.end());
        set.insert(x);
      } else {
        small.push_back(x);
      }
    }
    void erase(int32_t x) {
      if (!set.empty()) {
        set.erase(x);
        return;
      }
      auto it = std::find(small.begin(), small.end(), x);
      if (it != small.end())
        small.erase(it);
    }
  } members_;
};

[[noreturn]] void decline(int32_t op, const std::string &reason) { throw DeclineError{op, reason}; }

struct Analysis;

/// Per alias set: its reads and in-place writes, indexed by block order
/// (see incremental.py for why only new pairs need checking).
struct SetData {
  // block -> sorted (lo, rop, r); block -> sorted (wop, w). Insertion-ordered blocks.
  std::vector<std::pair<int32_t, std::vector<std::array<int64_t, 3>>>> readsB;
  std::vector<int32_t> readsX;
  std::vector<std::pair<int32_t, std::vector<std::array<int32_t, 2>>>> writesB;
  int64_t nreads = 0, nwrites = 0;
  int64_t size() const { return nreads + nwrites; }
  template <typename T>
  static std::vector<T> &slot(std::vector<std::pair<int32_t, std::vector<T>>> &lists, int32_t b) {
    for (auto &p : lists)
      if (p.first == b)
        return p.second;
    lists.push_back({b, {}});
    return lists.back().second;
  }
};

template <typename T>
void insort(std::vector<T> &v, const T &x) {
  v.insert(std::upper_bound(v.begin(), v.end(), x), x);
}

struct Elig {
  int8_t kind;  // 0 none (no definitions), 1 any write, 2 block window
  int32_t block;
  int64_t lo;
};

struct Analysis {
  State &s;
  const Graph &g;
  UnionFind aliasUF, equivUF;
  std::vector<int32_t> nInplaceWrites, nNonwritable;
  std::vector<uint8_t> inplace, decided;
  std::vector<std::array<int32_t, 4>> conflicts;
  // Per-scope caches.
  std::vector<int8_t> readCache;
  std::vector<int32_t> readTouched;
  std::unordered_map<int32_t, std::vector<int32_t>> defsCache;
  std::unordered_map<uint64_t, bool> subsetCache;
  // Index (per scope).
  bool indexOn = false;
  std::unordered_map<int32_t, SetData> sets;
  std::unordered_map<int32_t, Elig> elig;

  explicit Analysis(State &st)
      : s(st), g(st.g), aliasUF(st.nvalues), equivUF(st.nvalues), nInplaceWrites(st.nvalues),
        nNonwritable(st.nvalues), inplace(st.noperands), decided(st.noperands),
        readCache(st.nvalues, -1) {}

  // ------------------------------------------------------------------ IR
  int32_t opBlock(int32_t op) const { return g.opBlock[op]; }
  int32_t opRegion(int32_t op) const {
    int32_t b = g.opBlock[op];
    return b >= 0 ? g.blockRegion[b] : -1;
  }
  int32_t valueRegion(int32_t v) const {
    int32_t op = g.valueOp[v];
    if (op >= 0)
      return opRegion(op);
    return g.blockRegion[g.valueBlock[v]];
  }
  bool isAncestor(int32_t a, int32_t b) const { return a <= b && b <= g.opEnd[a]; }
  bool isProperAncestor(int32_t a, int32_t b) const { return a < b && b <= g.opEnd[a]; }
  int32_t ancestorInBlock(int32_t block, int32_t op) const {
    while (op >= 0 && g.opBlock[op] != block)
      op = g.opParent[op];
    return op;
  }
  bool properlyDominates(int32_t a, int32_t b) const {
    int32_t blk = g.opBlock[a];
    if (a == b || blk < 0)
      return false;
    int32_t bb = ancestorInBlock(blk, b);
    if (bb < 0)
      return false;
    if (bb == a)
      return true;
    if (g.blockParentOp[blk] == 0 && s.rootIsModule)
      return true;  // graph region: no SSA dominance
    return a < bb;
  }
  bool happensBefore(int32_t a, int32_t b) const {
    while (a >= 0) {
      if (isProperAncestor(a, b))
        return false;
      if (properlyDominates(a, b))
        return true;
      a = g.opParent[a];
    }
    return false;
  }

  // ----------------------------------------------------------- semantics
  bool read(int32_t o) const { return s.rd[o]; }
  bool write(int32_t o) const { return s.wr[o]; }
  bool equivalent(int32_t a, int32_t b) { return equivUF.find(a) == equivUF.find(b); }

  const std::vector<Alias> &aliasingValues(int32_t o) {
    int32_t f = s.loopAlias[o];
    if (f >= 0) {
      const LoopAlias &la = s.loops[f];
      bool eq = !la.never && equivalent(la.a1, g.operands[la.o1]) &&
                (la.a2 < 0 || equivalent(la.a2, g.operands[la.o2]));
      s.alias[o].assign(1, {la.result, eq ? kEquiv : kUnknown, eq});
    }
    return s.alias[o];
  }

  std::vector<OpAlias> aliasingOpOperands(int32_t v) {
    int32_t op = s.owner(v);
    const Sem &m = s.sem[op];
    std::vector<OpAlias> out;
    if (!m.present || !m.bufferizable) {
      if (g.valueOp[v] < 0) {
        int32_t b = g.valueBlock[v];
        int32_t r = g.blockRegion[b];
        if (g.regionBlocks[g.regionBlockBegin[r]] != b)
          return out;
      }
      for (const int32_t *o = s.tbegin(op); o != s.tend(op); ++o)
        out.push_back({*o, kUnknown, false});
      return out;
    }
    auto it = s.valueAliasOperands.find(v);
    if (it != s.valueAliasOperands.end())
      return it->second;
    for (const int32_t *o = s.tbegin(op); o != s.tend(op); ++o)
      for (const Alias &a : aliasingValues(*o))
        if (a.value == v)
          out.push_back({*o, a.rel, a.definite});
    return out;
  }

  bool bufferizableValue(int32_t v) const {
    const Sem &m = s.sem[s.owner(v)];
    return m.present && m.bufferizable;
  }

  bool isWritable(int32_t v) const {
    const Sem &m = s.sem[s.owner(v)];
    if (!m.present || !m.bufferizable)
      return false;
    return s.writable[v] != 0;  // -1 (default) and 1 are writable
  }

  bool aliasOnly(int32_t o) {
    const Sem &m = s.sem[s.opndOp[o]];
    if (!m.bufferizable)
      return false;
    return !s.rd[o] && !s.wr[o] && !aliasingValues(o).empty();
  }

  bool isValueRead(int32_t v) {
    if (readCache[v] >= 0)
      return readCache[v];
    std::vector<int32_t> work;
    for (int32_t u = g.useBegin[v]; u < g.useBegin[v + 1]; ++u)
      work.push_back(s.useOpnd[u]);
    IntSet visited;
    bool result = false;
    while (!work.empty()) {
      int32_t o = work.back();
      work.pop_back();
      if (!visited.insert(o))
        continue;
      if (aliasOnly(o))
        for (const Alias &a : aliasingValues(o))
          for (int32_t u = g.useBegin[a.value]; u < g.useBegin[a.value + 1]; ++u)
            work.push_back(s.useOpnd[u]);
      if (s.rd[o]) {
        result = true;
        break;
      }
    }
    readCache[v] = result;
    readTouched.push_back(v);
    return result;
  }

  void clearReadCache() {
    for (int32_t v : readTouched)
      readCache[v] = -1;
    readTouched.clear();
  }

  struct ChainOpts {
    bool includeLeaves = true, equivalentOnly = false, inplaceOnly = false, sameTypeOrCasts = false;
  };

  /// AnalysisState::findValueInReverseUseDefChain from operand `start`.
  template <typename Cond>
  std::vector<int32_t> findInChain(int32_t start, Cond cond, ChainOpts co) {
    IntSet visited, result;
    WorkList working;
    working.insert(g.operands[start]);
    while (!working.empty()) {
      int32_t value = working.pop();
      if (visited.contains(value)) {
        if (co.includeLeaves)
          result.insert(value);
        continue;
      }
      visited.insert(value);
      if (cond(value)) {
        result.insert(value);
        continue;
      }
      if (!bufferizableValue(value)) {
        if (co.includeLeaves)
          result.insert(value);
        continue;
      }
      std::vector<OpAlias> aliases = aliasingOpOperands(value);
      if (aliases.empty()) {
        if (co.includeLeaves)
          result.insert(value);
        continue;
      }
      for (const OpAlias &a : aliases) {
        if (co.equivalentOnly && a.rel != kEquiv) {
          if (co.includeLeaves)
            result.insert(value);
          continue;
        }
        if (co.inplaceOnly && !inplace[a.operand]) {
          if (co.includeLeaves)
            result.insert(value);
          continue;
        }
        if (co.sameTypeOrCasts) {
          int32_t src = g.operands[a.operand];
          int32_t vop = g.valueOp[value];
          bool isCast = vop >= 0 && s.sem[vop].present && s.sem[vop].isCast;
          if (g.valueType[src] != g.valueType[value] && !isCast) {
            if (co.includeLeaves)
              result.insert(value);
            continue;
          }
        }
        working.insert(g.operands[a.operand]);
      }
    }
    return result.items();
  }

  bool resultBufferizesToWrite(int32_t v) {
    int32_t op = g.valueOp[v];
    if (op < 0)
      return true;
    const Sem &m = s.sem[op];
    if (!m.present || !m.bufferizable)
      return true;
    if (s.resultWrite[v] >= 0)
      return s.resultWrite[v];
    std::vector<OpAlias> aliases = aliasingOpOperands(v);
    if (aliases.empty())
      return true;
    for (const OpAlias &a : aliases)
      if (write(a.operand))
        return true;
    auto inside = [&](int32_t x) { return isAncestor(op, s.owner(x)) && resultBufferizesToWrite(x); };
    ChainOpts co;
    co.includeLeaves = false;
    for (const OpAlias &a : aliases)
      if (!findInChain(a.operand, inside, co).empty())
        return true;
    return false;
  }

  const std::vector<int32_t> &definitions(int32_t o) {
    int32_t v = g.operands[o];
    auto it = defsCache.find(v);
    if (it != defsCache.end())
      return it->second;
    ChainOpts co;
    co.includeLeaves = false;
    std::vector<int32_t> d =
        findInChain(o, [&](int32_t x) { return resultBufferizesToWrite(x); }, co);
    return defsCache.emplace(v, std::move(d)).first->second;
  }

  // ------------------------------------------------------------- regions
  /// The innermost region enclosing (or being) `r` that a bufferizable op
  /// marks in `mask` (repetitive or parallel regions), or -1.
  int32_t enclosingMarkedRegion(int32_t r, uint8_t Sem::*mask) const {
    while (r >= 0) {
      int32_t op = g.regionOp[r];
      const Sem &m = s.sem[op];
      int32_t k = r - g.regionBegin[op];
      if (m.present && m.bufferizable && k < 8 && (m.*mask >> k) & 1)
        return r;
      r = opRegion(op);
    }
    return -1;
  }
  int32_t repetitiveRegionFrom(int32_t r) const { return enclosingMarkedRegion(r, &Sem::repetitive); }
  int32_t parallelRegion(int32_t r) const { return enclosingMarkedRegion(r, &Sem::parallel); }


  bool mutuallyExclusive(int32_t a, int32_t b) const {
    int32_t p = g.opParent[a];
    while (p >= 0) {
      const Sem &m = s.sem[p];
      if (m.present && m.regionBranch && isProperAncestor(p, b)) {
        if (regionIndexContaining(p, a) == regionIndexContaining(p, b))
          return false;
        return s.is(p, s.idScfIf) || s.is(p, s.idIndexSwitch);
      }
      p = g.opParent[p];
    }
    return false;
  }

  int32_t regionIndexContaining(int32_t p, int32_t op) const {
    while (g.opParent[op] != p)
      op = g.opParent[op];
    return opRegion(op) - g.regionBegin[p];
  }

  bool canUseDominance(int32_t r, int32_t w, const std::vector<int32_t> &defs) const {
    int32_t rop = s.opndOp[r];
    for (int32_t d : defs) {
      int32_t rRead = repetitiveRegionFrom(opRegion(rop));
      int32_t rDef = repetitiveRegionFrom(valueRegion(d));
      if (rRead == rDef)
        continue;
      if (rRead < 0)
        decline(rop, "read outside of the repetitive region of its definition");
      while (true) {
        int32_t nxt = repetitiveRegionFrom(opRegion(g.regionOp[rRead]));
        if (nxt == rDef)
          break;
        if (nxt < 0)
          decline(rop, "unexpected repetitive region nesting");
        rRead = nxt;
      }
      if (isAncestor(g.regionOp[rRead], s.opndOp[w]))
        return false;
    }
    return true;
  }

  // ------------------------------------------------------------- subsets
  bool isEquivalentSubset(int32_t insertOp, int32_t candidate) {
    const Sem &m = s.sem[insertOp];
    if (s.is(insertOp, s.idMaterialize))
      return equivalent(candidate, g.operands[m.subsetDest]);
    int32_t eop = g.valueOp[candidate];
    if (eop < 0 || !s.is(eop, s.idExtractSlice))
      return false;
    int32_t src = g.operands[g.operandBegin[eop]];
    int32_t dest = g.operands[m.subsetDest];
    if (!equivalent(src, dest))
      return false;
    return s.sliceKey(eop) == s.sliceKey(insertOp);
  }

  bool matchesInsertDestination(int32_t o, int32_t insertOp) {
    auto matching = [&](int32_t v) { return g.valueOp[v] >= 0 && isEquivalentSubset(insertOp, v); };
    std::vector<int32_t> chain = findInChain(o, matching, ChainOpts());
    for (int32_t v : chain)
      if (!matching(v))
        return false;
    return true;
  }

  bool nonConflictingSubsets(int32_t r, int32_t w) {
    uint64_t key = (uint64_t(uint32_t(r)) << 32) | uint32_t(w);
    auto it = subsetCache.find(key);
    if (it != subsetCache.end())
      return it->second;
    bool c = nonConflictingSubsetsImpl(r, w);
    subsetCache.emplace(key, c);
    return c;
  }

  bool nonConflictingSubsetsImpl(int32_t r, int32_t w) {
    int32_t rop = s.opndOp[r], wop = s.opndOp[w];
    const Sem &rs = s.sem[rop];
    if (rs.present && rs.bufferizable && rs.subsetSrc >= 0) {
      int32_t src = rs.subsetSrc, dest = rs.subsetDest;
      if (r == dest && matchesInsertDestination(w, rop))
        return true;
      if (r == src && w == dest && matchesInsertDestination(r, rop))
        return true;
    }
    const Sem &ws = s.sem[wop];
    if (ws.present && ws.bufferizable && ws.subsetSrc >= 0) {
      int32_t src = ws.subsetSrc, dest = ws.subsetDest;
      if (w == dest && equivalent(g.operands[r], g.operands[src]) &&
          matchesInsertDestination(src, wop))
        return true;
    }
    return false;
  }

  bool equivalentInChain(int32_t start, int32_t other) {
    ChainOpts co;
    co.includeLeaves = false;
    co.equivalentOnly = true;
    co.sameTypeOrCasts = true;
    return !findInChain(start, [&](int32_t v) { return v == other; }, co).empty();
  }

  // ----------------------------------------------------------- conflicts
  template <typename F>
  void forAliasMembers(int32_t v, F f) {
    for (int32_t m = aliasUF.find(v); m != -1; m = aliasUF.next[m])
      f(m);
  }

  void aliasingReads(std::vector<int32_t> &res, int32_t rootValue) {
    forAliasMembers(rootValue, [&](int32_t a) {
      for (int32_t u = g.useBegin[a]; u < g.useBegin[a + 1]; ++u) {
        int32_t o = s.useOpnd[u];
        if (s.rd[o]) {
          res.push_back(o);
          continue;
        }
        if (!s.wr[o]) {
          for (const Alias &al : aliasingValues(o))
            if (isValueRead(al.value)) {
              res.push_back(o);
              break;
            }
        }
      }
    });
  }

  void aliasingInplaceWrites(std::vector<int32_t> &res, int32_t rootValue) {
    forAliasMembers(rootValue, [&](int32_t a) {
      for (int32_t u = g.useBegin[a]; u < g.useBegin[a + 1]; ++u) {
        int32_t o = s.useOpnd[u];
        if (inplace[o] && s.wr[o])
          res.push_back(o);
      }
    });
  }

  bool hasInplaceWrites(const std::vector<int32_t> &values) {
    for (int32_t v : values)
      if (nInplaceWrites[aliasUF.find(v)])
        return true;
    return false;
  }

  std::vector<int32_t> valueAndAliases(int32_t o) {
    std::vector<int32_t> vals{g.operands[o]};
    for (const Alias &a : aliasingValues(o))
      vals.push_back(a.value);
    return vals;
  }

  bool wouldCreateRaw(int32_t o, bool consistencyOnly) {
    std::vector<int32_t> vals = valueAndAliases(o);
    bool writesOperand = !consistencyOnly && write(o);
    if (!writesOperand && !hasInplaceWrites(vals))
      return false;
    if (indexOn && !consistencyOnly && !(s.opts.checkParallelRegions && s.hasParallel))
      return incrementalRaw(o, vals, writesOperand);
    return fullRaw(o, vals, writesOperand);
  }

  bool incrementalRaw(int32_t o, const std::vector<int32_t> &vals, bool writesOperand) {
    std::vector<int32_t> roots;
    for (int32_t x : vals) {
      int32_t rt = aliasUF.find(x);
      if (std::find(roots.begin(), roots.end(), rt) == roots.end())
        roots.push_back(rt);
    }
    if (roots.size() == 1 && !writesOperand)
      return false;
    std::array<int32_t, 3> hit;
    if (!indexCheck(roots, writesOperand ? o : -1, hit))
      return false;
    conflicts.push_back({o, hit[0], hit[1], hit[2]});
    return true;
  }

  bool fullRaw(int32_t o, const std::vector<int32_t> &vals, bool writesOperand) {
    std::vector<int32_t> reads, writes;
    for (int32_t x : vals) {
      aliasingReads(reads, x);
      aliasingInplaceWrites(writes, x);
    }
    if (writesOperand)
      writes.push_back(o);
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    std::sort(writes.begin(), writes.end());
    writes.erase(std::unique(writes.begin(), writes.end()), writes.end());
    if (s.opts.checkParallelRegions && !reads.empty() && s.hasParallel) {
      // A write in a parallel region to a buffer defined outside of it.
      for (int32_t w : writes) {
        int32_t wr = parallelRegion(opRegion(s.opndOp[w]));
        for (int32_t d : findInChain(w, [&](int32_t x) { return resultBufferizesToWrite(x); }, ChainOpts()))
          if (parallelRegion(valueRegion(d)) != wr)
            return true;
      }
    }
    for (int32_t r : reads) {
      const std::vector<int32_t> &defs = definitions(r);
      if (defs.empty())
        continue;
      for (int32_t w : writes) {
        int32_t d = pairConflict(r, w, defs);
        if (d != INT32_MIN) {
          conflicts.push_back({o, r, w, d});
          return true;
        }
      }
    }
    return false;
  }

  /// The definition through which write `w` conflicts with read `r`, or
  /// INT32_MIN (upstream's inner loop of hasReadAfterWriteInterference).
  int32_t pairConflict(int32_t r, int32_t w, const std::vector<int32_t> &defs) {
    int32_t rop = s.opndOp[r], wop = s.opndOp[w];
    if (canUseDominance(r, w, defs)) {
      if (happensBefore(rop, wop))
        return INT32_MIN;
      if (r == w)
        return INT32_MIN;
      if (mutuallyExclusive(rop, wop))
        return INT32_MIN;
      if (rop == wop) {
        const Sem &m = s.sem[rop];
        bool ew = false;
        if (m.bufferizable) {
          if (m.elementwise == kAlways)
            ew = true;
          else if (m.elementwise == kLinalg)
            ew = s.linalgElementwise(rop, r, w);
        }
        if (ew && (equivalentInChain(r, g.operands[w]) || equivalentInChain(w, g.operands[r])))
          return INT32_MIN;
      }
    }
    int32_t found = INT32_MIN;
    for (int32_t d : defs) {
      int32_t dop = g.valueOp[d];
      if (dop >= 0) {
        if (happensBefore(wop, dop))
          continue;
        if (isProperAncestor(dop, wop))
          continue;
      } else if (ancestorInBlock(g.valueBlock[d], wop) < 0) {
        continue;
      }
      const std::vector<Alias> &al = aliasingValues(w);
      if (al.size() == 1 && al[0].value == d)
        continue;
      found = d;
      break;
    }
    if (found == INT32_MIN || nonConflictingSubsets(r, w))
      return INT32_MIN;
    return found;
  }

  bool wouldWriteNonwritable(int32_t o, bool consistencyOnly) {
    std::vector<int32_t> vals = valueAndAliases(o);
    bool foundWrite = !consistencyOnly && write(o);
    if (!foundWrite)
      foundWrite = hasInplaceWrites(vals);
    if (!foundWrite)
      return false;
    for (int32_t x : vals)
      if (nNonwritable[aliasUF.find(x)])
        return true;
    return false;
  }

  // ----------------------------------------------------------- decisions
  void bufferizeInplace(int32_t o) {
    if (inplace[o])
      return;
    inplace[o] = 1;
    int32_t v = g.operands[o];
    if (write(o)) {
      int32_t root = aliasUF.find(v);
      nInplaceWrites[root] += 1;
      if (indexOn)
        addWrite(getSet(root), o);
    }
    std::vector<Alias> als = aliasingValues(o);
    for (const Alias &a : als)
      unionAlias(a.value, v);
  }

  void unionAlias(int32_t a, int32_t b) {
    int32_t root;
    int32_t gone = aliasUF.unite(a, b, root);
    if (gone < 0)
      return;
    nInplaceWrites[root] += nInplaceWrites[gone];
    nNonwritable[root] += nNonwritable[gone];
    if (indexOn)
      mergeSets(root, gone);
  }

  void analyzeOperand(int32_t o) {
    bool conflict = wouldWriteNonwritable(o, false) || wouldCreateRaw(o, false);
    decided[o] = 1;
    if (!conflict)
      bufferizeInplace(o);
  }

  // --------------------------------------------------------------- index
  SetData &getSet(int32_t root) { return sets[root]; }

  std::vector<int32_t> valueReads(int32_t v) {
    std::vector<int32_t> out;
    for (int32_t u = g.useBegin[v]; u < g.useBegin[v + 1]; ++u) {
      int32_t o = s.useOpnd[u];
      if (s.rd[o]) {
        out.push_back(o);
      } else if (!s.wr[o]) {
        for (const Alias &al : aliasingValues(o))
          if (isValueRead(al.value)) {
            out.push_back(o);
            break;
          }
      }
    }
    return out;
  }

  const Elig &eligibility(int32_t r) {
    auto it = elig.find(r);
    if (it != elig.end())
      return it->second;
    const std::vector<int32_t> &defs = definitions(r);
    Elig e{0, -1, 0};
    if (!defs.empty()) {
      int32_t rop = s.opndOp[r];
      int32_t block = g.opBlock[rop];
      int64_t lo = kInf;
      bool any = false;
      for (int32_t d : defs) {
        int32_t dop = g.valueOp[d];
        if (dop >= 0) {
          if (g.opBlock[dop] != block) {
            any = true;
            break;
          }
          lo = std::min<int64_t>(lo, dop);
        } else {
          if (g.valueBlock[d] != block) {
            any = true;
            break;
          }
          lo = -1;
        }
      }
      e = any ? Elig{1, -1, 0} : Elig{2, block, lo};
    }
    return elig.emplace(r, e).first->second;
  }

  void addRead(SetData &d, int32_t r) {
    Elig e = eligibility(r);
    if (e.kind == 0)
      return;
    d.nreads += 1;
    if (e.kind == 1)
      d.readsX.push_back(r);
    else
      insort(SetData::slot(d.readsB, e.block), std::array<int64_t, 3>{e.lo, s.opndOp[r], r});
  }

  void addWrite(SetData &d, int32_t w) {
    d.nwrites += 1;
    int32_t wop = s.opndOp[w];
    insort(SetData::slot(d.writesB, g.opBlock[wop]), std::array<int32_t, 2>{wop, w});
  }

  void mergeSets(int32_t root, int32_t gone) {
    auto ia = sets.find(root), ib = sets.find(gone);
    if (ia == sets.end() || ib == sets.end()) {
      if (ib != sets.end()) {
        SetData keep = std::move(ib->second);
        sets.erase(ib);
        sets[root] = std::move(keep);
      }
      return;
    }
    SetData *a = &ia->second, *b = &ib->second;
    if (b->size() > a->size())
      std::swap(*a, *b);  // keep the bigger one under `root`
    for (auto &p : b->readsB) {
      auto &dst = SetData::slot(a->readsB, p.first);
      for (auto &item : p.second)
        insort(dst, item);
    }
    a->readsX.insert(a->readsX.end(), b->readsX.begin(), b->readsX.end());
    for (auto &p : b->writesB) {
      auto &dst = SetData::slot(a->writesB, p.first);
      for (auto &item : p.second)
        insort(dst, item);
    }
    a->nreads += b->nreads;
    a->nwrites += b->nwrites;
    sets.erase(ib);
  }

  void buildIndex(const std::vector<int32_t> &values) {
    sets.clear();
    elig.clear();
    for (int32_t v : values) {
      int32_t root = aliasUF.find(v);
      for (int32_t r : valueReads(v))
        addRead(sets[root], r);
      for (int32_t u = g.useBegin[v]; u < g.useBegin[v + 1]; ++u) {
        int32_t o = s.useOpnd[u];
        if (inplace[o] && s.wr[o])
          addWrite(sets[root], o);
      }
    }
  }

  template <typename F>
  bool allWrites(const SetData &d, F f) {
    for (auto &p : d.writesB)
      for (auto &x : p.second)
        if (f(x[1]))
          return true;
    return false;
  }

  template <typename F>
  bool allReads(const SetData &d, F f) {
    for (auto &p : d.readsB)
      for (auto &x : p.second)
        if (f(static_cast<int32_t>(x[2])))
          return true;
    for (int32_t r : d.readsX)
      if (f(r))
        return true;
    return false;
  }

  template <typename F>
  bool writesForRead(const SetData &d, int32_t r, F f) {
    Elig e = eligibility(r);
    if (e.kind == 0)
      return false;
    if (e.kind == 1)
      return allWrites(d, f);
    int32_t rop = s.opndOp[r];
    for (auto &p : d.writesB) {
      if (p.first != e.block) {
        for (auto &x : p.second)
          if (f(x[1]))
            return true;
        continue;
      }
      auto &lst = p.second;
      auto i = std::lower_bound(lst.begin(), lst.end(), std::array<int32_t, 2>{0, 0},
                                [&](const std::array<int32_t, 2> &a, const std::array<int32_t, 2> &) {
                                  return a[0] < e.lo;
                                });
      for (; i != lst.end() && (*i)[0] <= rop; ++i)
        if (f((*i)[1]))
          return true;
    }
    return false;
  }

  template <typename F>
  bool readsForWrite(const SetData &d, int32_t w, F f) {
    int32_t wop = s.opndOp[w];
    int32_t block = g.opBlock[wop];
    for (auto &p : d.readsB) {
      if (p.first != block) {
        for (auto &x : p.second)
          if (f(static_cast<int32_t>(x[2])))
            return true;
        continue;
      }
      for (auto &x : p.second) {
        if (x[0] > wop)
          break;
        if (x[1] >= wop && f(static_cast<int32_t>(x[2])))
          return true;
      }
    }
    for (int32_t r : d.readsX)
      if (f(r))
        return true;
    return false;
  }

  /// First conflicting (read, write, definition) among the new pairs.
  bool indexCheck(const std::vector<int32_t> &roots, int32_t newWrite, std::array<int32_t, 3> &hit) {
    static const SetData empty;
    std::vector<const SetData *> ds;
    for (int32_t rt : roots) {
      auto it = sets.find(rt);
      ds.push_back(it == sets.end() ? &empty : &it->second);
    }
    size_t n = ds.size();
    for (size_t i = 0; i < n; ++i) {
      const SetData &ri = *ds[i];
      if (ri.nreads == 0)
        continue;
      for (size_t j = 0; j < n; ++j) {
        if (i == j)
          continue;
        const SetData &wj = *ds[j];
        if (wj.nwrites == 0)
          continue;
        bool found;
        if (ri.nreads <= wj.nwrites) {
          found = allReads(ri, [&](int32_t r) {
            const std::vector<int32_t> &defs = definitions(r);  // map nodes are stable
            return writesForRead(wj, r, [&](int32_t w) {
              int32_t d = pairConflict(r, w, defs);
              if (d == INT32_MIN)
                return false;
              hit = {r, w, d};
              return true;
            });
          });
        } else {
          found = allWrites(wj, [&](int32_t w) {
            return readsForWrite(ri, w, [&](int32_t r) {
              int32_t d = pairConflict(r, w, definitions(r));
              if (d == INT32_MIN)
                return false;
              hit = {r, w, d};
              return true;
            });
          });
        }
        if (found)
          return true;
      }
    }
    if (newWrite >= 0) {
      for (const SetData *d : ds) {
        bool found = readsForWrite(*d, newWrite, [&](int32_t r) {
          const std::vector<int32_t> &defs = definitions(r);  // map nodes are stable
          if (defs.empty())
            return false;
          int32_t dd = pairConflict(r, newWrite, defs);
          if (dd == INT32_MIN)
            return false;
          hit = {r, newWrite, dd};
          return true;
        });
        if (found)
          return true;
      }
    }
    return false;
  }
};

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

bool allInPlace(const Graph &g, const Result &r) {
  for (int32_t scope : r.scopes)
    for (int32_t o = g.operandBegin[scope]; o < g.operandBegin[g.opEnd[scope] + 1]; ++o) {
      int32_t v = g.operands[o];
      if (v >= 0 && g.types[g.valueType[v]].isTensor() && !r.inplace[o])
        return false;
    }
  return true;
}

void annotateOperands(const Graph &g, const Result &r) {
  if (r.scopes.empty() || g.numOps() == 0)
    return;
  MlirOperation root{g.opPtr[0]};
  MlirContext ctx = mlirOperationGetContext(root);
  MlirAttribute strs[3] = {mlirStringAttrGet(ctx, mlirStringRefCreateFromCString("none")),
                           mlirStringAttrGet(ctx, mlirStringRefCreateFromCString("true")),
                           mlirStringAttrGet(ctx, mlirStringRefCreateFromCString("false"))};
  MlirStringRef attrName = mlirStringRefCreateFromCString("__inplace_operands_attr__");
  std::unordered_map<std::string, MlirAttribute> cache;
  std::string key;
  std::vector<MlirAttribute> elems;
  for (int32_t scope : r.scopes) {
    for (int32_t op = scope; op <= g.opEnd[scope]; ++op) {
      int32_t b = g.operandBegin[op], e = g.operandBegin[op + 1];
      if (b == e)
        continue;
      key.clear();
      bool any = false;
      for (int32_t o = b; o < e; ++o) {
        int32_t v = g.operands[o];
        char c = 0;
        if (v >= 0 && g.types[g.valueType[v]].isTensor()) {
          c = r.inplace[o] ? 1 : 2;
          any = true;
        }
        key.push_back(c);
      }
      if (!any)
        continue;
      auto it = cache.find(key);
      if (it == cache.end()) {
        elems.clear();
        for (char c : key)
          elems.push_back(strs[(int)c]);
        it = cache.emplace(key, mlirArrayAttrGet(ctx, (intptr_t)elems.size(), elems.data())).first;
      }
      mlirOperationSetAttributeByName(MlirOperation{g.opPtr[op]}, attrName, it->second);
    }
  }
}

}  // namespace inplace
}  // namespace memplan
