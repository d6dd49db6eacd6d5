//===- OneShotOptions.h - memplan-one-shot-bufferize's options --*- C++ -*-===//
//
// The options of `memplan-one-shot-bufferize` as a typed struct, made from
// their one declaration (memplan/Inplace/OneShotOptions.def), with the one
// reader of option values into it and the declaration rows the Python side
// declares the pass' options from. C++ reads a field, never an option by its
// name: an option the table lacks does not compile. Plain C++ only.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_INPLACE_ONESHOTOPTIONS_H
#define MEMPLAN_INPLACE_ONESHOTOPTIONS_H

#include "memplan/Inplace/OneShotOptions.def"
#include "memplan/Passes/OptionValues.h"

namespace memplan {

/// `memplan-one-shot-bufferize`'s option values, each its declared default
/// unless set.
MEMPLAN_OPTIONS_STRUCT(OneShotOptions, "memplan-one-shot-bufferize",
                       MEMPLAN_ONE_SHOT_OPTIONS);

} // namespace memplan

#endif // MEMPLAN_INPLACE_ONESHOTOPTIONS_H
