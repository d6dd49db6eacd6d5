// Input of ../deallocation.mlir (lit excludes inputs/): IR that frees a
// buffer already and needs upstream's deallocation for another (passed to a
// call): upstream's pass would reject the existing free, so memplan reports
// it where it is and leaves the IR alone.
func.func private @use(memref<16xf32>)
func.func @deallocated_already(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  memref.copy %x, %t : memref<16xf32> to memref<16xf32>
  // expected-error @+1 {{memplan-buffer-deallocation: the module frees buffers already, and upstream's ownership-based deallocation (needed here for an allocation memplan does not free (escapes-call)) rejects that; run the pass right after bufferization}}
  memref.dealloc %t : memref<16xf32>
  %p = memref.alloc() : memref<16xf32>
  func.call @use(%p) : (memref<16xf32>) -> ()
  return
}
