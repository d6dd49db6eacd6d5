irdl.dialect @cmath {
  irdl.operation @norm {
    %0 = irdl.is f32
    irdl.operands(x: %0)
    irdl.results(y: %0)
  }
}
