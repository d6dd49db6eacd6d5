func.func @r() -> tensor<2xi32> {
  %0 = arith.constant dense_resource<blob1> : tensor<2xi32>
  return %0 : tensor<2xi32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}
