//===- NumericsBindings.cpp - What the numerics harness asks C++ ----------===//
//
// `index_argument_ranges(func_capsule, size_limit)` returns
// [(argument, lo, hi)] (python/memplan/numerics/signature.py wraps it);
// `pack_strided_reads(module_capsule, tile, max_bytes)` is a step of the
// harness' lowering (python/memplan/numerics/lowering.py).
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/Numerics/IndexRanges.h"
#include "memplan/Numerics/StridedReads.h"

namespace nb = nanobind;

namespace memplan {
void registerNumericsBindings(nb::module_ &m) {
  m.def(
      "index_argument_ranges",
      [](nb::handle capsule, int64_t sizeLimit) {
        nb::list out;
        for (const ArgumentRange &r :
             indexArgumentRanges(operationOf(capsule), sizeLimit))
          out.append(nb::make_tuple(r.argument, r.lo, r.hi));
        return out;
      },
      nb::arg("func_capsule"), nb::arg("size_limit"),
      "[(argument number, lo, hi)]: inclusive values of the function's "
      "integer arguments that keep their uses as positions and sizes in "
      "bounds, from MLIR's interfaces (memplan/Numerics/IndexRanges.h).");
  m.def(
      "pack_strided_reads",
      [](nb::handle capsule, int64_t tile, int64_t maxBytes) {
        if (tile <= 0 || maxBytes <= 0)
          throw nb::value_error("tile and max_bytes must be positive");
        return packStridedReads(operationOf(capsule), tile, maxBytes);
      },
      nb::arg("module_capsule"), nb::arg("tile"), nb::arg("max_bytes"),
      "Pack, tile by tile, the inputs that linalg.generic ops on buffers "
      "read with a stride in their innermost loop "
      "(memplan/Numerics/StridedReads.h); returns the ops rewritten.");
}

} // namespace memplan
