//===- inplace_conflicts.h - Alias sets and RaW conflicts -------*- C++ -*-===//
//
// Private to lib/inplace_*.cpp. The One-Shot analysis proper: alias and
// equivalence sets, definitions, read-after-write conflicts with upstream's
// happens-before, region and subset rules, and the incremental pair index
// (only the (read, write) pairs a decision creates are checked). Mirrors
// python/memplan/inplace/{analysis,incremental}.py.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_INPLACE_CONFLICTS_H
#define MEMPLAN_INPLACE_CONFLICTS_H

#include "inplace_state.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

namespace memplan {
namespace inplace {
namespace detail {

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

[[noreturn]] inline void decline(int32_t op, const std::string &reason) { throw DeclineError{op, reason}; }

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

}  // namespace detail
}  // namespace inplace
}  // namespace memplan

#endif  // MEMPLAN_INPLACE_CONFLICTS_H
