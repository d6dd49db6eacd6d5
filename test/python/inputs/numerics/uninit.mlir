// Reads a heap buffer it never wrote.
func.func @main(%out: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  memref.copy %t, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %t : memref<8xf32>
  return
}
