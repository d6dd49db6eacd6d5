// expected-remark @below {{never}}
func.func @a() {
  // expected-error @+1 {{nope}}
  return
}

// -----

// expected-warning @+2 {{nowhere}}
func.func @b() {
  %0 = arith.constant 1 : i32
  // expected-note @above {{near}}
  return %0 : i32
}

// -----

func.func @c() {
  // expected-error-re @+1 {{re{{t.*}}n}}
  return
}
