//===- GraphBindings.cpp - Python view of the Graph -----------------------===//
//
// Arrays are exposed as read-only numpy views that keep the Graph alive, so
// Python can vectorize over them without a copy.
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/IR/CallOrder.h"
#include "memplan/IR/Graph.h"
#include "memplan/IR/OpRoles.h"
#include "memplan/Passes/HeldDiagnostics.h"

#include "mlir-c/IR.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>

namespace nb = nanobind;

namespace memplan {
namespace {

constexpr const char *kOpCapsuleName = "mlir.ir.Operation._CAPIPtr";

using IntArray = nb::ndarray<nb::numpy, const int32_t, nb::ndim<1>>;

IntArray view(const std::vector<int32_t> &v, nb::handle owner) {
  size_t shape[1] = {v.size()};
  return IntArray(v.data(), 1, shape, owner);
}

void checkOp(const Graph &g, int32_t op) {
  if (op < 0 || op >= g.numOps())
    throw nb::index_error("op id out of range");
}

/// A query of one op of the graph, its id checked first.
template <typename R, typename... Args>
auto opQuery(R (Graph::*query)(int32_t, Args...) const) {
  return [query](const Graph &g, int32_t op, Args... args) {
    checkOp(g, op);
    return (g.*query)(op, args...);
  };
}

/// A query of two ops of the graph, their ids checked first.
auto opPairQuery(bool (Graph::*query)(int32_t, int32_t) const) {
  return [query](const Graph &g, int32_t a, int32_t b) {
    checkOp(g, a);
    checkOp(g, b);
    return (g.*query)(a, b);
  };
}

/// Binds `name(op_capsule)` to `query` of the op behind an
/// `mlir.ir.Operation._CAPIPtr` capsule.
template <typename Query>
void defOpQuery(nb::module_ &m, const char *name, Query query,
                const char *doc) {
  m.def(
      name, [query](nb::handle capsule) { return query(operationOf(capsule)); },
      nb::arg("op_capsule"), doc);
}

} // namespace

void registerGraphBindings(nb::module_ &m) {
  nb::enum_<TypeKind>(
      m, "TypeKind",
      "The kind of an MLIR type, as the IR bridge classifies it.")
      .value("OTHER", TypeKind::Other)
      .value("RANKED_TENSOR", TypeKind::RankedTensor)
      .value("UNRANKED_TENSOR", TypeKind::UnrankedTensor)
      .value("MEMREF", TypeKind::MemRef)
      .value("UNRANKED_MEMREF", TypeKind::UnrankedMemRef)
      .value("INDEX", TypeKind::Index)
      .value("INTEGER", TypeKind::Integer)
      .value("FLOAT", TypeKind::Float);
  nb::class_<TypeInfo>(m, "TypeInfo", "What memplan knows of one MLIR type.")
      .def_ro("shape", &TypeInfo::shape)
      .def_ro("elem_bits", &TypeInfo::elemBits)
      .def_ro("identity_layout", &TypeInfo::identityLayout)
      .def_ro("memory_space", &TypeInfo::memorySpace)
      .def_ro("text", &TypeInfo::text)
      .def_ro("elem_bytes", &TypeInfo::elemBytes,
              "Bytes per element at LLVM's default data-layout size; -1 if not "
              "modeled.")
      .def_prop_ro(
          "elem_reason",
          [](const TypeInfo &t) -> nb::object {
            if (t.elemReason.empty())
              return nb::none();
            return nb::str(t.elemReason.c_str(), t.elemReason.size());
          },
          "Why the element layout is not modeled, or None.")
      .def_ro("kind", &TypeInfo::kind)
      .def_prop_ro("is_tensor", &TypeInfo::isTensor)
      .def_prop_ro("is_memref", &TypeInfo::isMemRef)
      .def_prop_ro("has_static_shape", &TypeInfo::hasStaticShape)
      .def_prop_ro("static_bytes", &TypeInfo::staticBytes)
      .def("__repr__",
           [](const TypeInfo &t) { return "TypeInfo(" + t.text + ")"; });
  m.attr("DYNAMIC") = TypeInfo::kDynamic;

  // The enums of memplan/IR/OpRoles.h, made from their one list.
#define MEMPLAN_ENUM_VALUE(Name, Py, Value, Doc) e.value(#Py, (E)(Value), Doc);
  {
    using E = LifetimeRole;
    nb::enum_<E> e(m, "LifetimeRole", nb::is_arithmetic(),
                   "What an op does with a buffer operand: the low byte of "
                   "`Graph.op_role`.");
#define MEMPLAN_LIFETIME_ROLE MEMPLAN_ENUM_VALUE
#include "memplan/IR/OpRoles.def"
  }
  {
    using E = LifetimeRoleFlag;
    nb::enum_<E> e(m, "LifetimeRoleFlag", nb::is_flag(), nb::is_arithmetic(),
                   "Flags above the role byte of `Graph.op_role`.");
#define MEMPLAN_LIFETIME_ROLE_FLAG(Name, Py, Value, Short, Doc)                \
  MEMPLAN_ENUM_VALUE(Name, Py, Value, Doc)
#include "memplan/IR/OpRoles.def"
  }
  {
    using E = OpPurity;
    nb::enum_<E> e(m, "OpPurity", nb::is_flag(), nb::is_arithmetic(),
                   "Bits of `Graph.op_purity`.");
#define MEMPLAN_OP_PURITY_BIT MEMPLAN_ENUM_VALUE
#include "memplan/IR/OpRoles.def"
  }
  {
    using E = OpInterfaceBit;
    nb::enum_<E> e(m, "OpInterface", nb::is_flag(), nb::is_arithmetic(),
                   "Bits of `Graph.op_interfaces` and `op_interfaces`.");
#define MEMPLAN_OP_INTERFACE_BIT MEMPLAN_ENUM_VALUE
#include "memplan/IR/OpRoles.def"
  }
#undef MEMPLAN_ENUM_VALUE
  nb::dict flagNames;
#define MEMPLAN_LIFETIME_ROLE_FLAG(Name, Py, Value, Short, Doc)                \
  flagNames[#Py] = Short;
#include "memplan/IR/OpRoles.def"
  m.attr("ROLE_FLAG_SHORT_NAMES") = flagNames;

#define MEMPLAN_ARRAY(pyname, field)                                           \
  def_prop_ro(pyname, [](nb::handle self) {                                    \
    return view(nb::cast<const Graph &>(self).field, self);                    \
  })

  nb::class_<Graph>(m, "Graph",
                    "Compact pre-order array form of an MLIR op tree.",
                    nb::dynamic_attr())
      .def_prop_ro("num_ops", &Graph::numOps)
      .def_prop_ro("num_values", &Graph::numValues)
      .def_prop_ro("num_blocks", &Graph::numBlocks)
      .def_prop_ro("num_regions", &Graph::numRegions)
      .MEMPLAN_ARRAY("op_name", opName)
      .MEMPLAN_ARRAY("op_parent", opParent)
      .MEMPLAN_ARRAY("op_block", opBlock)
      .MEMPLAN_ARRAY("op_end", opEnd)
      .MEMPLAN_ARRAY("op_depth", opDepth)
      .MEMPLAN_ARRAY("operand_begin", operandBegin)
      .MEMPLAN_ARRAY("operands", operands)
      .MEMPLAN_ARRAY("result_begin", resultBegin)
      .MEMPLAN_ARRAY("num_results", numResults)
      .MEMPLAN_ARRAY("region_begin", regionBegin)
      .MEMPLAN_ARRAY("region_op", regionOp)
      .MEMPLAN_ARRAY("region_block_begin", regionBlockBegin)
      .MEMPLAN_ARRAY("region_blocks", regionBlocks)
      .MEMPLAN_ARRAY("block_parent_op", blockParentOp)
      .MEMPLAN_ARRAY("block_region", blockRegion)
      .MEMPLAN_ARRAY("block_arg_begin", blockArgBegin)
      .MEMPLAN_ARRAY("block_num_args", blockNumArgs)
      .MEMPLAN_ARRAY("block_first_op", blockFirstOp)
      .MEMPLAN_ARRAY("value_type", valueType)
      .MEMPLAN_ARRAY("value_op", valueOp)
      .MEMPLAN_ARRAY("value_block", valueBlock)
      .MEMPLAN_ARRAY("value_index", valueIndex)
      .MEMPLAN_ARRAY("use_begin", useBegin)
      .MEMPLAN_ARRAY("use_op", useOp)
      .MEMPLAN_ARRAY("use_operand", useOperand)
      .MEMPLAN_ARRAY("op_role", opRole)
      .MEMPLAN_ARRAY("flow_begin", flowBegin)
      .MEMPLAN_ARRAY("flow_target", flowTarget)
      .MEMPLAN_ARRAY("operand_access", operandAccess)
      .MEMPLAN_ARRAY("async_end", asyncEnd)
      .MEMPLAN_ARRAY("op_purity", opPurity)
      .MEMPLAN_ARRAY("view_source", viewSource)
      .MEMPLAN_ARRAY("op_interfaces", opInterfaces)
      .def_ro("names", &Graph::names)
      .def_ro("types", &Graph::types)
      .def("name_id", &Graph::nameId, "Id of an op name, or -1.")
      .def("is_ancestor", &Graph::isAncestor)
      .def("ancestor_in_block", &Graph::ancestorInBlock)
      .def("happens_before", opPairQuery(&Graph::happensBefore), nb::arg("a"),
           nb::arg("b"),
           "Upstream One-Shot's happens-before: op `a`, or an op enclosing it "
           "that does not enclose `b`, properly dominates op `b` (MLIR's "
           "DominanceInfo).")
      .def("properly_dominates", opPairQuery(&Graph::properlyDominates),
           nb::arg("a"), nb::arg("b"),
           "Op `a` properly dominates op `b` (DominanceInfo; not the ops "
           "nested in `a`).")
      .def(
          "value_dominates",
          [](const Graph &g, int32_t v, int32_t b) {
            if (v < 0 || v >= g.numValues())
              throw nb::index_error("value id out of range");
            checkOp(g, b);
            return g.valueDominates(v, b);
          },
          nb::arg("value"), nb::arg("op"),
          "Value `value` properly dominates op `op` (DominanceInfo).")
      .def("location", opQuery(&Graph::location), "Printed location of an op.")
      .def("has_attribute", opQuery(&Graph::hasAttribute), nb::arg("op"),
           nb::arg("name"), "Whether the op has the attribute.")
      .def("int_attribute", opQuery(&Graph::intAttribute), nb::arg("op"),
           nb::arg("name"),
           "Value of an IntegerAttr (index or at most 64 bits; signless ones "
           "sign-extended, so an i1 `true` is -1) of the op, else None.")
      .def("str_attribute", opQuery(&Graph::strAttribute), nb::arg("op"),
           nb::arg("name"), "Value of a StringAttr of the op, else None.")
      .def("symbol_attribute", opQuery(&Graph::symbolAttribute), nb::arg("op"),
           nb::arg("name"),
           "Symbol (without `@`) of a FlatSymbolRefAttr of the op, else None.")
      .def("constant_int", opQuery(&Graph::constantInt), nb::arg("op"),
           "Value of a constant op (ConstantLike, folded) of an integer or "
           "index type of at most 64 bits, sign-extended; else None.")
      .def("callee", opQuery(&Graph::callee), nb::arg("op"),
           "The symbol (without `@`, its leaf reference) a call "
           "(CallOpInterface) calls; None for an indirect call or an op that "
           "is not a call.")
      .def("shaped_dim", opQuery(&Graph::shapedDim), nb::arg("op"),
           "(operand number of the shaped value, constant dimension or None) "
           "of a ShapedDimOpInterface op (memref.dim, tensor.dim, ...); None "
           "for another op.")
      .def(
          "induction_bounds",
          [](const Graph &g, int32_t v) -> nb::object {
            if (v < 0 || v >= g.numValues())
              throw nb::index_error("value id out of range");
            std::optional<InductionBounds> b = g.inductionBounds(v);
            if (!b)
              return nb::none();
            return nb::make_tuple(b->lower.value, b->lower.constant,
                                  b->upper.value, b->upper.constant);
          },
          nb::arg("value"),
          "(lower value, lower constant, upper value, upper constant) when "
          "the value is the single induction variable of a loop "
          "(LoopLikeOpInterface) counting up: lower <= value < upper. A "
          "bound's value is -1 when it is not an operand of the loop, its "
          "constant None when not constant. None for another value.")
      .def(
          "upper_bound",
          [](const Graph &g, int32_t v, nb::callable stop) -> nb::object {
            if (v < 0 || v >= g.numValues())
              throw nb::index_error("value id out of range");
            // No exception may cross MLIR's code: a Python error raised by
            // `stop` ends the traversal and is raised again here.
            bool raised = false;
            auto stopAt = [&](int32_t id) {
              if (raised)
                return true;
              try {
                nb::object answer = stop(id);
                int truth = PyObject_IsTrue(answer.ptr());
                raised = truth < 0;
                return truth != 0;
              } catch (nb::python_error &e) {
                e.restore();
                raised = true;
                return true;
              }
            };
            std::optional<int64_t> bound = g.upperBound(v, stopAt);
            if (raised)
              throw nb::python_error();
            return bound ? nb::object(nb::int_(*bound)) : nb::none();
          },
          nb::arg("value"), nb::arg("stop"),
          "A closed constant upper bound of an index value from upstream's "
          "ValueBoundsOpInterface, following its backward slice until "
          "`stop(value id)` is true; None when the interfaces state none.")
      .def(
          "equal_index",
          [](const Graph &g, int32_t a, int32_t b) {
            if (a < 0 || a >= g.numValues() || b < 0 || b >= g.numValues())
              throw nb::index_error("value id out of range");
            return g.equalIndex(a, b);
          },
          nb::arg("a"), nb::arg("b"),
          "Whether index values `a` and `b` are equal for every input, as "
          "upstream's ValueBoundsOpInterface states (areEqual); False when "
          "unknown.")
      .def(
          "simplified_index",
          [](const Graph &g, int32_t v) {
            if (v < 0 || v >= g.numValues())
              throw nb::index_error("value id out of range");
            return g.simplifiedIndex(v);
          },
          nb::arg("value"),
          "The value an integer value equals once upstream's "
          "arith-int-range-optimizations, canonicalize and cse simplify its "
          "pure backward slice on a scratch copy (the equality proven the "
          "same way); the value itself when there is none.")
      .def("non_call_symbol_uses", &Graph::nonCallSymbolUses,
           "[(user op, symbol)] for every reference to a symbol of the root "
           "that is not a call's callee (SymbolTable uses, CallOpInterface).")
      .def(
          "op_capsule",
          [](const Graph &g, int32_t op) {
            checkOp(g, op);
            return nb::steal(
                PyCapsule_New(g.opPtr[op], kOpCapsuleName, nullptr));
          },
          "Capsule for `mlir.ir.Operation._CAPICreate`.");
#undef MEMPLAN_ARRAY

  m.def(
      "print_asm",
      [](nb::handle capsule, bool assumeVerified) {
        MlirOperation op = operationOf(capsule);
        std::string text;
        {
          // The printer verifies the op first (unless assume_verified): the
          // verifier's diagnostics, which upstream's printer swallows, are
          // held anyway, so that no diagnostic can reach a Python handler
          // without the GIL (memplan/Passes/HeldDiagnostics.h).
          DiagnosticHold hold(mlirOperationGetContext(op));
          nb::gil_scoped_release release;
          text = printOperation(op, assumeVerified);
        }
        return nb::bytes(text.data(), text.size());
      },
      nb::arg("op_capsule"), nb::arg("assume_verified") = false,
      "The op printed with MLIR's default flags, as UTF-8 bytes (one buffer, "
      "not a Python callback per printed piece).");
  m.def(
      "call_graph_order",
      [](nb::handle capsule) {
        nb::list out;
        for (CallScc &scc : callGraphOrder(operationOf(capsule)))
          out.append(nb::make_tuple(nb::cast(scc.symbols), scc.recursive));
        return out;
      },
      nb::arg("op_capsule"),
      "Strongly connected components of MLIR's CallGraph over the callables "
      "directly inside the op, callees first: [(symbol names, recursive)].");
  defOpQuery(m, "op_interfaces", interfacesOf,
             "The OpInterface bits of one op, given its `_CAPIPtr` capsule.");
  defOpQuery(m, "shaped_dim", shapedDimOf,
             "`Graph.shaped_dim` of one op, given its `_CAPIPtr` capsule.");
  m.def(
      "element_layout",
      [](nb::handle type) -> std::pair<nb::object, nb::object> {
        std::string reason;
        int64_t bytes = elementLayout(
            MlirType{objectPointer(type, "mlir.ir.Type._CAPIPtr")}, reason);
        if (bytes < 0)
          return {nb::none(), nb::str(reason.c_str(), reason.size())};
        return {nb::int_(bytes), nb::none()};
      },
      nb::arg("type"),
      "(bytes per element, None) of an `mlir.ir.Type` at LLVM's default "
      "data-layout size, or (None, reason) when memplan does not model it.");
  defOpQuery(m, "extract_graph", buildGraph,
             "Extract the graph of an operation given its `_CAPIPtr` capsule.");
}

} // namespace memplan
