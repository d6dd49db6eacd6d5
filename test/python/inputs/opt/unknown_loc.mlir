// expected-error @unknown {{does not refer to a registered pass}}
func.func @f() {
  // expected-error @+1 {{nope}}
  return
}
