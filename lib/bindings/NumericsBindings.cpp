//===- NumericsBindings.cpp - What the numerics harness asks C++ ----------===//
//
// `index_argument_ranges(func_capsule, size_limit)` returns
// [(argument, lo, hi)] (python/memplan/numerics/signature.py wraps it).
//
//===----------------------------------------------------------------------===//

#include "memplan/analysis/IndexRanges.h"
#include "memplan/bindings/Bindings.h"

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
      "bounds, from MLIR's interfaces (memplan/analysis/IndexRanges.h).");
}

} // namespace memplan
