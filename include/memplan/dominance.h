//===- dominance.h - Moved to memplan/analysis/Dominance.h ------*- C++ -*-===//
//
// Transitional: the header is memplan/analysis/Dominance.h. This path stays
// only for the files that issue #20's IR-walk work is rewriting
// (lib/extract*.cpp, lib/graph*.cpp, lib/pool_views.cpp, memplan/graph.h) and
// the packer's bindings; delete it once they include the new path.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_DOMINANCE_H
#define MEMPLAN_DOMINANCE_H

#include "memplan/analysis/Dominance.h"

#endif // MEMPLAN_DOMINANCE_H
