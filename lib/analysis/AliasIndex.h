//===- AliasIndex.h - Reads and in-place writes per alias set ---*- C++ -*-===//
//
// Per alias set (keyed by its union-find root): its reads and its in-place
// writes, bucketed by the block of their op and ordered by op position. A
// read whose definitions all lie in its own block can only conflict with
// writes of that block positioned between the first definition and the read
// (its "window"), or with writes in other blocks; every other read can
// conflict with any write. When a decision merges sets or adds a write, only
// the new (read, write) pairs are looked at.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_ANALYSIS_ALIASINDEX_H
#define MEMPLAN_ANALYSIS_ALIASINDEX_H

#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace memplan {

class AliasIndex {
public:
  /// Where the writes that may conflict with a read lie.
  struct Window {
    enum Kind : int8_t { None, Anywhere, InBlock } kind = None;
    int32_t block = -1;
    int64_t lo = 0;  ///< First op position (or -1: from the block's start).
  };

  struct Set {
    /// block -> sorted (lo, read op, read); block -> sorted (write op, write).
    std::vector<std::pair<int32_t, std::vector<std::array<int64_t, 3>>>> readsInBlock;
    std::vector<int32_t> readsAnywhere;
    std::vector<std::pair<int32_t, std::vector<std::array<int32_t, 2>>>> writes;
    int64_t numReads = 0, numWrites = 0;
    int64_t size() const { return numReads + numWrites; }
  };

  void clear() { sets.clear(); }
  const Set &get(int32_t root) const {
    static const Set empty;
    auto it = sets.find(root);
    return it == sets.end() ? empty : it->second;
  }

  void addRead(int32_t root, int32_t read, int32_t readOp, const Window &w) {
    if (w.kind == Window::None)
      return;
    Set &s = sets[root];
    s.numReads++;
    if (w.kind == Window::Anywhere)
      s.readsAnywhere.push_back(read);
    else
      insertSorted(slot(s.readsInBlock, w.block), std::array<int64_t, 3>{w.lo, readOp, read});
  }

  void addWrite(int32_t root, int32_t write, int32_t writeOp, int32_t block) {
    Set &s = sets[root];
    s.numWrites++;
    insertSorted(slot(s.writes, block), std::array<int32_t, 2>{writeOp, write});
  }

  /// Moves the entries of `gone`'s set into `root`'s.
  void merge(int32_t root, int32_t gone) {
    auto ib = sets.find(gone);
    if (ib == sets.end())
      return;
    auto ia = sets.find(root);
    if (ia == sets.end()) {
      Set keep = std::move(ib->second);
      sets.erase(ib);
      sets[root] = std::move(keep);
      return;
    }
    Set *a = &ia->second, *b = &ib->second;
    if (b->size() > a->size())
      std::swap(*a, *b);
    for (auto &p : b->readsInBlock) {
      auto &dst = slot(a->readsInBlock, p.first);
      for (auto &item : p.second)
        insertSorted(dst, item);
    }
    a->readsAnywhere.insert(a->readsAnywhere.end(), b->readsAnywhere.begin(), b->readsAnywhere.end());
    for (auto &p : b->writes) {
      auto &dst = slot(a->writes, p.first);
      for (auto &item : p.second)
        insertSorted(dst, item);
    }
    a->numReads += b->numReads;
    a->numWrites += b->numWrites;
    sets.erase(ib);
  }

  template <typename F>
  static bool anyWrite(const Set &s, F f) {
    for (auto &p : s.writes)
      for (auto &x : p.second)
        if (f(x[1]))
          return true;
    return false;
  }

  template <typename F>
  static bool anyRead(const Set &s, F f) {
    for (auto &p : s.readsInBlock)
      for (auto &x : p.second)
        if (f(static_cast<int32_t>(x[2])))
          return true;
    for (int32_t r : s.readsAnywhere)
      if (f(r))
        return true;
    return false;
  }

  /// The writes of `s` that may conflict with a read at `readOp` with window `w`.
  template <typename F>
  static bool anyWriteForRead(const Set &s, int32_t readOp, const Window &w, F f) {
    if (w.kind == Window::None)
      return false;
    if (w.kind == Window::Anywhere)
      return anyWrite(s, f);
    for (auto &p : s.writes) {
      if (p.first != w.block) {
        for (auto &x : p.second)
          if (f(x[1]))
            return true;
        continue;
      }
      auto &list = p.second;
      auto i = std::lower_bound(list.begin(), list.end(), w.lo,
                                [](const std::array<int32_t, 2> &a, int64_t lo) { return a[0] < lo; });
      for (; i != list.end() && (*i)[0] <= readOp; ++i)
        if (f((*i)[1]))
          return true;
    }
    return false;
  }

  /// The reads of `s` that may conflict with a write at `writeOp` in `block`.
  template <typename F>
  static bool anyReadForWrite(const Set &s, int32_t writeOp, int32_t block, F f) {
    for (auto &p : s.readsInBlock) {
      if (p.first != block) {
        for (auto &x : p.second)
          if (f(static_cast<int32_t>(x[2])))
            return true;
        continue;
      }
      for (auto &x : p.second) {
        if (x[0] > writeOp)
          break;
        if (x[1] >= writeOp && f(static_cast<int32_t>(x[2])))
          return true;
      }
    }
    for (int32_t r : s.readsAnywhere)
      if (f(r))
        return true;
    return false;
  }

private:
  template <typename T>
  static std::vector<T> &slot(std::vector<std::pair<int32_t, std::vector<T>>> &lists, int32_t block) {
    for (auto &p : lists)
      if (p.first == block)
        return p.second;
    lists.push_back({block, {}});
    return lists.back().second;
  }
  template <typename T>
  static void insertSorted(std::vector<T> &v, const T &x) {
    v.insert(std::upper_bound(v.begin(), v.end(), x), x);
  }

  std::unordered_map<int32_t, Set> sets;
};

} // namespace memplan

#endif // MEMPLAN_ANALYSIS_ALIASINDEX_H
