//===- TestAnnotations.cpp - One-Shot Analysis' test annotations ----------===//

#include "TestAnnotations.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace memplan {

void annotateInPlaceOperands(Operation *scope,
                             const OneShotAnalysisState &state) {
  constexpr StringLiteral kName = "__inplace_operands_attr__";
  Builder b(scope->getContext());
  // The three marks, uniqued once.
  Attribute none = b.getStringAttr("none"), inPlace = b.getStringAttr("true"),
            outOfPlace = b.getStringAttr("false");
  SmallVector<Attribute> marks;
  scope->walk([&](Operation *op) {
    bool any = false;
    if (auto old = op->getAttrOfType<ArrayAttr>(kName)) {
      marks.assign(old.begin(), old.end());
    } else {
      marks.assign(op->getNumOperands(), none);
      for (OpOperand &operand : op->getOpOperands())
        if (isa<TensorType>(operand.get().getType()))
          marks[operand.getOperandNumber()] = outOfPlace;
    }
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<TensorType>(operand.get().getType()))
        continue;
      marks[operand.getOperandNumber()] =
          state.isInPlace(operand) ? inPlace : outOfPlace;
      any = true;
    }
    if (any)
      op->setAttr(kName, b.getArrayAttr(marks));
  });
}

void annotateAliasSets(Operation *scope, const OneShotAnalysisState &state) {
  AsmState asmState(scope);
  Builder b(scope->getContext());
  auto aliases = [&](Value v) {
    SmallVector<Attribute> names;
    state.applyOnAliases(v, [&](Value alias) {
      std::string buffer;
      llvm::raw_string_ostream stream(buffer);
      alias.printAsOperand(stream, asmState);
      names.push_back(b.getStringAttr(stream.str()));
    });
    return b.getArrayAttr(names);
  };
  scope->walk([&](Operation *op) {
    SmallVector<Attribute> resultSets;
    for (OpResult result : op->getOpResults())
      if (isa<TensorType>(result.getType()))
        resultSets.push_back(aliases(result));
    if (!resultSets.empty())
      op->setAttr("__opresult_alias_set_attr__", b.getArrayAttr(resultSets));
    SmallVector<Attribute> regionSets;
    bool hasTensorArg = false;
    for (Region &r : op->getRegions()) {
      SmallVector<Attribute> blockSets;
      for (Block &block : r) {
        SmallVector<Attribute> argSets;
        for (BlockArgument arg : block.getArguments())
          if (isa<TensorType>(arg.getType())) {
            argSets.push_back(aliases(arg));
            hasTensorArg = true;
          }
        blockSets.push_back(b.getArrayAttr(argSets));
      }
      regionSets.push_back(b.getArrayAttr(blockSets));
    }
    if (hasTensorArg)
      op->setAttr("__bbarg_alias_set_attr__", b.getArrayAttr(regionSets));
  });
}

} // namespace memplan
