//===- ToolParsing.cpp - Parsing and diagnostics as MLIR's tools do -------===//

#include "memplan/Tools/Opt.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/ParseUtilities.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace memplan {

MlirOperation parseModuleForTool(MlirContext context, const std::string &text,
                                 const std::string &name,
                                 std::string &diagnostics) {
  MLIRContext *ctx = unwrap(context);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
  llvm::raw_string_ostream os(diagnostics);
  SourceMgrDiagnosticHandler handler(*sourceMgr, ctx, os);
  ParserConfig config(ctx);
  OwningOpRef<Operation *> op = parseSourceFileForTool(sourceMgr, config, true);
  os.flush();
  return wrap(op.release());
}

void emitDiagnostic(
    MlirLocation location, int severity, const std::string &message,
    const std::vector<std::pair<MlirLocation, std::string>> &notes) {
  Location loc = unwrap(location);
  InFlightDiagnostic diag = severity == 0   ? emitError(loc)
                            : severity == 1 ? emitWarning(loc)
                                            : emitRemark(loc);
  diag << message;
  for (const auto &[noteLoc, note] : notes)
    diag.attachNote(unwrap(noteLoc)) << note;
}

} // namespace memplan
