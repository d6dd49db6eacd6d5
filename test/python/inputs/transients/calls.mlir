func.func private @leaf(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %t = memref.alloc(%n) : memref<?xf32>
  linalg.map ins(%x : memref<?xf32>) outs(%t : memref<?xf32>)
    (%v: f32, %o: f32) { %d = arith.addf %v, %v : f32
      linalg.yield %d : f32 }
  linalg.map ins(%t, %x : memref<?xf32>, memref<?xf32>) outs(%out : memref<?xf32>)
    (%a: f32, %b: f32, %o: f32) { %m = arith.mulf %a, %b : f32
      linalg.yield %m : f32 }
  memref.dealloc %t : memref<?xf32>
  return
}
func.func @entry(%x: memref<?xf32>, %out: memref<?xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %b = memref.alloc(%n) : memref<?xf32>
  call @leaf(%x, %b) : (memref<?xf32>, memref<?xf32>) -> ()
  %s = memref.alloc() : memref<16xf32>
  linalg.map ins(%b, %x : memref<?xf32>, memref<?xf32>) outs(%out : memref<?xf32>)
    (%a: f32, %c: f32, %o: f32) { %m = arith.addf %a, %c : f32
      linalg.yield %m : f32 }
  memref.dealloc %s : memref<16xf32>
  memref.dealloc %b : memref<?xf32>
  return
}
