// RUN: memplan-opt --list-passes | FileCheck %s
// RUN: memplan-opt --version | FileCheck %s --check-prefix=VERSION

// memplan's passes are listed with upstream's, as flags.
// CHECK-DAG: --memplan-test-print-graph {{.*}}-   Print the compact graph
// CHECK-DAG: --one-shot-bufferize {{.*}}-   One-Shot Bufferize
// VERSION: memplan {{[0-9]+\.[0-9]+\.[0-9]+}}
// VERSION: MLIR Python bindings 22.
// VERSION: LLVM version 22.
