func.func @f() {
  // expected-error-re @+1 {{ret{{urn}}
  return
}
