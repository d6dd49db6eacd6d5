//===- Bindings.h - Pieces of the memplan._core Python module ---*- C++ -*-===//
//
// Each C++ component registers its own Python surface; module.cpp only calls
// these in turn.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_BINDINGS_BINDINGS_H
#define MEMPLAN_BINDINGS_BINDINGS_H

#include <nanobind/nanobind.h>

namespace memplan {
void registerGraphBindings(nanobind::module_ &m);
void registerPackingBindings(nanobind::module_ &m);
void registerLifetimesBindings(nanobind::module_ &m);
void registerRegistryBindings(nanobind::module_ &m);
void registerEngineBindings(nanobind::module_ &m);
void registerOptBindings(nanobind::module_ &m);
void registerTransformsBindings(nanobind::module_ &m);
} // namespace memplan

#endif // MEMPLAN_BINDINGS_BINDINGS_H
