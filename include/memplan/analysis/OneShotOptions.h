//===- OneShotOptions.h - memplan-one-shot-bufferize's options --*- C++ -*-===//
//
// The options of `memplan-one-shot-bufferize` as a typed struct, made from
// their one declaration (memplan/analysis/OneShotOptions.def), with the one
// reader of option values into it and the declaration rows the Python side
// declares the pass' options from. C++ reads a field, never an option by its
// name: an option the table lacks does not compile. Plain C++ only.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_ANALYSIS_ONESHOTOPTIONS_H
#define MEMPLAN_ANALYSIS_ONESHOTOPTIONS_H

#include "memplan/passes/OptionValues.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace memplan {

/// `memplan-one-shot-bufferize`'s option values, each its declared default
/// unless set.
struct OneShotOptions {
#define MEMPLAN_ONE_SHOT_OPTION(Field, Name, Type, Default, Choices, Help)     \
  Type Field = Default;
#include "memplan/analysis/OneShotOptions.def"
};

/// One declared option: its name, MLIR option type ("bool", "int",
/// "uint32", "uint64", "str"), default, allowed values (comma-separated;
/// empty: any) and help.
struct OptionRow {
  const char *name, *type;
  OptionValue defaultValue;
  const char *choices, *help;
};

namespace detail {

/// The MLIR option type of a field of C++ type `T`.
template <typename T> constexpr const char *optionType() {
  if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_same_v<T, std::string>)
    return "str";
  else if constexpr (std::is_same_v<T, unsigned>)
    return "uint32";
  else if constexpr (std::is_same_v<T, uint64_t>)
    return "uint64";
  else {
    static_assert(std::is_same_v<T, int64_t>, "unsupported option type");
    return "int";
  }
}

/// `value` as the option value of its type.
template <typename T> OptionValue toOptionValue(const T &value) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>)
    return value;
  else if constexpr (std::is_unsigned_v<T>)
    return static_cast<uint64_t>(value);
  else
    return static_cast<int64_t>(value);
}

/// Sets `out` to `value` when it has the field's type (an integer of either
/// signedness within the field's range); false otherwise.
template <typename T> bool assignOption(T &out, const OptionValue &value) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>) {
    const T *typed = std::get_if<T>(&value);
    if (typed)
      out = *typed;
    return typed;
  } else {
    using Limits = std::numeric_limits<T>;
    if (const auto *u = std::get_if<uint64_t>(&value)) {
      if (*u > static_cast<uint64_t>(Limits::max()))
        return false;
      out = static_cast<T>(*u);
      return true;
    }
    const auto *s = std::get_if<int64_t>(&value);
    if (!s || (*s < 0 && !Limits::is_signed) ||
        (*s > 0 &&
         static_cast<uint64_t>(*s) > static_cast<uint64_t>(Limits::max())))
      return false;
    out = static_cast<T>(*s);
    return true;
  }
}

} // namespace detail

/// The declared options, in declaration order.
inline std::vector<OptionRow> oneShotOptionRows() {
  return {
#define MEMPLAN_ONE_SHOT_OPTION(Field, Name, Type, Default, Choices, Help)     \
  {Name, detail::optionType<Type>(), detail::toOptionValue(Type(Default)),     \
   Choices, Help},
#include "memplan/analysis/OneShotOptions.def"
  };
}

/// Sets the option `name` of `options` to `value`: empty when done, else
/// the error (no such option, or a value of another type or out of range).
inline std::string setOneShotOption(OneShotOptions &options,
                                    std::string_view name,
                                    const OptionValue &value) {
#define MEMPLAN_ONE_SHOT_OPTION(Field, Name, Type, Default, Choices, Help)     \
  if (name == Name)                                                            \
    return detail::assignOption(options.Field, value)                          \
               ? std::string()                                                 \
               : "option '" + std::string(name) + "' expects " +               \
                     detail::optionType<Type>();
#include "memplan/analysis/OneShotOptions.def"
  return "memplan-one-shot-bufferize has no option '" + std::string(name) + "'";
}

/// Reads `values` (by option name) into `options`; options not given keep
/// their values. Empty when every value was read, else the first error.
inline std::string readOneShotOptions(const OptionValues &values,
                                      OneShotOptions &options) {
  for (const auto &[name, value] : values)
    if (std::string error = setOneShotOption(options, name, value);
        !error.empty())
      return error;
  return {};
}

} // namespace memplan

#endif // MEMPLAN_ANALYSIS_ONESHOTOPTIONS_H
