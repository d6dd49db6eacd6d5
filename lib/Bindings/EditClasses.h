//===- EditClasses.h - Plain-data edits bound as Python classes -*- C++ -*-===//
//
// The helpers that bind a plain-data edit or plan (memplan/Reuse/PoolEdit.h,
// memplan/Transients/TransientEdit.h, memplan/Deallocation/
// DeallocationPlan.h) as a Python class filled field by field, its fields
// written once in an X-macro .def: list fields read as tuples (of tuples),
// so that what a field returns cannot be changed in place, and are set
// whole.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_BINDINGS_EDITCLASSES_H
#define MEMPLAN_LIB_BINDINGS_EDITCLASSES_H

#include <nanobind/nanobind.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace memplan {
namespace edit_classes {

namespace nb = nanobind;

/// A list field's value as Python reads it: a tuple, of tuples for its
/// elements that are arrays, pairs, tuples or lists. A list would be a copy the
/// edit never sees again, so that appending to it would change nothing; a tuple
/// raises instead.
template <typename T> nb::object frozen(const T &value);
template <typename T, size_t N> nb::object frozen(const std::array<T, N> &);
template <typename T> nb::object frozen(const std::vector<T> &values);
template <typename A, typename B> nb::object frozen(const std::pair<A, B> &);
template <typename... T> nb::object frozen(const std::tuple<T...> &value);

template <typename T> nb::object frozen(const T &value) {
  return nb::cast(value);
}
template <typename T, size_t N>
nb::object frozen(const std::array<T, N> &values) {
  nb::list items;
  for (const T &value : values)
    items.append(frozen(value));
  return nb::tuple(items);
}
template <typename T> nb::object frozen(const std::vector<T> &values) {
  nb::list items;
  for (const T &value : values)
    items.append(frozen(value));
  return nb::tuple(items);
}
template <typename A, typename B>
nb::object frozen(const std::pair<A, B> &value) {
  return nb::make_tuple(frozen(value.first), frozen(value.second));
}
template <typename... T> nb::object frozen(const std::tuple<T...> &value) {
  return std::apply(
      [](const T &...items) {
        return nb::object(nb::make_tuple(frozen(items)...));
      },
      value);
}

/// The class and the type of the member `Field` points to.
template <typename> struct MemberOf;
template <typename C, typename T> struct MemberOf<T C::*> {
  using Class = C;
  using Type = T;
};

/// The getter and the setter of a list field: read as frozen(), set from a
/// whole list, tuple or array (anything nanobind's stl casters take).
template <auto Field>
nb::object asTuple(const typename MemberOf<decltype(Field)>::Class &edit) {
  return frozen(edit.*Field);
}
template <auto Field>
void assign(typename MemberOf<decltype(Field)>::Class &edit,
            typename MemberOf<decltype(Field)>::Type value) {
  edit.*Field = std::move(value);
}

template <typename> constexpr bool isVector = false;
template <typename T> constexpr bool isVector<std::vector<T>> = true;

/// An edit's class, made from nothing and filled field by field: `what` it
/// is, then how its fields read.
template <typename Edit>
nb::class_<Edit> bindEditClass(nb::module_ &m, const char *name,
                               const char *what) {
  static const std::string doc =
      std::string(what) +
      ". List fields read as tuples (of tuples): assign a whole list or "
      "array; what a field returns cannot be changed.";
  nb::class_<Edit> cls(m, name, doc.c_str());
  cls.def(nb::init<>());
  return cls;
}

/// Binds the field `Field` of an edit class: a list reads as frozen() and is
/// set whole; anything else reads and writes as is.
template <auto Field, typename Class>
void bindField(Class &cls, const char *name, const char *doc) {
  if constexpr (isVector<typename MemberOf<decltype(Field)>::Type>)
    cls.def_prop_rw(name, asTuple<Field>, assign<Field>, doc);
  else
    cls.def_rw(name, Field, doc);
}

/// The kinds of edit applied through a graph (Sequencing::kind).
enum EditKind : int32_t { kPoolEdit, kTransientEdit, kDeallocationPlan };

/// How an edit may follow earlier edits applied through the same graph,
/// whose ids name the IR as it was extracted: `kind` tells apply functions
/// apart; an edit changes `scope(graph, edit)`'s function (-1: any of the
/// module's; none: the edit names an op out of range, which its check
/// reports); with `again`, edits of this kind only change what they name,
/// so that another may follow in the same function (each pool's edit
/// touches its own members only).
template <typename Edit, typename Graph> struct Sequencing {
  int32_t kind;
  std::optional<int32_t> (*scope)(const Graph &, const Edit &);
  bool again;
};

/// Raises the ValueError of a graph that an edit applied through it since
/// it was extracted may have made stale for what is asked of it.
[[noreturn]] inline void refuseStaleGraph() {
  throw nb::value_error("the graph is stale: an edit applied through it "
                        "since it was extracted may have changed what this "
                        "one names; extract the graph again");
}

/// Raises ValueError where an edit of `seq`'s kind to `function` (-1: any)
/// may read ids that an edit applied earlier through `g` made stale: one
/// of another kind, of the whole module, or of the same kind in the same
/// function unless `seq.again`.
template <typename Edit, typename Graph>
void checkNotStale(const Graph &g, const Sequencing<Edit, Graph> &seq,
                   int32_t function) {
  for (auto [kind, changed] : g.appliedEdits)
    if (kind != seq.kind || changed < 0 || function < 0 ||
        (changed == function && !seq.again))
      refuseStaleGraph();
}

/// Binds `name(graph, edit)` (the second argument named `editName`): the
/// edit refused on a graph an earlier edit made stale (checkNotStale),
/// checked against the graph by `Check` (a malformed one raises, the IR as
/// it was), then applied by `Apply`, whose result it returns, and recorded
/// in the graph's appliedEdits.
template <typename Edit, auto Check, auto Apply, typename Graph>
void bindApply(nb::module_ &m, const char *name, const char *doc,
               Sequencing<Edit, Graph> seq, const char *editName = "edit") {
  m.def(
      name,
      [seq](Graph &g, const Edit &edit) {
        // Before the check, which may read the ops the ids name.
        std::optional<int32_t> function = seq.scope(g, edit);
        if (function)
          checkNotStale(g, seq, *function);
        Check(g, edit);
        if (!function)
          throw nb::index_error("an edit's op id is out of range");
        g.appliedEdits.push_back({seq.kind, *function});
        return Apply(g, edit);
      },
      nb::arg("graph"), nb::arg(editName), doc);
}

} // namespace edit_classes
} // namespace memplan

#endif // MEMPLAN_LIB_BINDINGS_EDITCLASSES_H
