// Scalar arguments and several scalar results.
func.func @main(%x: f32, %y: f64, %n: index, %i: i32) -> (f32, f64, index, i32, i1) {
  %c3 = arith.constant 3 : index
  %nn = arith.muli %n, %c3 : index
  %xf = arith.extf %x : f32 to f64
  %s = arith.addf %xf, %y : f64
  %t = arith.truncf %s : f64 to f32
  %j = arith.muli %i, %i : i32
  %b = arith.cmpf olt, %x, %t : f32
  return %t, %s, %nn, %j, %b : f32, f64, index, i32, i1
}
func.func @one(%x: f32) -> f32 {
  %m = arith.mulf %x, %x : f32
  return %m : f32
}
