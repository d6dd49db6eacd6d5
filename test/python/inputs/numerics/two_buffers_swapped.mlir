// WRONG rewrite of two_buffers.mlir: the final loop reads %t1 where it read %t0 and vice versa.
#id = affine_map<(d0) -> (d0)>
func.func @main(%in: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %t0 = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  %t1 = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%in : memref<16xf32>) outs(%t0 : memref<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %x, %two : f32
    linalg.yield %r : f32
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %in[%i] : memref<16xf32>
    %r = arith.addf %x, %one : f32
    memref.store %r, %t1[%i] : memref<16xf32>
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %t1[%i] : memref<16xf32>
    %y = memref.load %t0[%i] : memref<16xf32>
    %r = arith.subf %x, %y : f32
    memref.store %r, %out[%i] : memref<16xf32>
  }
  memref.dealloc %t0 : memref<16xf32>
  memref.dealloc %t1 : memref<16xf32>
  return
}
