"""Shrinking a generated tensor program that shows a defect to a minimal
repro: ops are deleted (their uses replaced by a function argument of the
same type) and unused functions dropped while ``still_fails(text)`` holds,
until no single deletion keeps it failing (a local minimum: every op left is
needed)."""

from __future__ import annotations

from typing import Callable, List, Optional

from mlir import ir

#: Ops never deleted: terminators and function-like ops are kept (a
#: function is dropped whole when nothing calls it).
_KEEP = (
    "func.func",
    "func.return",
    "scf.yield",
    "scf.condition",
    "cf.br",
    "cf.cond_br",
    "linalg.yield",
    "builtin.module",
)


def _ops(module: ir.Module) -> List[ir.Operation]:
    found: List[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _function_of(op: ir.Operation) -> Optional[ir.Operation]:
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return parent


def _replacement(func: ir.Operation, t: ir.Type) -> Optional[ir.Value]:
    for arg in func.regions[0].blocks[0].arguments:
        if arg.type == t:
            return arg
    return None


def _delete(text: str, index: int) -> Optional[str]:
    """``text`` without its ``index``-th op (pre-order), or None when that op
    cannot go (a kept op, a result with no stand-in, invalid IR after)."""
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse(text)
        ops = _ops(module)
        if index >= len(ops):
            return None
        op = ops[index]
        if op.name in _KEEP or (
            op.name.endswith(".constant")
            and len(list(op.results))
            and any(True for _ in op.results[0].uses)
        ):
            if op.name != "func.func":
                return None
            symbol = ir.StringAttr(op.attributes["sym_name"]).value
            if symbol == "main" or f"@{symbol}" in str(module).replace(
                f"func.func @{symbol}", "", 1
            ).replace(f"func.func private @{symbol}", "", 1):
                return None
            op.erase()
            return str(module)
        func = _function_of(op)
        for result in op.results:
            if not any(True for _ in result.uses):
                continue
            stand_in = _replacement(func, result.type) if func is not None else None
            if stand_in is None:
                return None
            result.replace_all_uses_with(stand_in)
        op.erase()
        try:
            if not module.operation.verify():
                return None
        except ir.MLIRError:
            return None
        return str(module)


def reduce_program(
    text: str, still_fails: Callable[[str], bool], log: Optional[Callable[[str], None]] = None
) -> str:
    """The smallest program this greedy search reaches from ``text`` that
    still fails (``still_fails(text)`` must hold on entry)."""
    changed = True
    while changed:
        changed = False
        index = 0
        while True:
            with ir.Context():
                count = len(_ops(ir.Module.parse(text)))
            if index >= count:
                break
            candidate = _delete(text, index)
            if candidate is not None and candidate != text and still_fails(candidate):
                text, changed = candidate, True
                if log:
                    log(f"reduced to {count - 1} ops")
                continue  # the same index now names the next op
            index += 1
    return text
