// relu(x) * 2 exported by torch-mlir 20261001 with output_type="torch": the torch dialect.
module {
  func.func @main(%arg0: !torch.vtensor<[3,8],f32>) -> !torch.vtensor<[3,8],f32> {
    %int2 = torch.constant.int 2
    %0 = torch.aten.relu %arg0 : !torch.vtensor<[3,8],f32> -> !torch.vtensor<[3,8],f32>
    %1 = torch.aten.mul.Scalar %0, %int2 : !torch.vtensor<[3,8],f32>, !torch.int -> !torch.vtensor<[3,8],f32>
    return %1 : !torch.vtensor<[3,8],f32>
  }
}

