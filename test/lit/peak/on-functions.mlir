// RUN: memplan-opt %s --pass-pipeline='builtin.module(func.func(memplan-split-destinations,memplan-recompute-cheap-values,memplan-fold-transposes))' | FileCheck %s
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-split-destinations,memplan-recompute-cheap-values,memplan-fold-transposes)' > %t.module.mlir
// RUN: memplan-opt %s --pass-pipeline='builtin.module(func.func(memplan-split-destinations,memplan-recompute-cheap-values,memplan-fold-transposes))' | diff %t.module.mlir -
// RUN: memplan-opt %s --pass-pipeline='builtin.module(func.func(memplan-split-destinations))' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(func.func(scf.for(memplan-split-destinations)))' 2>&1 | FileCheck %s --check-prefix=NESTED

// memplan-split-destinations, memplan-recompute-cheap-values and
// memplan-fold-transposes are passes on functions, like upstream's function
// passes: nested in func.func, the pass manager runs them once per function
// (on its threads), with the same output as on the whole module (the diff
// above). Their statistics are summed over the functions.

// Each function shares one tensor.empty between two writers; each writer
// gets its own, in both functions.

// CHECK-LABEL: func @first
//       CHECK:   %[[E1:.*]] = tensor.empty() : tensor<16xf32>
//  CHECK-NEXT:   linalg.add {{.*}} outs(%[[E1]] : tensor<16xf32>)
//  CHECK-NEXT:   %[[E2:.*]] = tensor.empty() : tensor<16xf32>
//  CHECK-NEXT:   linalg.mul {{.*}} outs(%[[E2]] : tensor<16xf32>)
func.func @first(%a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %x = linalg.add ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %y = linalg.mul ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %x, %y : tensor<16xf32>, tensor<16xf32>
}

// CHECK-LABEL: func @second
//       CHECK:   %[[E1:.*]] = tensor.empty() : tensor<32xf32>
//  CHECK-NEXT:   linalg.sub {{.*}} outs(%[[E1]] : tensor<32xf32>)
//  CHECK-NEXT:   %[[E2:.*]] = tensor.empty() : tensor<32xf32>
//  CHECK-NEXT:   linalg.div {{.*}} outs(%[[E2]] : tensor<32xf32>)
func.func @second(%a: tensor<32xf32>, %b: tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %e = tensor.empty() : tensor<32xf32>
  %x = linalg.sub ins(%a, %b : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %y = linalg.div ins(%a, %b : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  return %x, %y : tensor<32xf32>, tensor<32xf32>
}

// A loop for the pass manager to refuse: a pass on functions runs on a
// module or a function, nothing else.
func.func @loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
  }
  return
}

// Two writers given a destination of their own in each of two functions.
// STATS:      'func.func' Pipeline
// STATS-NEXT:   MemplanSplitDestinationsPass
// STATS:          (S) 4 split-destinations

// NESTED: error: unable to schedule pass 'MemplanSplitDestinationsPass' on a PassManager intended to run on 'scf.for'!
