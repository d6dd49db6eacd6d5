//===- bufferize_bindings.cpp - Python surface of decided bufferization ---===//
//
// `bufferize_with_decisions(graph, inplace, decided, scopes, ...)` rewrites the
// graph's module with upstream's copy insertion and bufferization driven by
// memplan's decisions (lib/bufferize/DecidedBufferize.cpp).
//
//===----------------------------------------------------------------------===//

#include "memplan/bindings.h"
#include "memplan/decided_bufferize.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>

namespace nb = nanobind;

namespace memplan {

void registerBufferizeBindings(nb::module_ &m) {
  using Flags = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
  nb::class_<BufferizeStats>(m, "BufferizeStats", "What a decided bufferization did.")
      .def_ro("num_buffer_alloc", &BufferizeStats::numBufferAlloc)
      .def_ro("num_tensor_in_place", &BufferizeStats::numTensorInPlace)
      .def_ro("num_tensor_out_of_place", &BufferizeStats::numTensorOutOfPlace);
  m.def(
      "bufferize_with_decisions",
      [](const Graph &g, Flags inplace, Flags decided, const std::vector<std::pair<int32_t, bool>> &scopes,
         bool functionBoundaries, const std::string &functionBoundaryTypeConversion,
         const std::string &unknownTypeConversion, bool allowReturnAllocsFromLoops, bool allowUnknownOps,
         bool checkParallelRegions, uint32_t bufferAlignment, const std::vector<std::string> &dialectFilter,
         const std::vector<std::string> &noAnalysisFuncFilter, bool mustInferMemorySpace,
         bool useEncodingForMemorySpace) {
        size_t n = g.operands.size();
        if (inplace.shape(0) != n || decided.shape(0) != n)
          throw std::invalid_argument("decision arrays must have one entry per graph operand");
        std::vector<DecidedScope> ds;
        for (auto [op, boundary] : scopes) {
          if (op < 0 || op >= g.numOps())
            throw std::invalid_argument("scope op id out of range");
          ds.push_back({op, boundary});
        }
        BufferizeConfig c;
        c.functionBoundaries = functionBoundaries;
        c.functionBoundaryTypeConversion = functionBoundaryTypeConversion;
        c.unknownTypeConversion = unknownTypeConversion;
        c.allowReturnAllocsFromLoops = allowReturnAllocsFromLoops;
        c.allowUnknownOps = allowUnknownOps;
        c.checkParallelRegions = checkParallelRegions;
        c.bufferAlignment = bufferAlignment;
        c.dialectFilter = dialectFilter;
        c.noAnalysisFuncFilter = noAnalysisFuncFilter;
        c.mustInferMemorySpace = mustInferMemorySpace;
        c.useEncodingForMemorySpace = useEncodingForMemorySpace;
        BufferizeStats stats;
        bool ok = bufferizeWithDecisions(g, inplace.data(), decided.data(), ds, c, stats);
        return std::make_pair(ok, stats);
      },
      nb::arg("graph"), nb::arg("inplace"), nb::arg("decided"), nb::arg("scopes"),
      nb::arg("function_boundaries"), nb::arg("function_boundary_type_conversion"),
      nb::arg("unknown_type_conversion"), nb::arg("allow_return_allocs_from_loops"),
      nb::arg("allow_unknown_ops"), nb::arg("check_parallel_regions"), nb::arg("buffer_alignment"),
      nb::arg("dialect_filter"), nb::arg("no_analysis_func_filter"),
      nb::arg("must_infer_memory_space") = false, nb::arg("use_encoding_for_memory_space") = false,
      "One-Shot Bufferize the graph's module with the given decisions: (ok, stats). Diagnostics go "
      "to the context's handlers.");
}

} // namespace memplan
