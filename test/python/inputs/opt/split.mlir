func.func @a() {
  return
}

// -----

func.func @b() {
  %0 = arith.constant 1 : i32
  return %0 : i32
}
// -----
// near
// ----
func.func @c() {
  return
}
