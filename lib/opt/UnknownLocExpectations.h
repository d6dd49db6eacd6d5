//===- UnknownLocExpectations.h - expected-* @unknown lines ------*- C++ -*-===//
//
// `// expected-error @unknown {{...}}` expects a diagnostic without a file
// location. MLIR 22's SourceMgrDiagnosticVerifierHandler aborts (an assertion
// on an invalid source location) when it reports such an expectation as not
// produced, and mlir-opt reports every expectation of the input that way even
// without --verify-diagnostics. memplan-opt hides these lines from MLIR's
// verifier and checks them here; an unmet one is reported as later upstream
// versions do ("error: expected ... was not produced", no source line).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_OPT_UNKNOWNLOCEXPECTATIONS_H
#define MEMPLAN_LIB_OPT_UNKNOWNLOCEXPECTATIONS_H

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace memplan {

class UnknownLocExpectations {
public:
  /// Collects the `@unknown` expectations of `text`; returns `text` with
  /// their lines hidden from MLIR's verifier (same length, same lines), or
  /// nothing when there is none.
  std::optional<std::string> extract(llvm::StringRef text);

  /// Takes a diagnostic without a file location that an expectation waits
  /// for (success); anything else is left to the verifier (failure).
  mlir::LogicalResult match(mlir::Diagnostic &diag);

  /// Reports each expectation not met on `os`; returns whether all were.
  bool report(llvm::raw_ostream &os) const;

private:
  struct Expectation {
    mlir::DiagnosticSeverity severity;
    std::string text;
    std::optional<llvm::Regex> regex;
    bool met = false;
  };
  std::vector<Expectation> expectations;
};

} // namespace memplan

#endif // MEMPLAN_LIB_OPT_UNKNOWNLOCEXPECTATIONS_H
