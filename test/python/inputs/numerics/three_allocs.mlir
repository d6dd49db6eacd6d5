// Three heap buffers of 64, 128 and 256 bytes.  @sequential frees each one
// before allocating the next (peak 256 B); @nested keeps all three live
// (peak 448 B).  The alignment attribute must not change the byte counts.
func.func @sequential(%out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<16xf32>
  memref.store %z, %a[%c0] : memref<16xf32>
  memref.dealloc %a : memref<16xf32>
  %b = memref.alloc() {alignment = 128 : i64} : memref<32xf32>
  memref.store %z, %b[%c0] : memref<32xf32>
  memref.dealloc %b : memref<32xf32>
  %c = memref.alloc() : memref<8x8xf32>
  memref.store %z, %c[%c0, %c0] : memref<8x8xf32>
  %v = memref.load %c[%c0, %c0] : memref<8x8xf32>
  memref.store %v, %out[] : memref<f32>
  memref.dealloc %c : memref<8x8xf32>
  return
}
func.func @nested(%out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() {alignment = 128 : i64} : memref<32xf32>
  %c = memref.alloc() : memref<8x8xf32>
  memref.store %z, %c[%c0, %c0] : memref<8x8xf32>
  %v = memref.load %c[%c0, %c0] : memref<8x8xf32>
  memref.store %v, %out[] : memref<f32>
  memref.dealloc %c : memref<8x8xf32>
  memref.dealloc %b : memref<32xf32>
  memref.dealloc %a : memref<16xf32>
  return
}
