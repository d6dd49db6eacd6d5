"""One function per distinct ``linalg.generic``: small, shared JIT work.

A real model lowered to loops is one enormous function (GPT-2 with 48
layers: over a thousand loop nests), and LLVM's optimizer and code generator
slow down badly on huge functions.  :func:`outline_generics` moves every
memref-level ``linalg.generic`` into a private function of its own and calls
it; identical generics (same operand types, maps and body, as in repeated
layers) share one function.  Each function is marked ``no_inline`` after
conversion to the LLVM dialect (:func:`mark_no_inline`) so that LLVM keeps
them apart.  The loops are the same, so the values are the same bit for bit.

Constants the body uses from outside are cloned into the function (so that
they stay constants); other values from outside become arguments.
"""

from __future__ import annotations

from typing import Dict, List

from mlir import ir

__all__ = ["outline_generics", "mark_no_inline", "KERNEL_PREFIX"]

#: Name prefix of the outlined functions.
KERNEL_PREFIX = "__memplan_kernel_"


def _inside(value_owner, op: ir.Operation) -> bool:
    """True if ``value_owner`` (an op or a block) is nested in ``op``."""
    current = value_owner.owner if isinstance(value_owner, ir.Block) else value_owner
    while current is not None:
        if current == op:
            return True
        parent = current.parent
        current = parent.operation if parent is not None else None
        if current is not None and current.name == "builtin.module":
            return False
    return False


def _captured(op: ir.Operation) -> List[ir.Value]:
    """Values used in ``op``'s region but defined outside ``op``."""
    seen: List[ir.Value] = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        if inner == op:
            return ir.WalkResult.ADVANCE
        for value in inner.operands:
            owner = value.owner
            if not _inside(owner, op) and not any(value == s for s in seen):
                seen.append(value)
        return ir.WalkResult.ADVANCE

    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return seen


def _is_constant(value: ir.Value) -> bool:
    owner = value.owner
    return isinstance(owner, ir.Operation) and owner.name == "arith.constant"


def outline_generics(module: ir.Module) -> int:
    """Outline every ``linalg.generic`` without results (see module doc).

    Returns the number of functions created.
    """
    from mlir.dialects import func

    generics: List[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "linalg.generic":
            if len(op.results) == 0:
                generics.append(op)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    kernels: Dict[str, str] = {}  # printed body -> function name
    created = 0
    with module.context:
        for op in generics:
            captured = _captured(op)
            constants = [v for v in captured if _is_constant(v)]
            passed = list(op.operands) + [v for v in captured if not _is_constant(v)]
            types = [v.type for v in passed]
            with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(module.body):
                kernel = func.FuncOp(f"{KERNEL_PREFIX}{created}", ir.FunctionType.get(types, []))
                kernel.sym_visibility = ir.StringAttr.get("private")
                block = kernel.add_entry_block()
            with ir.InsertionPoint(block):
                clones = [c.owner.clone() for c in constants]
                copy = op.clone()
                with ir.Location.unknown():
                    func.ReturnOp([])
            replacements = list(zip(passed, block.arguments)) + [
                (c, k.results[0]) for c, k in zip(constants, clones)
            ]
            for i in range(len(op.operands)):
                copy.operands[i] = block.arguments[i]

            def rewire(inner: ir.Operation) -> ir.WalkResult:
                for n, value in enumerate(inner.operands):
                    for old, new in replacements[len(op.operands):]:
                        if value == old:
                            inner.operands[n] = new
                return ir.WalkResult.ADVANCE

            copy.walk(rewire, ir.WalkOrder.PRE_ORDER)
            key_op = kernel.operation
            key_op.attributes["sym_name"] = ir.StringAttr.get(KERNEL_PREFIX)
            key = key_op.get_asm(
                print_generic_op_form=True, use_local_scope=True, assume_verified=True
            )
            name = kernels.get(key)
            if name is None:
                name = f"{KERNEL_PREFIX}{created}"
                key_op.attributes["sym_name"] = ir.StringAttr.get(name)
                kernels[key] = name
                created += 1
            else:
                key_op.erase()
            with ir.InsertionPoint(op), op.location:
                func.CallOp([], ir.FlatSymbolRefAttr.get(name), passed)
            op.erase()
    return created


def mark_no_inline(module: ir.Module) -> None:
    """Give every outlined ``llvm.func`` the ``no_inline`` attribute."""
    with module.context:
        for op in module.body.operations:
            op = op.operation
            if op.name == "llvm.func":
                name = ir.StringAttr(op.attributes["sym_name"]).value
                if name.startswith(KERNEL_PREFIX):
                    op.attributes["no_inline"] = ir.UnitAttr.get()
