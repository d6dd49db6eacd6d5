func.func @g() -> tensor<4xf32> {
  %0 = "test.op"() : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
