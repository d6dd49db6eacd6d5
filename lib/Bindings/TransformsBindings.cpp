//===- TransformsBindings.cpp - Python surface of memplan's rewrites ------===//
//
// Each rewrite of include/memplan/Peak/Transforms.h takes a module (an
// operation capsule) and returns its counters
// (memplan/Passes/Counters.def), with the pass statistics they are reported
// as in the class' STATISTICS. Python must hold no op handles inside the module
// across a call: ops are created and erased.
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/Deallocation/Deallocation.h"
#include "memplan/IR/Graph.h"
#include "memplan/Peak/Transforms.h"

#include <nanobind/ndarray.h>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <initializer_list>

namespace nb = nanobind;

namespace memplan {
namespace {

/// A counter of a rewrite's stats struct `S` (an entry of
/// memplan/Passes/Counters.def).
template <typename S> struct Counter {
  int64_t S::*field;
  const char *python;
  const char *statistic;
  const char *description;
};

/// Binds `S` as `_core.<name>`: each counter a read-only attribute, and
/// `STATISTICS`, the pass statistics it reports as [(attribute, statistic,
/// description)] in the list's order.
template <typename S>
nb::class_<S> bindStats(nb::module_ &m, const char *name, const char *doc,
                        std::initializer_list<Counter<S>> counters) {
  nb::class_<S> cls(m, name, doc);
  nb::list statistics;
  for (const Counter<S> &c : counters) {
    cls.def_ro(c.python, c.field, c.description);
    statistics.append(nb::make_tuple(c.python, c.statistic, c.description));
  }
  cls.attr("STATISTICS") = statistics;
  return cls;
}

nb::object opCapsule(MlirOperation op) {
  return nb::steal(
      PyCapsule_New(op.ptr, "mlir.ir.Operation._CAPIPtr", nullptr));
}

nb::object locationCapsule(MlirLocation loc) {
  return nb::steal(PyCapsule_New(const_cast<void *>(loc.ptr),
                                 "mlir.ir.Location._CAPIPtr", nullptr));
}

/// Remarks as a list of (mlir.ir.Location, message).
nb::list remarkList(const std::vector<RewriteRemark> &remarks) {
  nb::object create =
      nb::module_::import_("mlir.ir").attr("Location").attr("_CAPICreate");
  nb::list out;
  for (const RewriteRemark &r : remarks)
    out.append(nb::make_tuple(create(locationCapsule(r.loc)), r.message));
  return out;
}

/// Binds `_core.<name>(module_capsule, options)`: `rewrite` given its
/// options struct read from `options` (values by option name, as
/// readOptions reads them; their defaults for the rest).
template <typename Options, typename S>
void bindRewrite(nb::module_ &m, const char *name,
                 S (*rewrite)(MlirOperation, const Options &),
                 const char *doc) {
  m.def(
      name,
      [rewrite](nb::handle capsule, const nb::dict &options) {
        return rewrite(operationOf(capsule), readOptions<Options>(options));
      },
      nb::arg("module_capsule"), nb::arg("options") = nb::dict(), doc);
}

/// Binds `run(capsule)`: `run` on the operation the capsule (argument `arg`)
/// holds.
template <typename R>
void bindOnOperation(nb::module_ &m, const char *name, R (*run)(MlirOperation),
                     const char *arg, const char *doc) {
  m.def(
      name, [run](nb::handle capsule) { return run(operationOf(capsule)); },
      nb::arg(arg), doc);
}

} // namespace

void registerTransformsBindings(nb::module_ &m) {
#define MEMPLAN_COUNTER(Field, Py, Statistic, Doc)                             \
  Counter<S>{&S::Field, #Py, Statistic, Doc},
  {
    using S = SplitDestinationsStats;
    bindStats<S>(m, "SplitDestinationsStats",
                 "What memplan-split-destinations did.",
                 {
#define MEMPLAN_SPLIT_DESTINATIONS_COUNTER MEMPLAN_COUNTER
#include "memplan/Passes/Counters.def"
                 });
  }
  {
    using S = DyingInputStats;
    bindStats<S>(m, "DyingInputStats", "What memplan-reuse-dying-inputs did.",
                 {
#define MEMPLAN_DYING_INPUT_COUNTER MEMPLAN_COUNTER
#include "memplan/Passes/Counters.def"
                 })
        .def_ro("analyzed", &S::analyzed);
  }
  {
    using S = ReorderStats;
    bindStats<S>(m, "ReorderStats", "What memplan-reorder-for-memory did.",
                 {
#define MEMPLAN_REORDER_COUNTER MEMPLAN_COUNTER
#include "memplan/Passes/Counters.def"
                 })
        .def_ro("analyzed", &S::analyzed);
  }
  {
    using S = SubsetCopyStats;
    bindStats<S>(m, "SubsetCopyStats",
                 "What memplan-eliminate-subset-copies did.",
                 {
#define MEMPLAN_SUBSET_COPY_COUNTER MEMPLAN_COUNTER
#include "memplan/Passes/Counters.def"
                 })
        .def_ro("analyzed", &S::analyzed)
        .def_prop_ro(
            "remarks", [](const S &stats) { return remarkList(stats.remarks); },
            "One (mlir.ir.Location, message) per candidate value: written in "
            "place, or why it stays a copy.");
  }
  {
    using S = RecomputeStats;
    bindStats<S>(m, "RecomputeStats",
                 "What memplan-recompute-cheap-values did.",
                 {
#define MEMPLAN_RECOMPUTE_COUNTER MEMPLAN_COUNTER
#include "memplan/Passes/Counters.def"
                 })
        .def_prop_ro(
            "remarks", [](const S &stats) { return remarkList(stats.remarks); },
            "The decisions as (mlir.ir.Location, message) pairs.");
  }
  {
    using S = FoldTransposesStats;
    bindStats<S>(m, "FoldTransposesStats", "What memplan-fold-transposes did.",
                 {
#define MEMPLAN_FOLD_TRANSPOSES_COUNTER MEMPLAN_COUNTER
#include "memplan/Passes/Counters.def"
                 });
  }
  {
    using S = DeallocationStats;
    bindStats<S>(m, "DeallocationStats",
                 "What memplan-buffer-deallocation did.",
                 {
#define MEMPLAN_DEALLOCATION_COUNTER MEMPLAN_COUNTER
#include "memplan/Passes/Counters.def"
                 });
  }
#undef MEMPLAN_COUNTER
  // The option tables (MEMPLAN_OPTIONS_STRUCT) of the rewrites bound below,
  // from which memplan.passes declares their passes' options.
  m.attr("FOLD_TRANSPOSES_OPTIONS") = optionRows(FoldTransposesOptions::rows());
  m.attr("DEALLOCATION_OPTIONS") = optionRows(DeallocationOptions::rows());
  m.attr("RECOMPUTE_OPTIONS") = optionRows(RecomputeOptions::rows());
  m.attr("REORDER_OPTIONS") = optionRows(ReorderOptions::rows());
  m.attr("SUBSET_COPY_OPTIONS") = optionRows(SubsetCopyOptions::rows());
  m.attr("DYING_INPUT_OPTIONS") = optionRows(DyingInputOptions::rows());
  m.def(
      "fold_transposes",
      [](nb::handle capsule, const nb::dict &options) {
        std::vector<RewriteRemark> remarks;
        FoldTransposesStats stats = foldTransposes(
            operationOf(capsule), readOptions<FoldTransposesOptions>(options),
            remarks);
        return nb::make_tuple(stats, remarkList(remarks));
      },
      nb::arg("module_capsule"), nb::arg("options") = nb::dict(),
      "Fold transposes and broadcasts into the ops that read them; returns "
      "(FoldTransposesStats, [(mlir.ir.Location, remark)], empty without "
      "remarks). options: memplan-fold-transposes' option values by name "
      "(FOLD_TRANSPOSES_OPTIONS; their defaults for the rest).");
  bindOnOperation(
      m, "split_destinations", splitDestinations, "module_capsule",
      "Give every use of a fresh destination (tensor.empty) its own copy right "
      "before its user.");
  m.def(
      "deallocate_buffers",
      [](nb::handle capsule, const nb::dict &options) {
        DeallocationResult result = deallocateBuffers(
            operationOf(capsule), readOptions<DeallocationOptions>(options));
        nb::list left, unawaited;
        for (const LeftFunction &f : result.left)
          left.append(nb::make_tuple(opCapsule(f.func), opCapsule(f.at),
                                     f.reason, f.allocations));
        for (const UnawaitedBuffer &b : result.unawaited)
          unawaited.append(nb::make_tuple(locationCapsule(b.buffer),
                                          locationCapsule(b.work)));
        return nb::make_tuple(result.stats, left, unawaited);
      },
      nb::arg("module_capsule"), nb::arg("options") = nb::dict(),
      "Free the buffers of every function under the module that memplan's "
      "ownership analysis reasons about: (DeallocationStats, [(function "
      "capsule, op capsule, reason, heap allocations)] left to upstream, "
      "[(buffer location capsule, async work location capsule)] not freed). "
      "options: memplan-buffer-deallocation's option values by name "
      "(DEALLOCATION_OPTIONS; their defaults for the rest).");
  m.def(
      "prepare_deallocation",
      [](nb::handle capsule, const nb::dict &options) {
        return prepareDeallocation(operationOf(capsule),
                                   readOptions<DeallocationOptions>(options));
      },
      nb::arg("module_capsule"), nb::arg("options") = nb::dict(),
      "What memplan-buffer-deallocation does to the module before it plans "
      "(copies where loops run, dead values dropped, returned merges that "
      "always hold one value replaced by it): plan_deallocation's plans of "
      "the module it leaves are then the pass's. Returns DeallocationStats "
      "(loop_copies). options as deallocate_buffers'.");
  bindOnOperation(
      m, "check_upstream_deallocation", checkUpstreamDeallocation,
      "func_capsule",
      "False (after a located error) when upstream's ownership-based "
      "deallocation crashes on the function.");
  nb::class_<HiddenFunctionBodies>(
      m, "HiddenFunctionBodies",
      "While it lives (until restore()), every function under the module "
      "but the kept ones has no body (a private declaration).")
      .def(
          "__init__",
          [](HiddenFunctionBodies *self, nb::handle capsule,
             const std::vector<nb::handle> &keep) {
            std::vector<MlirOperation> ops;
            for (nb::handle k : keep)
              ops.push_back(operationOf(k));
            new (self) HiddenFunctionBodies(operationOf(capsule), ops);
          },
          nb::arg("module_capsule"), nb::arg("keep"))
      .def("restore", &HiddenFunctionBodies::restore,
           "Put every hidden body back.");
  bindRewrite(
      m, "recompute_cheap_values", recomputeCheapValues,
      "Recompute cheap values at their users where holding them costs bytes "
      "at the modeled peak. options: memplan-recompute-cheap-values' option "
      "values by name (RECOMPUTE_OPTIONS; their defaults for the rest).");
  m.def(
      "reorder_for_memory",
      [](nb::handle capsule, const nb::dict &options) {
        ReorderOptions o = readOptions<ReorderOptions>(options);
        if (o.width < 1 || o.lookahead < 1 || o.branching < 1)
          throw nb::value_error(
              "beam-width, lookahead and branching must be >= 1");
        return reorderForMemory(operationOf(capsule), o);
      },
      nb::arg("module_capsule"), nb::arg("options") = nb::dict(),
      "Reorder single-block function bodies for a lower modeled peak (a "
      "beam search of `beam-width` schedules, `lookahead` ops ahead, trying "
      "`branching` ops where each allocates). options: "
      "memplan-reorder-for-memory's option values by name (REORDER_OPTIONS; "
      "their defaults for the rest).");
  m.def(
      "eliminate_subset_copies",
      [](nb::handle capsule, const nb::dict &options, bool dryRun) {
        return eliminateSubsetCopies(operationOf(capsule),
                                     readOptions<SubsetCopyOptions>(options),
                                     !dryRun);
      },
      nb::arg("module_capsule"), nb::arg("options") = nb::dict(),
      nb::arg("dry_run") = false,
      "Let the producers of values copied into a subset of a larger tensor "
      "(pad, concat, insert_slice) write straight into it where the in-place "
      "analysis and the peak model allow it; with dry_run, only say what it "
      "would do (the module unchanged). options: "
      "memplan-eliminate-subset-copies' option values by name "
      "(SUBSET_COPY_OPTIONS; their defaults for the rest).");
  bindRewrite(
      m, "reuse_dying_inputs", reuseDyingInputs,
      "Let elementwise ops write into an input that dies there where the "
      "in-place analysis allows it. options: memplan-reuse-dying-inputs' "
      "option values by name (DYING_INPUT_OPTIONS; their defaults for the "
      "rest).");
}

} // namespace memplan
