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
#ifndef MEMPLAN_LIB_INPLACE_ALIASINDEX_H
#define MEMPLAN_LIB_INPLACE_ALIASINDEX_H

#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace memplan {

/// A sorted list with room at both ends: an insertion shifts the shorter
/// side, so entries that arrive in either order (the analysis runs bottom-up
/// or top-down) are added in constant amortized time.
template <typename T> class SortedRun {
public:
  const T *begin() const { return items.data() + head; }
  const T *end() const { return items.data() + items.size(); }
  size_t size() const { return items.size() - head; }

  void insert(const T &x) {
    size_t before = std::upper_bound(begin(), end(), x) - begin();
    if (before * 2 >= size()) {
      items.insert(items.begin() + head + before, x);
      return;
    }
    if (head == 0) {
      // Room in front as large as the run (at least a few entries).
      size_t room = std::max<size_t>(size(), 4);
      std::vector<T> grown(room + size());
      std::copy(begin(), end(), grown.begin() + room);
      items.swap(grown);
      head = room;
    }
    std::move(items.begin() + head, items.begin() + head + before,
              items.begin() + head - 1);
    --head;
    items[head + before] = x;
  }

private:
  std::vector<T> items;
  size_t head = 0; ///< Entries are items[head, size).
};

class AliasIndex {
public:
  /// Where the writes that may conflict with a read lie.
  struct Window {
    enum Kind : int8_t { None, Anywhere, InBlock } kind = None;
    int32_t block = -1;
    int64_t lo = 0; ///< First op position (or -1: from the block's start).
  };

  struct Set {
    /// block -> sorted (lo, read op, read); block -> sorted (write op, write).
    std::vector<std::pair<int32_t, SortedRun<std::array<int64_t, 3>>>>
        readsInBlock;
    std::vector<int32_t> readsAnywhere;
    std::vector<std::pair<int32_t, SortedRun<std::array<int32_t, 2>>>> writes;
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
      slot(s.readsInBlock, w.block)
          .insert(std::array<int64_t, 3>{w.lo, readOp, read});
  }

  void addWrite(int32_t root, int32_t write, int32_t writeOp, int32_t block) {
    Set &s = sets[root];
    s.numWrites++;
    slot(s.writes, block).insert(std::array<int32_t, 2>{writeOp, write});
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
        dst.insert(item);
    }
    a->readsAnywhere.insert(a->readsAnywhere.end(), b->readsAnywhere.begin(),
                            b->readsAnywhere.end());
    for (auto &p : b->writes) {
      auto &dst = slot(a->writes, p.first);
      for (auto &item : p.second)
        dst.insert(item);
    }
    a->numReads += b->numReads;
    a->numWrites += b->numWrites;
    sets.erase(ib);
  }

  template <typename F> static bool anyWrite(const Set &s, F f) {
    for (auto &p : s.writes)
      for (auto &x : p.second)
        if (f(x[1]))
          return true;
    return false;
  }

  template <typename F> static bool anyRead(const Set &s, F f) {
    for (auto &p : s.readsInBlock)
      for (auto &x : p.second)
        if (f(static_cast<int32_t>(x[2])))
          return true;
    for (int32_t r : s.readsAnywhere)
      if (f(r))
        return true;
    return false;
  }

  /// The writes of `s` that may conflict with a read at `readOp` with window
  /// `w`.
  template <typename F>
  static bool anyWriteForRead(const Set &s, int32_t readOp, const Window &w,
                              F f) {
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
                                [](const std::array<int32_t, 2> &a,
                                   int64_t lo) { return a[0] < lo; });
      for (; i != list.end() && (*i)[0] <= readOp; ++i)
        if (f((*i)[1]))
          return true;
    }
    return false;
  }

  /// The reads of `s` that may conflict with a write at `writeOp` in `block`.
  template <typename F>
  static bool anyReadForWrite(const Set &s, int32_t writeOp, int32_t block,
                              F f) {
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
  static SortedRun<T> &
  slot(std::vector<std::pair<int32_t, SortedRun<T>>> &lists, int32_t block) {
    for (auto &p : lists)
      if (p.first == block)
        return p.second;
    lists.push_back({block, {}});
    return lists.back().second;
  }
  std::unordered_map<int32_t, Set> sets;
};

} // namespace memplan

#endif // MEMPLAN_LIB_INPLACE_ALIASINDEX_H
