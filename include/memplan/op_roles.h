//===- op_roles.h - Moved to memplan/analysis/OpRoles.h ---------*- C++ -*-===//
//
// Transitional: the header is memplan/analysis/OpRoles.h. This path stays only
// for the files that issue #20's IR-walk work is rewriting (lib/extract*.cpp,
// lib/graph*.cpp, lib/pool_views.cpp, memplan/graph.h) and the packer's
// bindings; delete it once they include the new path.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_OP_ROLES_H
#define MEMPLAN_OP_ROLES_H

#include "memplan/analysis/OpRoles.h"

#endif // MEMPLAN_OP_ROLES_H
