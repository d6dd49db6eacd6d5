//===- bindings.h - Moved to memplan/bindings/Bindings.h --------*- C++ -*-===//
//
// Transitional: the header is memplan/bindings/Bindings.h. This path stays only
// for the packer's bindings; delete it once they include the new path.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_BINDINGS_H
#define MEMPLAN_BINDINGS_H

#include "memplan/bindings/Bindings.h"

#endif // MEMPLAN_BINDINGS_H
