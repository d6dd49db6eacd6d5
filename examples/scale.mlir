// The README's external-transients example: a public function with a
// caller-provided storage argument and one transient allocation.
func.func @scale(%x: memref<?xf32>, %out: memref<?xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %tmp = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %tmp : memref<?xf32> to memref<?xf32>
  memref.copy %tmp, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %tmp : memref<?xf32>
  return
}
