//===- InplaceBindings.cpp - Python surface of the in-place engine --------===//
//
// `run_interface_engine(module_capsule, ...)`: memplan's in-place analysis on
// MLIR's C++ API (lib/Inplace/), then test annotations or upstream's
// rewrite on the same state. Results come back as plain Python data.
// `split_repeated_successors(module_capsule)`: the step before it that gives
// a branch's repeated successor edges blocks of their own.
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/Inplace/InterfaceEngine.h"
#include "memplan/Inplace/RepeatedSuccessors.h"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

namespace memplan {
namespace {

constexpr const char *kOpCapsuleName = "mlir.ir.Operation._CAPIPtr";

// Each engine record as plain Python data, one overload per record type.

nb::object toPython(const EngineValue &v) {
  return nb::make_tuple(v.op, v.blockArgument, v.region, v.block, v.index);
}

nb::object toPython(const EngineDecision &d) {
  return nb::make_tuple(d.op, d.operand, d.inPlace);
}

nb::object toPython(const EngineConflict &c) {
  return nb::make_tuple(
      nb::make_tuple(c.op, c.operand), nb::make_tuple(c.readOp, c.readOperand),
      nb::make_tuple(c.writeOp, c.writeOperand), toPython(c.definition));
}

nb::object toPython(const EngineFunction &f) {
  nb::dict d;
  d["op"] = f.op;
  d["name"] = f.name;
  d["boundary_analyzed"] = f.boundaryAnalyzed;
  d["access"] = f.access;
  d["aliasing"] = f.aliasing;
  d["equivalent"] = f.equivalent;
  return d;
}

nb::object toPython(const EngineOrderCost &c) {
  return c.ok ? nb::make_tuple(c.bytes, c.copies)
              : nb::make_tuple(nb::none(), nb::none());
}

nb::object toPython(const EngineCopy &c);

/// A list of records as a Python list, in the engine's order.
template <typename T> nb::object toPython(const std::vector<T> &items) {
  nb::list out;
  for (const T &item : items)
    out.append(toPython(item));
  return out;
}

nb::object toPython(const EngineCopy &c) {
  return nb::make_tuple(c.op, c.operand, toPython(c.value), c.allocOnly,
                        c.bytes, toPython(c.nonWritable));
}

/// The getter of the EngineResult list `Field`, as Python data.
template <auto Field> nb::object listField(const EngineResult &r) {
  return toPython(r.*Field);
}

} // namespace

void registerInplaceBindings(nb::module_ &m) {
  nb::class_<EngineResult>(m, "EngineResult",
                           "What the interface engine decided and found.")
      .def_ro("ok", &EngineResult::ok)
      .def_ro("scopes", &EngineResult::scopes,
              "Analyzed scopes (pre-order op ids), in analysis order.")
      .def_prop_ro("decisions", &listField<&EngineResult::decisions>,
                   "(op, operand number, in place) per analyzed tensor "
                   "operand, in analysis order.")
      .def_prop_ro("conflicts", &listField<&EngineResult::conflicts>,
                   "((op, operand), (read op, operand), (write op, operand), "
                   "definition) per RaW conflict; read op -1: a write in a "
                   "parallel region to a buffer defined outside of it. Values "
                   "are (op, is block argument, region, block, index).")
      .def_prop_ro(
          "alias_sets", &listField<&EngineResult::aliasSets>,
          "Alias sets with more than one member, in upstream's member order.")
      .def_prop_ro("equivalence_sets",
                   &listField<&EngineResult::equivalenceSets>,
                   "Analysis only: equivalence sets with more than one member, "
                   "in upstream's member order.")
      .def_prop_ro("copies", &listField<&EngineResult::copies>,
                   "Analysis only: (op, operand, value copied, allocation "
                   "only, bytes or -1, non-writable values that forced it) per "
                   "out-of-place operand whose op upstream's copy insertion "
                   "visits (resolveTensorOpOperandConflicts, "
                   "canOmitTensorCopy), in analysis order.")
      .def_prop_ro(
          "functions", &listField<&EngineResult::functions>,
          "Function boundary facts (FuncAnalysisState): per function its "
          "argument access, (argument, result) aliasing and equivalence pairs.")
      .def_prop_ro(
          "num_tensor_in_place",
          [](const EngineResult &r) { return r.stats.numTensorInPlace; })
      .def_prop_ro(
          "num_tensor_out_of_place",
          [](const EngineResult &r) { return r.stats.numTensorOutOfPlace; })
      .def_prop_ro("num_buffer_alloc",
                   [](const EngineResult &r) { return r.stats.numBufferAlloc; })
      .def_prop_ro(
          "order_costs", &listField<&EngineResult::orderCosts>,
          "With rank_orders: (bytes, copies) per order, (None, None) where its "
          "analysis failed; a copy of dynamic size counts 2**40 bytes.")
      .def_ro("chosen_order", &EngineResult::chosenOrder,
              "With rank_orders: the index of the order kept, -1 if every "
              "order failed (bottom-up ran).")
      .def_ro("conflict_counter", &EngineResult::conflictCounter)
      .def_ro("non_writable_counter", &EngineResult::nonWritableCounter);

  m.attr("DYNAMIC_COPY_BYTES") = kDynamicCopyBytes;
  // memplan/passes/declarations.py declares the pass' options from these.
  m.attr("ONE_SHOT_BUFFERIZE_OPTIONS") = optionRows(OneShotOptions::rows());
  m.def(
      "split_repeated_successors",
      [](nb::handle capsule) {
        return splitRepeatedSuccessors(
            MlirOperation{capsulePointer(capsule, kOpCapsuleName)});
      },
      nb::arg("module_capsule"),
      "Give each edge of a branch to a block an earlier successor of the "
      "branch names, when it forwards a tensor, a block of its own that "
      "branches on to it (memplan/Inplace/RepeatedSuccessors.h); returns the "
      "edges split.");
  m.def(
      "run_interface_engine",
      [](nb::handle capsule, const nb::dict &options,
         const std::string &heuristic, unsigned fuzzerSeed,
         uint64_t conflictCounter, uint64_t nonWritableCounter,
         bool analysisOnly,
         const std::vector<std::pair<std::string, unsigned>> &rankOrders,
         bool checkFacts) {
        void *ptr = capsulePointer(capsule, kOpCapsuleName);
        auto checkHeuristic = [](const std::string &h) {
          if (h != "bottom-up" && h != "top-down" &&
              h != "bottom-up-from-terminators" && h != "fuzzer")
            throw std::invalid_argument("unknown analysis heuristic '" + h +
                                        "'");
        };
        checkHeuristic(heuristic);
        for (const auto &order : rankOrders)
          checkHeuristic(order.first);
        EngineOptions o;
        o.bufferize = readOptions<OneShotOptions>(options);
        o.heuristic = heuristic;
        o.fuzzerSeed = fuzzerSeed;
        o.analysisOnly = analysisOnly;
        o.rankOrders = rankOrders;
        o.checkFacts = checkFacts;
        o.conflictCounter = conflictCounter;
        o.nonWritableCounter = nonWritableCounter;
        return runInterfaceEngine(MlirOperation{ptr}, o);
      },
      nb::arg("module_capsule"), nb::arg("options"),
      nb::arg("analysis_heuristic") = "bottom-up",
      nb::arg("analysis_fuzzer_seed") = 0, nb::arg("conflict_counter") = 0,
      nb::arg("non_writable_counter") = 0, nb::arg("analysis_only") = false,
      nb::arg("rank_orders") = std::vector<std::pair<std::string, unsigned>>(),
      nb::arg("check_facts") = false,
      "One-Shot Analysis of the module (operation capsule) with op semantics "
      "from the "
      "BufferizableOpInterface, then the test-analysis-only annotations or "
      "upstream's copy insertion "
      "and bufferization on the same state, or (analysis_only) nothing that "
      "touches the IR, with the "
      "copies the rewrite would make. options: memplan-one-shot-bufferize's "
      "option values by name "
      "(either spelling; upstream's defaults for the rest). The analysis runs "
      "in the order "
      "analysis_heuristic (analysis_fuzzer_seed for the fuzzer); with "
      "rank_orders ((heuristic, seed) pairs; "
      "analysis_heuristic is then ignored): each order is analyzed without "
      "touching the IR, and the one "
      "whose copies move the fewest bytes (then fewest copies; first on ties) "
      "is kept for the rest. "
      "check_facts (testing) compares each interface answer the engine keeps "
      "with upstream's. "
      "Diagnostics go to the context's handlers; returns an "
      "EngineResult (ok False: the analysis or the rewrite failed). Python "
      "must hold no op handles "
      "inside the module across a rewrite.");
}

} // namespace memplan
