func.func @callee(%t: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %r = tensor.insert %f into %t[%c0] : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @caller(%t: tensor<4xf32>) -> tensor<4xf32> {
  %r = func.call @callee(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
