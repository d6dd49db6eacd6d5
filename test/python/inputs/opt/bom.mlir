func.func @f() {
  %x = foo
}
