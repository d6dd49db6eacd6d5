//===- HeapAllocation.cpp - Where an op allocates a result ----------------===//
//
// See include/memplan/Deallocation/HeapAllocation.h.
//
//===----------------------------------------------------------------------===//

#include "memplan/Deallocation/HeapAllocation.h"

using namespace mlir;

namespace memplan {

ResultAllocation allocationOf(ArrayRef<MemoryEffects::EffectInstance> effects,
                              Value r) {
  ResultAllocation where = ResultAllocation::None;
  for (const MemoryEffects::EffectInstance &e : effects)
    if (isa<MemoryEffects::Allocate>(e.getEffect()) && e.getValue() == r)
      where =
          isa<SideEffects::AutomaticAllocationScopeResource>(e.getResource())
              ? ResultAllocation::Stack
              : ResultAllocation::Heap;
  return where;
}

ResultAllocation allocationOf(Operation *op, Value r) {
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return ResultAllocation::None;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return allocationOf(effects, r);
}

} // namespace memplan
