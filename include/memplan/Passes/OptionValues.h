//===- OptionValues.h - Typed values of pass options ------------*- C++ -*-===//
//
// The values of a pass' options as MLIR parsed them, by option name: what
// the hooks of an external pass (memplan/Passes/ExternalPass.h) receive.
// And the kit that makes a pass' typed options struct, its one reader of
// such values and its declaration rows (exported to Python, which declares
// the pass' options from them) of one table of rows
//   X(field, "option-name", C++ type, default, "choices" or "", "help")
// where the C++ type is one of memplan/Passes/OptionTypes.def and the
// choices are comma-separated: MEMPLAN_OPTIONS_STRUCT
// (memplan/Inplace/OneShotOptions.h).
// Plain C++ only.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_PASSES_OPTIONVALUES_H
#define MEMPLAN_PASSES_OPTIONVALUES_H

#include "memplan/Passes/OptionTypes.def"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace memplan {

/// The value of one option, typed as declared
/// (memplan/Passes/OptionTypes.def): bool, a signed integer, an unsigned one
/// or a string (also one of its choices).
using OptionValue = std::variant<bool, int64_t, uint64_t, std::string>;

/// Option values by option name (`buffer-alignment`), in declaration order.
using OptionValues = std::vector<std::pair<std::string, OptionValue>>;

/// The type of an option: a row of memplan/Passes/OptionTypes.def.
enum class OptionType {
#define MEMPLAN_OPTION_TYPE_ENUM(Enum, Type, Name) Enum,
  MEMPLAN_OPTION_TYPES(MEMPLAN_OPTION_TYPE_ENUM)
#undef MEMPLAN_OPTION_TYPE_ENUM
};

/// The option type named `name` ("bool", "uint32", ...), if there is one.
inline std::optional<OptionType> optionTypeNamed(std::string_view name) {
#define MEMPLAN_OPTION_TYPE_NAMED(Enum, Type, Name)                            \
  if (name == Name)                                                            \
    return OptionType::Enum;
  MEMPLAN_OPTION_TYPES(MEMPLAN_OPTION_TYPE_NAMED)
#undef MEMPLAN_OPTION_TYPE_NAMED
  return std::nullopt;
}

/// One declared option: its name, option type's name
/// (memplan/Passes/OptionTypes.def), default, allowed values
/// (comma-separated; empty: any) and help.
struct OptionRow {
  const char *name, *type;
  OptionValue defaultValue;
  const char *choices, *help;
};

namespace option_detail {

/// The name of the option type of a field of C++ type `T`.
template <typename T> constexpr const char *optionType() {
#define MEMPLAN_OPTION_TYPE_OF(Enum, Type, Name)                               \
  if constexpr (std::is_same_v<T, Type>)                                       \
    return Name;                                                               \
  else
  MEMPLAN_OPTION_TYPES(MEMPLAN_OPTION_TYPE_OF)
#undef MEMPLAN_OPTION_TYPE_OF
  static_assert(sizeof(T) == 0, "unsupported option type");
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

} // namespace option_detail

/// The error for an option `name` that `pass` does not declare.
inline std::string noSuchOption(std::string_view pass, std::string_view name) {
  return std::string(pass) + " has no option '" + std::string(name) + "'";
}

/// Reads `values` into `options` (a MEMPLAN_OPTIONS_STRUCT); options not
/// given keep their values. Empty when every value was read, else the first
/// error (a name the table lacks, a value of another type or out of range).
template <typename Options>
std::string readOptions(const OptionValues &values, Options &options) {
  for (const auto &[name, value] : values)
    if (std::string error = options.set(name, value); !error.empty())
      return error;
  return {};
}

} // namespace memplan

// One row of a table, applied by MEMPLAN_OPTIONS_STRUCT: a field with its
// default, an OptionRow, a statement of `set`.
#define MEMPLAN_OPTION_FIELD(Field, Name, Type, Default, Choices, Help)        \
  Type Field = Default;
#define MEMPLAN_OPTION_ROW(Field, Name, Type, Default, Choices, Help)          \
  {Name, ::memplan::option_detail::optionType<Type>(),                         \
   ::memplan::option_detail::toOptionValue(Type(Default)), Choices, Help},
#define MEMPLAN_OPTION_SET(Field, Name, Type, Default, Choices, Help)          \
  if (name == Name)                                                            \
    return ::memplan::option_detail::assignOption(Field, value)                \
               ? std::string()                                                 \
               : "option '" + std::string(name) + "' expects " +               \
                     ::memplan::option_detail::optionType<Type>();

/// The struct `Struct` of the options of the pass `Pass`, made from `Table`
/// (a macro applying its argument to each row): a field per row, initialized
/// to its default; `rows()`, the declaration rows in order; and
/// `set(name, value)`, which sets the option `name` and returns the error
/// (empty when none).
#define MEMPLAN_OPTIONS_STRUCT(Struct, Pass, Table)                            \
  struct Struct {                                                              \
    Table(MEMPLAN_OPTION_FIELD)                                                \
                                                                               \
        static std::vector<::memplan::OptionRow> rows() {                      \
      return {Table(MEMPLAN_OPTION_ROW)};                                      \
    }                                                                          \
    std::string set(std::string_view name,                                     \
                    const ::memplan::OptionValue &value) {                     \
      Table(MEMPLAN_OPTION_SET) return ::memplan::noSuchOption(Pass, name);    \
    }                                                                          \
  }

#endif // MEMPLAN_PASSES_OPTIONVALUES_H
