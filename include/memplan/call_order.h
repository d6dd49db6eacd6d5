//===- call_order.h - Moved to memplan/analysis/CallOrder.h -----*- C++ -*-===//
//
// Transitional: the header is memplan/analysis/CallOrder.h. This path stays
// only for the files that issue #20's IR-walk work is rewriting
// (lib/extract*.cpp, lib/graph*.cpp, lib/pool_views.cpp, memplan/graph.h) and
// the packer's bindings; delete it once they include the new path.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_CALL_ORDER_H
#define MEMPLAN_CALL_ORDER_H

#include "memplan/analysis/CallOrder.h"

#endif // MEMPLAN_CALL_ORDER_H
