//===- OptionValues.h - Typed values of pass options ------------*- C++ -*-===//
//
// The values of a pass' options as MLIR parsed them, by option name: what
// the hooks of an external pass (memplan/passes/ExternalPass.h) receive, and
// what a typed options struct (memplan/analysis/OneShotOptions.h) is read
// from. Plain C++ only.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_PASSES_OPTIONVALUES_H
#define MEMPLAN_PASSES_OPTIONVALUES_H

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace memplan {

/// The value of one option, typed as declared: bool, a signed integer
/// ("int"), an unsigned one ("uint32", "uint64") or a string ("str", also
/// one of its choices).
using OptionValue = std::variant<bool, int64_t, uint64_t, std::string>;

/// Option values by option name (`buffer-alignment`), in declaration order.
using OptionValues = std::vector<std::pair<std::string, OptionValue>>;

} // namespace memplan

#endif // MEMPLAN_PASSES_OPTIONVALUES_H
