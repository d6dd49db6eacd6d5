func.func @f() {
  return
