"""Lowering a tensor- or memref-level module to the LLVM dialect for the JIT.

Pipeline (always on a private copy of the input):

1. Tensor-level input only (any tensor-typed value in the module)::

       one-shot-bufferize{bufferize-function-boundaries
                          function-boundary-type-conversion=identity-layout-map}
       buffer-deallocation-pipeline

   Memref-level input skips this stage.  One-shot-bufferize alone would be a
   no-op on it (checked), but ``buffer-deallocation-pipeline`` rejects IR that
   already holds ``memref.dealloc`` ("memory free side-effect on MemRef value
   not supported") and would add frees to IR that deliberately has none,
   changing its heap figures.  For the same reason a tensor-level module that
   already contains ``memref.dealloc`` (partly bufferized by hand) is
   bufferized but gets no deallocation pipeline.

2. Structured ops to loops and plain memref accesses::

       convert-linalg-to-loops, expand-realloc, expand-strided-metadata,
       lower-affine, convert-vector-to-scf

3. Two rewrites done here in Python (see :func:`_instrument`):

   * ``alignment`` is dropped from every ``memref.alloc``.  With the attribute,
     ``finalize-memref-to-llvm`` (generic-functions mode) asks
     ``_mlir_memref_to_llvm_alloc`` for ``bytes + alignment`` and aligns the
     pointer itself, so the hook could not tell the requested size.  The
     checker's allocator returns blocks aligned to at least the largest
     alignment dropped (and at least 64), so the program's alignment promise
     still holds, and the hook sees the exact buffer size.
   * ``cf.assert`` becomes ``scf.if (not cond) { call @__memplan_assert_failed(id) }``
     so a failing assertion is recorded and reported instead of aborting the
     Python process.

4. To the LLVM dialect::

       memref-expand, arith-expand, convert-scf-to-cf, convert-vector-to-llvm,
       convert-math-to-llvm, convert-math-to-libm, convert-arith-to-llvm,
       convert-index-to-llvm, finalize-memref-to-llvm{use-generic-functions=1},
       convert-cf-to-llvm, convert-func-to-llvm, convert-ub-to-llvm,
       reconcile-unrealized-casts

The entry function gets ``llvm.emit_c_interface`` before any of this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List

from mlir import ir, passmanager

from .signature import Signature, entry_signature, find_func
from .source import ModuleSource, copy_module, location_text

__all__ = [
    "LoweredProgram",
    "LoweringError",
    "lower",
    "is_tensor_level",
    "BUFFERIZE_PIPELINE",
    "DEALLOCATION_PIPELINE",
    "LOOPS_PIPELINE",
    "LLVM_PIPELINE",
    "ASSERT_HOOK",
    "MIN_ALIGNMENT",
]

#: Stage 1, tensor-level input only: bufferization ...
BUFFERIZE_PIPELINE = (
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}"
)
#: ... then deallocation, unless the module already frees buffers itself.
DEALLOCATION_PIPELINE = "buffer-deallocation-pipeline"
#: Stage 2.
LOOPS_PIPELINE = (
    "convert-linalg-to-loops,expand-realloc,expand-strided-metadata,"
    "lower-affine,convert-vector-to-scf"
)
#: Stage 4.
LLVM_PIPELINE = (
    "memref-expand,arith-expand,convert-scf-to-cf,convert-vector-to-llvm,"
    "convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,"
    "convert-index-to-llvm,finalize-memref-to-llvm{use-generic-functions=1},"
    "convert-cf-to-llvm,convert-func-to-llvm,convert-ub-to-llvm,"
    "reconcile-unrealized-casts"
)
#: Symbol the rewritten ``cf.assert`` calls with the assertion's index.
ASSERT_HOOK = "__memplan_assert_failed"
#: Smallest alignment of the blocks handed out by the checker's allocator.
MIN_ALIGNMENT = 64


@dataclass
class LoweredProgram:
    """A module lowered to the LLVM dialect, ready for the ExecutionEngine."""

    module: ir.Module
    signature: Signature
    #: True when the input held tensors and went through bufferization.
    tensor_level: bool
    #: Alignment every heap block must have (max of dropped ``alignment``s).
    alignment: int = MIN_ALIGNMENT
    #: ``"<location>: <msg>"`` of each ``cf.assert``, by hook id.
    assert_messages: List[str] = field(default_factory=list)


class LoweringError(RuntimeError):
    """The module could not be lowered for execution."""


def _run(module: ir.Module, pipeline: str, what: str) -> None:
    pm = passmanager.PassManager.parse(f"builtin.module({pipeline})", module.context)
    try:
        pm.run(module.operation)
    except ir.MLIRError as err:
        raise LoweringError(f"{what} failed: {err}") from None


def _is_tensor(t: ir.Type) -> bool:
    return isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType))


def _has_op(module: ir.Module, name: str) -> bool:
    found = False

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal found
        found = op.name == name
        return ir.WalkResult.INTERRUPT if found else ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def is_tensor_level(module: ir.Module) -> bool:
    """True if any op result, block argument or function type uses a tensor."""
    found = False

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal found
        if op.name == "func.func":
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            found = any(_is_tensor(t) for t in list(ftype.inputs) + list(ftype.results))
        if not found:
            found = any(_is_tensor(r.type) for r in op.results)
        if not found:
            for region in op.regions:
                for block in region.blocks:
                    if any(_is_tensor(a.type) for a in block.arguments):
                        found = True
        return ir.WalkResult.INTERRUPT if found else ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _instrument(module: ir.Module) -> tuple:
    """Drop ``memref.alloc`` alignments and reroute ``cf.assert`` (see module doc).

    Returns ``(alignment, assert_messages)``.
    """
    from mlir.dialects import arith, func, scf

    alignment = MIN_ALIGNMENT
    allocs: List[ir.Operation] = []
    asserts: List[ir.Operation] = []

    narrow: List[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "memref.alloc" and "alignment" in op.attributes:
            allocs.append(op)
        elif op.name == "cf.assert":
            asserts.append(op)
        elif op.name in ("memref.load", "memref.store"):
            memref = op.operands[0 if op.name == "memref.load" else 1].type
            elem = ir.MemRefType(memref).element_type
            if isinstance(elem, ir.IntegerType) and elem.width < 8:
                narrow.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    if narrow:
        # finalize-memref-to-llvm (MLIR 22) hits an assertion on these and
        # would abort the whole process.
        op = narrow[0]
        raise LoweringError(
            f"{location_text(op.location)}: {op.name} on a memref of "
            f"{ir.MemRefType(op.operands[0 if op.name == 'memref.load' else 1].type).element_type}"
            " elements: sub-byte element types are not supported (upstream "
            "finalize-memref-to-llvm asserts on them); use i8"
        )
    for op in allocs:
        alignment = max(alignment, ir.IntegerAttr(op.attributes["alignment"]).value)
        del op.attributes["alignment"]

    messages: List[str] = []
    if asserts:
        with module.context, ir.Location.unknown():
            i1 = ir.IntegerType.get_signless(1)
            i64 = ir.IntegerType.get_signless(64)
            with ir.InsertionPoint.at_block_begin(module.body):
                hook = func.FuncOp(ASSERT_HOOK, ir.FunctionType.get([i64], []))
                hook.sym_visibility = ir.StringAttr.get("private")
            for op in asserts:
                msg = ir.StringAttr(op.attributes["msg"]).value
                messages.append(f"{location_text(op.location)}: {msg}")
                with ir.InsertionPoint(op), op.location:
                    true = arith.ConstantOp(i1, ir.IntegerAttr.get(i1, 1))
                    failed = arith.XOrIOp(op.operands[0], true)
                    if_op = scf.IfOp(failed)
                    with ir.InsertionPoint(if_op.then_block):
                        ident = arith.ConstantOp(i64, ir.IntegerAttr.get(i64, len(messages) - 1))
                        func.CallOp([], ir.FlatSymbolRefAttr.get(ASSERT_HOOK), [ident])
                        scf.YieldOp([])
                op.erase()
    return alignment, messages


def lower(source: ModuleSource, entry: str, source_name: str = "<input>") -> LoweredProgram:
    """Lower ``source`` (module or MLIR text) for execution; see module doc.

    The caller's module is never modified.  Raises ``KeyError`` if there is no
    ``func.func @entry``, :class:`LoweringError` if a pass fails and
    ``mlir.ir.MLIRError`` if text does not parse.
    """
    module = copy_module(source, source_name)
    with module.context:
        func = find_func(module, entry)
        func.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        if "sym_visibility" in func.attributes:  # a private entry has no
            del func.attributes["sym_visibility"]  # externally visible wrapper
        tensor_level = is_tensor_level(module)
        if tensor_level:
            pipeline = BUFFERIZE_PIPELINE
            if not _has_op(module, "memref.dealloc"):
                pipeline += "," + DEALLOCATION_PIPELINE
            _run(module, pipeline, "bufferization")
        signature = entry_signature(module, entry)
        _run(module, LOOPS_PIPELINE, "lowering to loops")
        alignment, messages = _instrument(module)
        _run(module, LLVM_PIPELINE, "conversion to the LLVM dialect")
    return LoweredProgram(
        module=module,
        signature=signature,
        tensor_level=tensor_level,
        alignment=alignment,
        assert_messages=messages,
    )
