//===- CoreModule.cpp - The memplan._core extension module ----------------===//

#include "memplan/Bindings/Bindings.h"

NB_MODULE(_core, m) {
  m.doc() = "memplan C++ core: IR graph extraction and memory-planning kernels";
  memplan::registerGraphBindings(m);
  memplan::registerNumericsBindings(m);
  memplan::registerHeapBindings(m);
  memplan::registerAllocsToViewsBindings(m);
  memplan::registerDeallocationBindings(m);
  memplan::registerPackingBindings(m);
  memplan::registerLifetimesBindings(m);
  memplan::registerRegistryBindings(m);
  memplan::registerInplaceBindings(m);
  memplan::registerOptBindings(m);
  memplan::registerTransformsBindings(m);
}
