// expected-error-re @unknown {{does not {{re.*}} pass}}
func.func @f() {
  return
}
