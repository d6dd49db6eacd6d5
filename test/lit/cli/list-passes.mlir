// RUN: memplan-opt --list-passes | FileCheck %s
// RUN: memplan-opt --version | FileCheck %s --check-prefix=VERSION

// CHECK: memplan-test-print-graph  -  Print the compact graph
// CHECK-NEXT: stream=<stdout|stderr>  -  where to print (default: stdout)
// VERSION: memplan {{[0-9]+\.[0-9]+\.[0-9]+}}
// VERSION: MLIR Python bindings 22.
