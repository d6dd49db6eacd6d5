// Ops memplan's op-name tables never listed, for test_interface_engine.py:
// the interface engine asks their BufferizableOpInterface models.
func.func @pad(%t: tensor<4xf32>, %f: f32) -> (tensor<8xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %p = tensor.pad %t low[2] high[2] {
  ^bb0(%i: index):
    tensor.yield %f : f32
  } : tensor<4xf32> to tensor<8xf32>
  %w = tensor.insert %f into %t[%c0] : tensor<4xf32>
  return %p, %w : tensor<8xf32>, tensor<4xf32>
}
// -----
func.func @concat(%a: tensor<4xf32>, %b: tensor<4xf32>, %f: f32) -> (tensor<8xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %r = tensor.concat dim(0) %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  %w = tensor.insert %f into %a[%c0] : tensor<4xf32>
  return %r, %w : tensor<8xf32>, tensor<4xf32>
}
// -----
func.func @pack(%src: tensor<8x8xf32>, %dest: tensor<2x2x4x4xf32>, %i: index) -> (tensor<2x2x4x4xf32>, f32) {
  %p = linalg.pack %src inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %dest : tensor<8x8xf32> -> tensor<2x2x4x4xf32>
  %e = tensor.extract %dest[%i, %i, %i, %i] : tensor<2x2x4x4xf32>
  return %p, %e : tensor<2x2x4x4xf32>, f32
}
// -----
func.func @unpack(%src: tensor<2x2x4x4xf32>, %dest: tensor<8x8xf32>, %f: f32, %i: index) -> (tensor<8x8xf32>, tensor<2x2x4x4xf32>) {
  %u = linalg.unpack %src inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %dest : tensor<2x2x4x4xf32> -> tensor<8x8xf32>
  %w = tensor.insert %f into %src[%i, %i, %i, %i] : tensor<2x2x4x4xf32>
  return %u, %w : tensor<8x8xf32>, tensor<2x2x4x4xf32>
}
// -----
func.func @assuming(%w: !shape.witness, %t: tensor<4xf32>, %f: f32) -> (tensor<4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %r = shape.assuming %w -> (tensor<4xf32>) {
    %i = tensor.insert %f into %t[%c0] : tensor<4xf32>
    shape.assuming_yield %i : tensor<4xf32>
  }
  %e = tensor.extract %t[%c0] : tensor<4xf32>
  return %r, %e : tensor<4xf32>, f32
}
// -----
func.func @execute_region(%t: tensor<4xf32>, %c: i1, %f: f32) -> (tensor<4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %r = scf.execute_region -> tensor<4xf32> {
    cf.cond_br %c, ^bb1, ^bb2(%t : tensor<4xf32>)
  ^bb1:
    %i = tensor.insert %f into %t[%c0] : tensor<4xf32>
    cf.br ^bb2(%i : tensor<4xf32>)
  ^bb2(%a: tensor<4xf32>):
    scf.yield %a : tensor<4xf32>
  }
  %e = tensor.extract %t[%c0] : tensor<4xf32>
  return %r, %e : tensor<4xf32>, f32
}
// -----
func.func @execute_region_inplace(%t: tensor<4xf32>, %c: i1, %f: f32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %r = scf.execute_region -> tensor<4xf32> {
    cf.cond_br %c, ^bb1, ^bb2(%t : tensor<4xf32>)
  ^bb1:
    %i = tensor.insert %f into %t[%c0] : tensor<4xf32>
    cf.br ^bb2(%i : tensor<4xf32>)
  ^bb2(%a: tensor<4xf32>):
    %j = tensor.insert %f into %a[%c0] : tensor<4xf32>
    scf.yield %j : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
