//===- EditStep.h - The kinds of an edit's steps ----------------*- C++ -*-===//
//
// The steps both one-call edits state their new IR with: a pool's `index`
// arithmetic (memplan/Reuse/PoolEdit.h) and a module's transient rewrite
// (memplan/Transients/TransientEdit.h), created by one interpreter
// (memplan/Reuse/EditSteps.h). Plain C++: the bindings include it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_REUSE_EDITSTEP_H
#define MEMPLAN_REUSE_EDITSTEP_H

#include <cstdint>

namespace memplan {

/// What one step of an edit's program makes (EditSteps.def).
enum class EditStep : int32_t {
#define MEMPLAN_EDIT_STEP(Name, Py, Doc) Name,
#include "memplan/Reuse/EditSteps.def"
};

} // namespace memplan

#endif // MEMPLAN_REUSE_EDITSTEP_H
