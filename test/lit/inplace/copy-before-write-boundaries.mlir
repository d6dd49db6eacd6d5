// RUN: memplan-opt %s -split-input-file -verify-diagnostics -memplan-one-shot-bufferize="bufferize-function-boundaries copy-before-write" | FileCheck %s

// copy-before-write with function boundaries skips the analysis, and
// upstream's call interface then reads a One-Shot analysis state that does not
// exist (llvm-project issue 163052): a call that passes a tensor to a function
// without a body dereferences garbage. memplan reports it at the call instead
// of running into it.

func.func private @external(tensor<16xf32>)

func.func @pass_to_external(%t: tensor<16xf32>) {
  // expected-error @below {{memplan-one-shot-bufferize: copy-before-write with bufferize-function-boundaries does not support calls with tensor operands}}
  call @external(%t) : (tensor<16xf32>) -> ()
  return
}

// -----

// The same through a local buffer and inside a region.

func.func private @external_read(tensor<4xf32>) -> f32

func.func @pass_local_in_if(%c: i1) -> f32 {
  %t = bufferization.alloc_tensor() : tensor<4xf32>
  %r = scf.if %c -> f32 {
    // expected-error @below {{memplan-one-shot-bufferize: copy-before-write with bufferize-function-boundaries does not support calls with tensor operands}}
    %x = func.call @external_read(%t) : (tensor<4xf32>) -> f32
    scf.yield %x : f32
  } else {
    %z = arith.constant 0.0 : f32
    scf.yield %z : f32
  }
  return %r : f32
}

// -----

// A call that only returns a tensor has no tensor operand to ask about: it
// bufferizes, with a copy before the write into the returned buffer.

func.func private @make() -> tensor<8xf32>

// CHECK-LABEL: func.func @result_only
//       CHECK:   %[[M:.*]] = call @make() : () -> memref<8xf32, strided<[?], offset: ?>>
//       CHECK:   %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
//       CHECK:   memref.copy %[[M]], %[[A]]
//       CHECK:   memref.store %{{.*}}, %[[A]]
func.func @result_only(%f: f32, %i: index) -> tensor<8xf32> {
  %t = call @make() : () -> tensor<8xf32>
  %w = tensor.insert %f into %t[%i] : tensor<8xf32>
  return %w : tensor<8xf32>
}

// -----

// A function that ends in another terminator than func.return cannot be
// bufferized at its boundary. Without copy-before-write upstream reports it;
// with it, upstream asserts (MLIR 22.1.8). memplan reports it in both modes.

module {
  // expected-error @below {{cannot bufferize func.func without func.return}}
  func.func private @other_terminator(%m: memref<4xi32>) {
    spirv.Return
  }
}
