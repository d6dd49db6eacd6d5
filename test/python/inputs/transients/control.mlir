// Dynamic sizes, an scf.if with buffers in both branches, and a loop whose
// body allocation depends on the induction variable (over-allocated).
func.func @entry(%x: memref<?xf32>, %cond: i1, %out: memref<?xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %acc = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %acc : memref<?xf32> to memref<?xf32>
  scf.if %cond {
    %t = memref.alloc(%n) : memref<?xf32>
    linalg.map ins(%acc : memref<?xf32>) outs(%t : memref<?xf32>)
      (%v: f32, %o: f32) { %d = arith.addf %v, %v : f32
        linalg.yield %d : f32 }
    memref.copy %t, %acc : memref<?xf32> to memref<?xf32>
    memref.dealloc %t : memref<?xf32>
  } else {
    %s = memref.alloc() : memref<32xf32>
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%s : memref<32xf32>)
    %v = memref.load %s[%c0] : memref<32xf32>
    memref.store %v, %acc[%c0] : memref<?xf32>
    memref.dealloc %s : memref<32xf32>
  }
  scf.for %i = %c1 to %n step %c1 {
    %w = memref.alloc(%i) : memref<?xf32>
    %prev = arith.subi %i, %c1 : index
    %a = memref.load %acc[%prev] : memref<?xf32>
    %c0w = arith.constant 0 : index
    memref.store %a, %w[%c0w] : memref<?xf32>
    %b = memref.load %w[%c0w] : memref<?xf32>
    %old = memref.load %acc[%i] : memref<?xf32>
    %sum = arith.addf %old, %b : f32
    memref.store %sum, %acc[%i] : memref<?xf32>
    memref.dealloc %w : memref<?xf32>
  }
  memref.copy %acc, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %acc : memref<?xf32>
  return
}
