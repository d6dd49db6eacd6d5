// memref.view into an i8 arena, memref.alloca, scf.if / scf.while, cf.assert.
// out[i] = (in[i] > 0 ? in[i] : -in[i]) * 2^k, k = number of halvings of n
// until it drops below 1 (computed with scf.while).
func.func @main(%in: memref<?xf32>, %out: memref<?xf32>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %len = memref.dim %in, %c0 : memref<?xf32>
  %olen = memref.dim %out, %c0 : memref<?xf32>
  %same = arith.cmpi eq, %len, %olen : index
  cf.assert %same, "in and out must have the same length"
  %bytes = arith.muli %len, %c1 : index
  %c4 = arith.constant 4 : index
  %nbytes = arith.muli %len, %c4 : index
  %arena = memref.alloc(%nbytes) : memref<?xi8>
  %tmp = memref.view %arena[%c0][%len] : memref<?xi8> to memref<?xf32>
  %k:2 = scf.while (%m = %n, %cnt = %c0) : (index, index) -> (index, index) {
    %go = arith.cmpi uge, %m, %c1 : index
    scf.condition(%go) %m, %cnt : index, index
  } do {
  ^bb0(%m: index, %cnt: index):
    %h = arith.shrui %m, %c1 : index
    %c = arith.addi %cnt, %c1 : index
    scf.yield %h, %c : index, index
  }
  %scale = memref.alloca() : memref<f32>
  memref.store %two, %scale[] : memref<f32>
  scf.for %i = %c0 to %len step %c1 {
    %x = memref.load %in[%i] : memref<?xf32>
    %pos = arith.cmpf ogt, %x, %zero : f32
    %a = scf.if %pos -> f32 {
      scf.yield %x : f32
    } else {
      %nx = arith.negf %x : f32
      scf.yield %nx : f32
    }
    memref.store %a, %tmp[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %len step %c1 {
    %a = memref.load %tmp[%i] : memref<?xf32>
    %r = scf.for %j = %c0 to %k#1 step %c1 iter_args(%acc = %a) -> f32 {
      %s = memref.load %scale[] : memref<f32>
      %m = arith.mulf %acc, %s : f32
      scf.yield %m : f32
    }
    memref.store %r, %out[%i] : memref<?xf32>
  }
  memref.dealloc %arena : memref<?xi8>
  return %k#1 : index
}
