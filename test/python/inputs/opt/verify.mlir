func.func @f() {
  // expected-error@+1 {{has 1 operands}}
  %0 = arith.constant 1 : i32
  return %0 : i32
}
