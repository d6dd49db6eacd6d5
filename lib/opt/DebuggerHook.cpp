//===- DebuggerHook.cpp - mlir-opt's debugger hook on actions -------------===//

#include "DebuggerHook.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>

using namespace mlir;
namespace cl = llvm::cl;

namespace memplan {
namespace {

/// What the debugger asks for once an action stopped: MLIR's
/// ExecutionContext::Control, with its values.
enum class Control { Apply = 1, Skip = 2, Step = 3, Next = 4, Finish = 5 };

/// A breakpoint on an action tag or on a `file:line:col` location in the
/// action's IR units (line or column -1: any).
struct Breakpoint {
  std::string tagOrFile;
  bool isTag = true;
  int64_t line = -1;
  int64_t column = -1;
  bool enabled = true;

  void print(llvm::raw_ostream &os) const {
    if (isTag)
      os << "Tag: `" << tagOrFile << '`';
    else
      os << "Location: " << tagOrFile << ':' << line << ':' << column;
  }
};

/// An action being run, and those it runs in: MLIR's ActionActiveStack.
struct ActionFrame {
  const ActionFrame *parent;
  const tracing::Action &action;
  int depth;
};

/// What the debugger sees and sets, per thread as in MLIR.
struct DebuggerState {
  Control control = Control::Apply;
  llvm::StringMap<std::unique_ptr<Breakpoint>> tagBreakpoints;
  std::map<std::tuple<std::string, int64_t, int64_t>, std::unique_ptr<Breakpoint>>
      locationBreakpoints;
  /// The action the debugger looks at, none between actions.
  const ActionFrame *frame = nullptr;
  /// The IR unit the debugger navigates to.
  IRUnit cursor;
};

DebuggerState &debuggerState() {
  static thread_local DebuggerState state;
  return state;
}

/// The actions running on this thread.
thread_local const ActionFrame *runningFrame = nullptr;

cl::opt<bool> &enableFlag() {
  static cl::opt<bool> *flag =
      new cl::opt<bool>("mlir-enable-debugger-hook",
                        cl::desc("Enable Debugger hook for debugging MLIR Actions"));
  return *flag;
}

/// The enabled location breakpoint on `file:line:col`, `file:line` or
/// `file`, in that order.
Breakpoint *matchLocation(Location loc) {
  DebuggerState &state = debuggerState();
  Breakpoint *found = nullptr;
  loc->walk([&](Location inner) {
    auto fileLoc = dyn_cast<FileLineColLoc>(inner);
    if (!fileLoc)
      return WalkResult::advance();
    std::string file = fileLoc.getFilename().str();
    int64_t line = fileLoc.getLine(), column = fileLoc.getColumn();
    for (auto key : {std::make_tuple(file, line, column), std::make_tuple(file, line, int64_t(-1)),
                     std::make_tuple(file, int64_t(-1), int64_t(-1))}) {
      auto it = state.locationBreakpoints.find(key);
      if (it != state.locationBreakpoints.end() && it->second->enabled) {
        found = it->second.get();
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return found;
}

/// The breakpoint `action` stops on: a location one first, as MLIR matches.
Breakpoint *matchBreakpoint(const tracing::Action &action) {
  DebuggerState &state = debuggerState();
  for (const IRUnit &unit : action.getContextIRUnits()) {
    if (auto *op = llvm::dyn_cast_if_present<Operation *>(unit)) {
      if (Breakpoint *found = matchLocation(op->getLoc()))
        return found;
    } else if (auto *block = llvm::dyn_cast_if_present<Block *>(unit)) {
      for (Operation &op : *block)
        if (Breakpoint *found = matchLocation(op.getLoc()))
          return found;
    } else if (auto *region = llvm::dyn_cast_if_present<Region *>(unit)) {
      if (Breakpoint *found = matchLocation(region->getLoc()))
        return found;
    }
  }
  auto it = state.tagBreakpoints.find(action.getTag());
  if (it != state.tagBreakpoints.end() && it->second->enabled)
    return it->second.get();
  return nullptr;
}

void printNoCursor() {
  llvm::outs() << "No active MLIR cursor, select from the context first\n";
}

/// For a cursor on a value (no parent, child or sibling to move to).
void printNotUnit() { llvm::outs() << "Current cursor is not a valid IRUnit"; }

/// Moves the cursor to `unit` and prints it, as every cursor move does.
void moveCursor(IRUnit unit) {
  DebuggerState &state = debuggerState();
  state.cursor = unit;
  printIRUnit(llvm::outs(), state.cursor);
  llvm::outs() << "\n";
}

} // namespace
} // namespace memplan

using memplan::Breakpoint;
using memplan::debuggerState;
using memplan::DebuggerState;

#define MEMPLAN_DEBUGGER_API extern "C" __attribute__((visibility("default"), used))

/// The debugger's answer once an action stopped (a Control value).
MEMPLAN_DEBUGGER_API void mlirDebuggerSetControl(int controlOption) {
  debuggerState().control = static_cast<memplan::Control>(controlOption);
}

/// Prints the IR units of the action the debugger looks at.
MEMPLAN_DEBUGGER_API void mlirDebuggerPrintContext() {
  DebuggerState &state = debuggerState();
  if (!state.frame) {
    llvm::outs() << "No active action.\n";
    return;
  }
  llvm::ArrayRef<IRUnit> units = state.frame->action.getContextIRUnits();
  llvm::outs() << units.size() << " available IRUnits:\n";
  for (const IRUnit &unit : units) {
    llvm::outs() << "  - ";
    memplan::printIRUnit(llvm::outs(), unit,
                         OpPrintingFlags().useLocalScope().skipRegions().enableDebugInfo());
    llvm::outs() << "\n";
  }
}

/// Prints the actions running, innermost first; as MLIR does, the header
/// goes to stdout and the actions to stderr.
MEMPLAN_DEBUGGER_API void mlirDebuggerPrintActionBacktrace(bool withContext) {
  DebuggerState &state = debuggerState();
  if (!state.frame) {
    llvm::outs() << "No active action.\n";
    return;
  }
  llvm::outs() << "ActionActiveStack depth " << state.frame->depth << "\n";
  int count = 0;
  for (const memplan::ActionFrame *frame = state.frame; frame; frame = frame->parent) {
    std::string number = std::to_string(count++);
    llvm::errs() << '#' << std::string(number.size() < 3 ? 3 - number.size() : 0, ' ')
                 << number << ": ";
    frame->action.print(llvm::errs());
    llvm::errs() << "\n";
    llvm::ArrayRef<IRUnit> units = frame->action.getContextIRUnits();
    if (!withContext || units.empty())
      continue;
    llvm::errs() << "Context:\n";
    llvm::interleave(
        units,
        [&](const IRUnit &unit) {
          llvm::errs() << "  - ";
          memplan::printIRUnit(llvm::errs(), unit);
        },
        [&] { llvm::errs() << "\n"; });
    llvm::errs() << "\n";
  }
}

/// Prints the IR unit under the cursor.
MEMPLAN_DEBUGGER_API void mlirDebuggerCursorPrint(bool withRegion) {
  DebuggerState &state = debuggerState();
  if (!state.cursor) {
    memplan::printNoCursor();
    return;
  }
  memplan::printIRUnit(
      llvm::outs(), state.cursor,
      OpPrintingFlags().skipRegions(!withRegion).useLocalScope().enableDebugInfo());
  llvm::outs() << "\n";
}

/// Puts the cursor on the `index`th IR unit of the action.
MEMPLAN_DEBUGGER_API void mlirDebuggerCursorSelectIRUnitFromContext(int index) {
  DebuggerState &state = debuggerState();
  if (!state.frame) {
    llvm::outs() << "No active MLIR Action stack\n";
    return;
  }
  llvm::ArrayRef<IRUnit> units = state.frame->action.getContextIRUnits();
  if (index < 0 || index >= static_cast<int>(units.size())) {
    llvm::outs() << "Index invalid, bounds: [0, " << units.size() << "] but got " << index
                 << "\n";
    return;
  }
  memplan::moveCursor(units[index]);
}

/// Moves the cursor to what holds its IR unit.
MEMPLAN_DEBUGGER_API void mlirDebuggerCursorSelectParentIRUnit() {
  IRUnit cursor = debuggerState().cursor;
  if (!cursor)
    return memplan::printNoCursor();
  if (auto *op = llvm::dyn_cast<Operation *>(cursor))
    return memplan::moveCursor(op->getBlock());
  if (auto *region = llvm::dyn_cast<Region *>(cursor))
    return memplan::moveCursor(region->getParentOp());
  if (auto *block = llvm::dyn_cast<Block *>(cursor))
    return memplan::moveCursor(block->getParent());
  memplan::printNotUnit();
}

/// Moves the cursor to the `index`th region, block or operation of its unit.
MEMPLAN_DEBUGGER_API void mlirDebuggerCursorSelectChildIRUnit(int index) {
  IRUnit cursor = debuggerState().cursor;
  if (!cursor)
    return memplan::printNoCursor();
  if (auto *op = llvm::dyn_cast<Operation *>(cursor)) {
    if (index < 0 || index >= static_cast<int>(op->getNumRegions())) {
      llvm::outs() << "Index invalid, op has " << op->getNumRegions() << " but got " << index
                   << "\n";
      return;
    }
    return memplan::moveCursor(&op->getRegion(index));
  }
  auto nth = [&](auto &range, int &count) -> decltype(&*range.begin()) {
    count = 0;
    for (auto &child : range) {
      if (count == index)
        return &child;
      ++count;
    }
    return nullptr;
  };
  int count = 0;
  if (auto *region = llvm::dyn_cast<Region *>(cursor)) {
    if (Block *block = index < 0 ? nullptr : nth(*region, count))
      return memplan::moveCursor(block);
    llvm::outs() << "Index invalid, region has " << count << " block but got " << index
                 << "\n";
    return;
  }
  auto *block = llvm::dyn_cast<Block *>(cursor);
  if (!block)
    return memplan::printNotUnit();
  if (Operation *op = index < 0 ? nullptr : nth(*block, count))
    return memplan::moveCursor(op);
  llvm::outs() << "Index invalid, block has " << count << "operations but got " << index
               << "\n";
}

/// Moves the cursor to the operation, region or block before its unit.
MEMPLAN_DEBUGGER_API void mlirDebuggerCursorSelectPreviousIRUnit() {
  IRUnit cursor = debuggerState().cursor;
  if (!cursor)
    return memplan::printNoCursor();
  if (auto *op = llvm::dyn_cast<Operation *>(cursor)) {
    if (Operation *previous = op->getPrevNode())
      return memplan::moveCursor(previous);
    llvm::outs() << "No previous operation in the current block\n";
    return;
  }
  if (auto *region = llvm::dyn_cast<Region *>(cursor)) {
    llvm::outs() << "Has region\n";
    Operation *parent = region->getParentOp();
    if (!parent) {
      llvm::outs() << "No parent operation for the current region\n";
      return;
    }
    if (region->getRegionNumber() == 0) {
      llvm::outs() << "No previous region in the current operation\n";
      return;
    }
    return memplan::moveCursor(&parent->getRegion(region->getRegionNumber() - 1));
  }
  auto *block = llvm::dyn_cast<Block *>(cursor);
  if (!block)
    return memplan::printNotUnit();
  if (Block *previous = block->getPrevNode())
    return memplan::moveCursor(previous);
  llvm::outs() << "No previous block in the current region\n";
}

/// Moves the cursor to the operation, region or block after its unit.
MEMPLAN_DEBUGGER_API void mlirDebuggerCursorSelectNextIRUnit() {
  IRUnit cursor = debuggerState().cursor;
  if (!cursor)
    return memplan::printNoCursor();
  if (auto *op = llvm::dyn_cast<Operation *>(cursor)) {
    if (Operation *next = op->getNextNode())
      return memplan::moveCursor(next);
    llvm::outs() << "No next operation in the current block\n";
    return;
  }
  if (auto *region = llvm::dyn_cast<Region *>(cursor)) {
    Operation *parent = region->getParentOp();
    if (!parent) {
      llvm::outs() << "No parent operation for the current region\n";
      return;
    }
    if (region->getRegionNumber() + 1 == parent->getNumRegions()) {
      llvm::outs() << "No next region in the current operation\n";
      return;
    }
    return memplan::moveCursor(&parent->getRegion(region->getRegionNumber() + 1));
  }
  auto *block = llvm::dyn_cast<Block *>(cursor);
  if (!block)
    return memplan::printNotUnit();
  if (Block *next = block->getNextNode())
    return memplan::moveCursor(next);
  llvm::outs() << "No next block in the current region\n";
}

MEMPLAN_DEBUGGER_API void mlirDebuggerEnableBreakpoint(void *breakpoint) {
  static_cast<Breakpoint *>(breakpoint)->enabled = true;
}

MEMPLAN_DEBUGGER_API void mlirDebuggerDisableBreakpoint(void *breakpoint) {
  static_cast<Breakpoint *>(breakpoint)->enabled = false;
}

/// Stops the actions tagged `tag`; returns the breakpoint (the same one for
/// the same tag).
MEMPLAN_DEBUGGER_API void *mlirDebuggerAddTagBreakpoint(const char *tag) {
  std::unique_ptr<Breakpoint> &breakpoint = debuggerState().tagBreakpoints[tag];
  if (!breakpoint) {
    breakpoint = std::make_unique<Breakpoint>();
    breakpoint->tagOrFile = tag;
  }
  return breakpoint.get();
}

/// Does nothing, as in MLIR.
MEMPLAN_DEBUGGER_API void mlirDebuggerAddRewritePatternBreakpoint(const char *) {}

/// Stops the actions on an IR unit located at `file:line:col` (-1: any).
MEMPLAN_DEBUGGER_API void mlirDebuggerAddFileLineColLocBreakpoint(const char *file, int line,
                                                                  int col) {
  std::unique_ptr<Breakpoint> &breakpoint =
      debuggerState().locationBreakpoints[std::make_tuple(std::string(file), line, col)];
  if (breakpoint)
    return;
  breakpoint = std::make_unique<Breakpoint>();
  breakpoint->tagOrFile = file;
  breakpoint->isTag = false;
  breakpoint->line = line;
  breakpoint->column = col;
}

/// Where the debugger breaks: called when an action stops.
MEMPLAN_DEBUGGER_API __attribute__((noinline)) void mlirDebuggerBreakpointHook() {
  // Something the compiler cannot drop, so that the call stays.
  static thread_local void *volatile sink;
  sink = const_cast<void **>(&sink);
}

namespace memplan {

void registerDebuggerHookFlag() { (void)enableFlag(); }

bool debuggerHookEnabled() { return enableFlag(); }

void printIRUnit(llvm::raw_ostream &os, const IRUnit &unit, OpPrintingFlags flags) {
  auto printOp = [&](Operation *op, OpPrintingFlags opFlags) {
    if (op)
      op->print(os, opFlags);
    else
      os << "<Operation:nullptr>";
  };
  auto printRegion = [&](Region *region, OpPrintingFlags opFlags) {
    if (!region) {
      os << "<Region:nullptr>";
      return;
    }
    os << "Region #" << region->getRegionNumber() << " for op ";
    printOp(region->getParentOp(), opFlags);
  };
  if (auto *op = llvm::dyn_cast_if_present<Operation *>(unit))
    return printOp(op, flags);
  if (auto *region = llvm::dyn_cast_if_present<Region *>(unit))
    return printRegion(region, flags);
  if (auto *block = llvm::dyn_cast_if_present<Block *>(unit)) {
    bool withOps = !flags.shouldSkipRegions();
    os << "Block #" << block->computeBlockNumber() << " for ";
    printRegion(block->getParent(), flags.skipRegions());
    if (withOps)
      block->print(os);
  }
}

void DebuggerHook::execute(llvm::function_ref<void()> transform,
                           const tracing::Action &action,
                           llvm::function_ref<void(llvm::StringRef, bool)> before,
                           llvm::function_ref<void()> after) {
  ActionFrame frame{runningFrame, action, runningFrame ? runningFrame->depth + 1 : 0};
  runningFrame = &frame;
  auto restore = llvm::make_scope_exit([&] { runningFrame = frame.parent; });
  DebuggerState &state = debuggerState();

  // Hands the action to the debugger and returns whether it runs.
  auto askDebugger = [&]() -> bool {
    state.frame = &frame;
    state.control = Control::Apply;
    action.print(llvm::outs());
    llvm::outs() << "\n";
    mlirDebuggerBreakpointHook();
    switch (state.control) {
    case Control::Skip:
      depthToBreak = std::nullopt;
      return false;
    case Control::Step:
      depthToBreak = frame.depth + 1;
      return true;
    case Control::Next:
      depthToBreak = frame.depth;
      return true;
    case Control::Finish:
      depthToBreak = frame.depth - 1;
      return true;
    case Control::Apply:
      break;
    default:
      llvm::errs() << "error: unknown debugger control "
                   << static_cast<int>(state.control) << ", applying the action\n";
      break;
    }
    depthToBreak = std::nullopt;
    return true;
  };
  auto breaksHere = [&] { return depthToBreak && frame.depth <= *depthToBreak; };

  Breakpoint *breakpoint = matchBreakpoint(action);
  bool willExecute = true;
  if (breakpoint || breaksHere())
    willExecute = askDebugger();
  std::string breakpointText;
  if (breakpoint) {
    llvm::raw_string_ostream os(breakpointText);
    breakpoint->print(os);
  }
  before(breakpointText, willExecute);
  state.frame = &frame;
  if (willExecute) {
    transform();
    after();
    state.frame = frame.parent;
    state.cursor = nullptr;
  }
  if (breaksHere())
    (void)askDebugger();
}

} // namespace memplan
