func.func @f() {
  // expected-error @+1 {{nope}}
  return
}
