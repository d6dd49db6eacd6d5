//===- UnknownLocExpectations.cpp - expected-* @unknown lines -------------===//

#include "UnknownLocExpectations.h"

#include "mlir/IR/Location.h"

#include "llvm/ADT/SmallVector.h"

using namespace mlir;

namespace memplan {
namespace {

/// The expected-* syntax MLIR's verifier reads.
const char *const kExpectedSyntax = "expected-(error|note|remark|warning)(-re)? "
                                    "*(@([+-][0-9]+|above|below|unknown))? *\\{\\{(.*)\\}\\}$";

/// An `-re` expectation as a regex: `{{...}}` parts are regexes, the rest is
/// literal. Nothing when it does not form a valid regex (the verifier, which
/// then keeps the line, reports it).
std::optional<llvm::Regex> expectationRegex(llvm::StringRef text) {
  std::string pattern;
  while (!text.empty()) {
    size_t open = text.find("{{");
    if (open == llvm::StringRef::npos) {
      pattern += llvm::Regex::escape(text);
      break;
    }
    pattern += llvm::Regex::escape(text.take_front(open));
    text = text.drop_front(open + 2);
    size_t close = text.find("}}");
    if (close == llvm::StringRef::npos)
      return std::nullopt;
    pattern += "(" + text.take_front(close).str() + ")";
    text = text.drop_front(close + 2);
  }
  llvm::Regex regex(pattern);
  std::string error;
  if (!regex.isValid(error))
    return std::nullopt;
  return regex;
}

DiagnosticSeverity severityNamed(llvm::StringRef name) {
  if (name == "error")
    return DiagnosticSeverity::Error;
  if (name == "warning")
    return DiagnosticSeverity::Warning;
  if (name == "remark")
    return DiagnosticSeverity::Remark;
  return DiagnosticSeverity::Note;
}

llvm::StringRef severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Remark:
    return "remark";
  case DiagnosticSeverity::Note:
    return "note";
  }
  return "error";
}

} // namespace

std::optional<std::string> UnknownLocExpectations::extract(llvm::StringRef text) {
  llvm::Regex syntax(kExpectedSyntax);
  std::string hidden = text.str();
  llvm::SmallVector<llvm::StringRef, 100> lines;
  text.split(lines, '\n');
  bool found = false;
  for (llvm::StringRef line : lines) {
    llvm::SmallVector<llvm::StringRef, 6> parts;
    if (!syntax.match(line.rtrim(), &parts) || parts[4] != "unknown")
      continue;
    Expectation expectation{severityNamed(parts[1]), parts[5].str(), std::nullopt};
    if (!parts[2].empty()) {
      expectation.regex = expectationRegex(parts[5]);
      if (!expectation.regex)
        continue;
    }
    expectations.push_back(std::move(expectation));
    // `expected_` is no expectation to the verifier.
    hidden[parts[0].data() - text.data() + llvm::StringRef("expected").size()] = '_';
    found = true;
  }
  if (!found)
    return std::nullopt;
  return hidden;
}

LogicalResult UnknownLocExpectations::match(Diagnostic &diag) {
  if (diag.getLocation()->findInstanceOf<FileLineColLoc>())
    return failure();
  std::string message = diag.str();
  for (Expectation &expectation : expectations) {
    if (expectation.met || expectation.severity != diag.getSeverity())
      continue;
    bool matches = expectation.regex ? expectation.regex->match(message)
                                     : llvm::StringRef(message).contains(expectation.text);
    if (matches) {
      expectation.met = true;
      return success();
    }
  }
  return failure();
}

bool UnknownLocExpectations::report(llvm::raw_ostream &os) const {
  bool allMet = true;
  for (const Expectation &expectation : expectations) {
    if (expectation.met)
      continue;
    os << "error: expected " << severityName(expectation.severity) << " \"" << expectation.text
       << "\" was not produced\n";
    allMet = false;
  }
  return allMet;
}

} // namespace memplan
