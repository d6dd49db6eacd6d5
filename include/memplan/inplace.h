//===- inplace.h - One-Shot-exact in-place analysis core ---------*- C++ -*-===//
//
// The C++ fast path of memplan's in-place analysis. It mirrors the Python
// reference implementation (python/memplan/inplace/{model,analysis,driver,
// incremental}.py) rule for rule over the extracted Graph, and declines (with
// the op and a reason) whatever it does not model, so the caller can hand the
// module to the Python analysis instead. Declining is never a wrong answer;
// answering differently from the reference would be.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_INPLACE_H
#define MEMPLAN_INPLACE_H

#include "memplan/graph.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memplan {
namespace inplace {

enum Relation : uint8_t { kEquiv = 0, kUnknown = 1 };

/// An aliasing value of an operand: (value, relation, definite).
struct Alias {
  int32_t value;
  uint8_t rel;
  bool definite;
};

/// An aliasing operand of a value: (operand, relation, definite).
struct OpAlias {
  int32_t operand;
  uint8_t rel;
  bool definite;
};

enum Heuristic : int { kBottomUp = 0, kTopDown = 1, kFuzzer = 2, kFromTerminators = 3 };

struct Options {
  bool functionBoundaries = false;
  bool allowUnknownOps = false;
  bool allowReturnAllocsFromLoops = false;
  bool checkParallelRegions = true;
  /// Also plan the tensor copies that materialize the out-of-place decisions.
  bool planCopies = false;
  int heuristic = kBottomUp;
  uint32_t fuzzerSeed = 0;
};

/// The answer of the analysis to a declined input: where and why.
struct Decline {
  int32_t op;
  std::string reason;
};

/// Boundary facts of one analyzed function (what the annotations need).
struct FuncFacts {
  int32_t func = -1;
  std::map<int32_t, std::string> access;  ///< Tensor argument -> access.
  /// Return op -> (return operand index -> equivalent argument).
  std::map<int32_t, std::map<int32_t, int32_t>> equivAnnot;
  // What calls into the function need.
  std::vector<bool> read, written;                    ///< Per argument.
  std::map<int32_t, std::vector<int32_t>> aliasing;   ///< Argument -> returns.
  std::map<int32_t, int32_t> equivalent;              ///< Return -> argument.
};

struct Result {
  bool ok = false;
  Decline decline{-1, ""};
  std::vector<uint8_t> inplace;  ///< Per operand id.
  std::vector<uint8_t> decided;  ///< Per operand id.
  std::vector<int32_t> scopes;   ///< Analyzed scopes (functions, or the root).
  std::vector<FuncFacts> facts;  ///< In analysis order.
  /// Conflicts found, (decided operand, read, write, definition).
  std::vector<std::array<int32_t, 4>> conflicts;
  /// With planCopies: (kind, op, what, copy) per tensor copy, as upstream's
  /// TensorCopyInsertion would insert them. kind 0: copy operand #what of
  /// op; 1: copy result value `what` after op; 2: copy operand #what of the
  /// scf.yield `op`. copy 0: allocation only (contents never read).
  std::vector<std::array<int32_t, 4>> copies;
  /// With planCopies: bytes the out-of-place decisions copy (a dynamic size
  /// counts 2^40) and how many copy contents, for min-copy-bytes.
  int64_t copyBytes = -1, copyCount = -1;
};

/// Runs the analysis over the module the graph was extracted from.
Result analyze(const Graph &g, const Options &opts);

}  // namespace inplace
}  // namespace memplan

#endif  // MEMPLAN_INPLACE_H
