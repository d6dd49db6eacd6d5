//===- Lifetimes.cpp - Live intervals of buffers over the graph -----------===//
//
// See include/memplan/Lifetimes/Lifetimes.h. Program points are pre-order op
// ids, which respect nesting: a region op's subtree is the contiguous range
// [op, opEnd[op]], and the two branches of an `scf.if` get disjoint ranges.
//
//===----------------------------------------------------------------------===//

#include "memplan/Lifetimes/Lifetimes.h"

#include <algorithm>

namespace memplan {
namespace {

struct Walker {
  const Graph &g;
  std::vector<int32_t> stamp; // per value: last root index that visited it
  std::vector<uint8_t> whole; // per value visited: it is the whole root buffer
  std::vector<int32_t> blockLast; // per block: its last op
  std::vector<int32_t> queue;

  explicit Walker(const Graph &g)
      : g(g), stamp(g.numValues(), -1), whole(g.numValues(), 0),
        blockLast(g.numBlocks(), -1) {
    for (int32_t op = 0, e = g.numOps(); op < e; ++op)
      if (g.opBlock[op] >= 0)
        blockLast[g.opBlock[op]] = op;
  }

  int32_t role(int32_t op) const { return g.opRole[op]; }

  /// Push where operand `k` of op `u` is forwarded; false if it goes nowhere.
  bool pushFlows(int32_t u, int32_t k, int32_t root) {
    int32_t slot = g.operandBegin[u] + k;
    int32_t b = g.flowBegin[slot], e = g.flowBegin[slot + 1];
    for (int32_t i = b; i < e; ++i)
      push(g.flowTarget[i], root, false);
    return b < e;
  }

  bool isShaped(int32_t value) const {
    const TypeInfo &t = g.types[g.valueType[value]];
    return t.isMemRef() || t.isTensor();
  }

  void push(int32_t value, int32_t root, bool isWhole) {
    if (value < 0 || value >= g.numValues())
      return;
    if (stamp[value] == root) {
      whole[value] &= isWhole;
      return;
    }
    stamp[value] = root;
    whole[value] = isWhole;
    queue.push_back(value);
  }
};

/// Lift a use at op `u` onto the block of root op `a`: returns the program
/// range [lo, hi] it keeps the root live over, and whether it left a's block.
void lift(const Graph &g, int32_t a, int32_t u, int32_t &lo, int32_t &hi,
          bool &escaped) {
  int32_t anc = g.ancestorInBlock(g.opBlock[a], u);
  if (anc >= 0) {
    lo = a;
    hi = g.opEnd[anc];
    escaped = false;
    return;
  }
  escaped = true;
  if (g.isAncestor(u, a)) {
    lo = u;
    hi = g.opEnd[u];
    return;
  }
  // p: lowest common ancestor; prevU / prevA: their ancestors right below p.
  int32_t prevU = u, p = g.opParent[u];
  while (p >= 0 && !g.isAncestor(p, a)) {
    prevU = p;
    p = g.opParent[p];
  }
  if (p < 0) {
    lo = 0;
    hi = g.numOps() - 1;
    return;
  }
  int32_t prevA = a, q = g.opParent[a];
  while (q != p) {
    prevA = q;
    q = g.opParent[q];
  }
  if (g.opBlock[prevA] == g.opBlock[prevU]) {
    lo = std::min(prevA, prevU);
    hi = std::max(g.opEnd[prevA], g.opEnd[prevU]);
  } else {
    lo = p;
    hi = g.opEnd[p];
  }
}

/// A read or write of a root's buffer, lifted to the root's block.
struct Access {
  int32_t lo, hi; ///< Program points it keeps the buffer live over.
  int32_t op;     ///< The op of the root's block it is lifted to.
  bool read;      ///< Reads, or is not directly in the root's block.
  bool overwrite; ///< Writes the whole buffer (directly, through a whole view).
};

/// Segments of the accesses: a new one starts at an op that overwrites the
/// whole buffer and does not read it.
void appendSegments(std::vector<Access> &accesses, bool clean, int32_t end,
                    LifetimeTable &t) {
  if (accesses.empty())
    return;
  std::sort(accesses.begin(), accesses.end(),
            [](const Access &a, const Access &b) {
              return a.lo < b.lo || (a.lo == b.lo && a.op < b.op);
            });
  if (!clean) {
    t.segStart.push_back(accesses.front().lo);
    t.segEnd.push_back(end);
    return;
  }
  int32_t segLo = -1, segHi = -1;
  for (size_t i = 0; i < accesses.size();) {
    // All accesses of one op decide together.
    size_t j = i;
    bool read = false, overwrite = false;
    int32_t lo = accesses[i].lo, hi = accesses[i].hi;
    for (; j < accesses.size() && accesses[j].op == accesses[i].op &&
           accesses[j].lo == lo;
         ++j) {
      read |= accesses[j].read;
      overwrite |= accesses[j].overwrite;
      hi = std::max(hi, accesses[j].hi);
    }
    if (segLo >= 0 && overwrite && !read) {
      t.segStart.push_back(segLo);
      t.segEnd.push_back(segHi + 1);
      segLo = -1;
    }
    if (segLo < 0)
      segLo = lo;
    segHi = std::max(segHi, hi);
    i = j;
  }
  t.segStart.push_back(segLo);
  t.segEnd.push_back(segHi + 1);
}

/// Reasons after which the uses do not say when the contents die.
constexpr int32_t kUnclearUses =
    (1 << kReasonUnknownRegion) | (1 << kReasonUnstructured) |
    (1 << kReasonEscapesReturn) | (1 << kReasonEscapesCall) |
    (1 << kReasonEscapesStore) | (1 << kReasonEscapesBlock) |
    (1 << kReasonCaptured) | (1 << kReasonUnknownUser) |
    (1 << kReasonAsyncNotAwaited);

} // namespace

namespace {
constexpr int32_t kNoScopeUnknownRegion = -2;
constexpr int32_t kNoScopeUnstructured = -3;

/// blockScopes with why there is none (kNoScope*).
std::vector<int32_t> scopesWithReasons(const Graph &g, bool pathSafe) {
  std::vector<int32_t> scope(g.numBlocks(),
                             kNoScopeUnknownRegion - 10); // not computed yet
  std::vector<int32_t> path;
  for (int32_t start = 0; start < g.numBlocks(); ++start) {
    int32_t result = kNoScopeUnknownRegion;
    path.clear();
    for (int32_t b = start; b >= 0;) {
      if (scope[b] != kNoScopeUnknownRegion - 10) {
        result = scope[b];
        break;
      }
      path.push_back(b);
      int32_t r = g.blockRegion[b];
      if (g.regionBlockBegin[r + 1] - g.regionBlockBegin[r] != 1) {
        result = kNoScopeUnstructured; // pre-order is program order only in
                                       // single-block regions
        break;
      }
      int32_t p = g.blockParentOp[b];
      int32_t role = g.opRole[p];
      bool runs = !pathSafe || (role & kFlagAlwaysRuns);
      if ((role & 0xff) == kRoleFunc || (role & 0xff) == kRoleParallel ||
          !(role & kFlagSequential) || !runs) {
        result = (role & 0xff) == kRoleFunc || (role & 0xff) == kRoleParallel ||
                         (role & kFlagSequential)
                     ? b
                     : kNoScopeUnknownRegion;
        break;
      }
      b = g.opBlock[p];
    }
    // Every block on the way hoists to the same place, but a block that is
    // itself a scope (the first one) is its own.
    for (int32_t b : path)
      scope[b] = result;
  }
  return scope;
}
} // namespace

std::vector<int32_t> blockScopes(const Graph &g, bool pathSafe) {
  std::vector<int32_t> s = scopesWithReasons(g, pathSafe);
  for (int32_t &b : s)
    b = std::max(b, -1);
  return s;
}

LifetimeTable analyzeLifetimes(const Graph &g, const int32_t *roots,
                               size_t numRoots) {
  Walker w(g);
  const std::vector<int32_t> scopes = scopesWithReasons(g, /*pathSafe=*/true);
  const std::vector<int32_t> hoistScopes = blockScopes(g, /*pathSafe=*/false);
  LifetimeTable t;
#define MEMPLAN_LIFETIME_COLUMN(Field, Py) t.Field.resize(numRoots);
#define MEMPLAN_LIFETIME_SEGMENT_COLUMN(Field, Py)
#include "memplan/Lifetimes/LifetimeColumns.def"
  t.segBegin.reserve(numRoots + 1);
  t.segBegin.push_back(0);
  std::vector<Access> accesses;

  for (size_t i = 0; i < numRoots; ++i) {
    const int32_t root = static_cast<int32_t>(i);
    const int32_t v0 = roots[i];
    const int32_t a = g.valueOp[v0];
    const int32_t blk = g.opBlock[a];
    int32_t reasons = 0;
    auto add = [&](LifetimeReason r) { reasons |= 1 << r; };

    if ((w.role(a) & 0xff) == kRoleAlloca)
      add(kReasonAlloca);
    const TypeInfo &type = g.types[g.valueType[v0]];
    if (type.isMemRef()) {
      if (!type.identityLayout)
        add(kReasonLayout);
      if (type.memorySpace != 0)
        add(kReasonMemorySpace);
    }

    int32_t scope = blk >= 0 ? scopes[blk] : kNoScopeUnknownRegion;
    if (scope == kNoScopeUnstructured)
      add(kReasonUnstructured);
    else if (scope == kNoScopeUnknownRegion)
      add(kReasonUnknownRegion);
    scope = std::max(scope, -1);
    t.hoistScope[i] = blk >= 0 ? hoistScopes[blk] : -1;

    int32_t lo = a, hi = a, deallocHi = -1, dealloc = -1, uses = 0;
    accesses.clear();
    w.queue.clear();
    w.push(v0, root, true);
    for (size_t qi = 0; qi < w.queue.size(); ++qi) {
      const int32_t v = w.queue[qi];
      for (int32_t ui = g.useBegin[v], ue = g.useBegin[v + 1]; ui < ue; ++ui) {
        const int32_t u = g.useOp[ui];
        const int32_t k = g.useOperand[ui];
        const int32_t r = w.role(u);
        const int32_t kind = r & 0xff;
        int32_t ulo, uhi;
        bool escaped;
        lift(g, a, u, ulo, uhi, escaped);
        if (kind == kRoleDealloc) {
          if (v != v0)
            add(kReasonDeallocAlias);
          else if (g.opBlock[u] != blk)
            add(kReasonDeallocOtherBlock);
          else if (dealloc >= 0)
            add(kReasonMultipleDeallocs);
          else
            dealloc = u;
          deallocHi = std::max(deallocHi, uhi);
          lo = std::min(lo, ulo);
          continue;
        }
        ++uses;
        lo = std::min(lo, ulo);
        hi = std::max(hi, uhi);
        int32_t accessHi = uhi;
        if (escaped)
          add(kReasonEscapesBlock);
        // Region ops between the use and the root must let their regions
        // capture outer buffers.
        for (int32_t p = g.opParent[u]; p >= 0 && !g.isAncestor(p, a);
             p = g.opParent[p]) {
          if (!(w.role(p) & kFlagCaptureOk)) {
            add(kReasonCaptured);
            break;
          }
        }
        // Asynchronous work (the use's own, or that of an async op whose
        // region holds the use) keeps the buffer until the op that waits
        // for it.
        for (int32_t p = u; p >= 0 && !g.isAncestor(p, a); p = g.opParent[p]) {
          if (!(w.role(p) & kFlagAsync))
            continue;
          const int32_t done = g.asyncEnd[p];
          if (done < 0) {
            add(kReasonAsyncNotAwaited);
            continue;
          }
          int32_t dlo, dhi;
          bool descaped;
          lift(g, a, done, dlo, dhi, descaped);
          hi = std::max(hi, dhi);
          accessHi = std::max(accessHi, dhi);
        }
        if (int32_t bits = g.operandAccess[g.operandBegin[u] + k]) {
          int32_t anc = g.ancestorInBlock(blk, u);
          bool direct = anc == u;
          // In the root's block the access is at its ancestor there (lift()
          // starts every interval at the root); asynchronous work lasts
          // until the op that waits for it.
          accesses.push_back(
              {anc >= 0 ? anc : ulo, accessHi, anc >= 0 ? anc : ulo,
               (bits & kAccessRead) || !direct || accessHi != uhi,
               direct && w.whole[v] && (bits & kAccessFullWrite) != 0});
        }
        switch (kind) {
        case kRoleAlias:
          for (int32_t j = 0; j < g.numResults[u]; ++j)
            if (w.isShaped(g.resultBegin[u] + j))
              w.push(g.resultBegin[u] + j, root,
                     w.whole[v] && (r & kFlagWholeView));
          break;
        case kRoleAccess:
          break;
        case kRoleStore:
          if (k == 0)
            add(kReasonEscapesStore);
          break;
        case kRoleReturn:
          add(kReasonEscapesReturn);
          break;
        case kRoleCall:
          add(kReasonEscapesCall);
          break;
        case kRoleTerminator:
          // Leaving the root's block through its parent's terminator.
          if (g.opParent[u] >= 0 && g.isAncestor(g.opParent[u], a))
            add(kReasonEscapesBlock);
          if (!w.pushFlows(u, k, root))
            add(kReasonUnknownUser);
          break;
        case kRoleBranch:
          if (!w.pushFlows(u, k, root))
            add(kReasonUnknownUser);
          break;
        default:
          add(kReasonUnknownUser);
          break;
        }
      }
    }
    if (dealloc < 0 && !(reasons & ((1 << kReasonDeallocAlias) |
                                    (1 << kReasonDeallocOtherBlock))))
      add(kReasonNoDealloc);

    t.lastUse[i] = hi;
    if (reasons) {
      // Not pooled: the buffer holds its memory until it is freed.
      if (deallocHi >= 0)
        hi = std::max(hi, deallocHi);
      else if (blk >= 0)
        hi = std::max(hi, g.opEnd[w.blockLast[blk]]);
    }
    bool clean = !(reasons & kUnclearUses) &&
                 !(reasons & ((1 << kReasonDeallocAlias) |
                              (1 << kReasonDeallocOtherBlock)));
    appendSegments(accesses, clean, hi + 1, t);
    t.segBegin.push_back(static_cast<int32_t>(t.segStart.size()));
    t.op[i] = a;
    t.value[i] = v0;
    t.start[i] = lo;
    t.end[i] = hi + 1;
    t.dealloc[i] = dealloc;
    t.scope[i] = scope;
    t.reasons[i] = reasons;
    t.numUses[i] = uses;
  }
  return t;
}

} // namespace memplan
