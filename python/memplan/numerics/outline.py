"""One function per distinct ``linalg.generic``: small, shared JIT work.

A real model lowered to loops is one enormous function (GPT-2 with 48
layers: over a thousand loop nests), and LLVM's optimizer and code generator
slow down badly on huge functions.  :func:`outline_generics` moves every
memref-level ``linalg.generic`` into a private function of its own and calls
it; identical generics (same operand types, maps and body, as in repeated
layers) share one function.  After conversion to the LLVM dialect
:func:`mark_no_inline` keeps them apart and leaves the calling functions
unoptimized.  The loops are the same, so the values are the same bit for bit.

The entry function itself is inlined into its C-interface wrapper
(:func:`mark_no_inline`): lowered to the LLVM dialect it takes every memref
argument spread over ``3 + 2 * rank`` scalars (GPT-2 with 48 layers: 3299
arguments), and the JIT gives every defined function a packed wrapper that
passes them all on the stack; LLVM's instruction selection is quadratic in the
stores of such a call (gpt2_l48_h512_s128: 13.5 of a side's 15 CPU seconds of
JIT compilation, 3.8 without the call).

Constants the body uses from outside are cloned into the function (so that
they stay constants); other values from outside become arguments.

A memref with a strided layout is passed as its aligned pointer (an
``index``), its offset, and only the dynamic parts of its sizes and strides;
the function rebuilds the descriptor from them and the static parts of its
type. The LLVM lowering would otherwise spread every descriptor over ``5 + 2 *
rank`` scalar arguments, and the calling function of a big model (thousands
of calls) grows so large that LLVM spends most of the check compiling it.
The offset is always an argument (the kernel sees the memref with a dynamic
offset): the same op on views at different static offsets, as a pool or an
unrolled loop's slices give (a GRU over 128 steps: 404 kernels, one per step
and op, otherwise), is one kernel. Sizes and strides stay static where they
are: they are the loops' trip counts and what lets LLVM vectorize.
"""

from __future__ import annotations

from typing import Dict, List

from mlir import ir, passmanager
from mlir.dialects import arith, builtin, func, linalg, llvm, memref

from memplan import _core
from memplan.ir.interfaces import has_interface

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
    """``value`` is the result of a ConstantLike op (MLIR's trait)."""
    owner = value.owner
    return not isinstance(owner, ir.Block) and has_interface(owner, _core.OpInterface.CONSTANT_LIKE)


_DYNAMIC = None


def _strided(t: ir.Type):
    """``(offset, sizes, strides)`` of a ranked memref type with a strided
    layout (``None`` for dynamic entries), or ``None`` if it has none."""
    if not isinstance(t, ir.MemRefType):
        return None
    mtype = ir.MemRefType(t)
    try:
        strides, offset = mtype.get_strides_and_offset()
    except Exception:  # not a strided layout
        return None
    dyn_size = ir.ShapedType.get_dynamic_size()
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    return (
        None if offset == dyn else offset,
        [None if d == dyn_size else d for d in mtype.shape],
        [None if x == dyn else x for x in strides],
    )


def _pack(value: ir.Value) -> List[ir.Value]:
    """Caller side: the values that carry ``value`` into a kernel."""
    layout = _strided(value.type)
    if layout is None:
        return [value]
    offset, sizes, strides = layout

    packed = [memref.ExtractAlignedPointerAsIndexOp(value).result]
    if offset is None or None in sizes or None in strides:
        meta = memref.ExtractStridedMetadataOp(value)
        results = list(meta.results)
        dynamic = [offset] + sizes + strides
        for k, entry in enumerate(dynamic):
            if entry is None:
                packed.append(results[1 + k])
    if offset is not None:  # a static offset is passed all the same
        index = ir.IndexType.get()
        packed.insert(1, arith.ConstantOp(index, ir.IntegerAttr.get(index, offset)).result)
    return packed


def _packed_types(value: ir.Value) -> List[ir.Type]:
    layout = _strided(value.type)
    if layout is None:
        return [value.type]
    offset, sizes, strides = layout
    count = 2 + sum(1 for e in sizes + strides if e is None)  # pointer, offset, the rest
    return [ir.IndexType.get()] * count


def _kernel_type(value_type: ir.Type) -> ir.Type:
    """The type a kernel sees a strided memref as: the same with a dynamic
    offset."""
    mtype = ir.MemRefType(value_type)
    _, sizes, strides = _strided(value_type)
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    layout = ir.StridedLayoutAttr.get(dyn, [dyn if x is None else x for x in strides])
    return ir.MemRefType.get(mtype.shape, mtype.element_type, layout, mtype.memory_space)


def _unpack(value_type: ir.Type, args: List[ir.Value]) -> ir.Value:
    """Kernel side: rebuild a memref of ``value_type``, with a dynamic
    offset (:func:`_kernel_type`), from its packed args."""
    _, sizes, strides = _strided(value_type)
    offset = None  # always passed
    rank = len(sizes)
    arrays = f", array<{rank} x i64>, array<{rank} x i64>" if rank else ""
    struct = ir.Type.parse(f"!llvm.struct<(ptr, ptr, i64{arrays})>")
    ptr_type = ir.Type.parse("!llvm.ptr")
    i64 = ir.IntegerType.get_signless(64)
    rest = iter(args[1:])

    def field(static):
        if static is None:
            return arith.IndexCastOp(i64, next(rest)).result
        return llvm.ConstantOp(i64, ir.IntegerAttr.get(i64, static)).result

    address = arith.IndexCastOp(i64, args[0]).result
    pointer = llvm.IntToPtrOp(ptr_type, address).result
    desc = llvm.PoisonOp(struct).result
    desc = llvm.InsertValueOp(desc, pointer, [0]).result
    desc = llvm.InsertValueOp(desc, pointer, [1]).result
    desc = llvm.InsertValueOp(desc, field(offset), [2]).result
    for d, size in enumerate(sizes):
        desc = llvm.InsertValueOp(desc, field(size), [3, d]).result
    for d, stride in enumerate(strides):
        desc = llvm.InsertValueOp(desc, field(stride), [4, d]).result
    return builtin.UnrealizedConversionCastOp([_kernel_type(value_type)], [desc]).result


def _key_type(value: ir.Value) -> ir.Type:
    """The type a kernel sees ``value`` as (:func:`_kernel_type` for a
    strided memref, which also fixes its packed arguments and the code that
    unpacks them; the type itself otherwise)."""
    return value.type if _strided(value.type) is None else _kernel_type(value.type)


def _clone_into(
    op: ir.Operation, passed: List[ir.Value], inner: List[ir.Value], constants: List[ir.Value]
) -> None:
    """At the current insertion point: clones of ``constants`` and of ``op``,
    the clone reading ``inner`` where ``op`` reads ``passed`` (its operands
    first, then the values it captures)."""
    clones = [c.owner.operation.clone() for c in constants]
    copy = op.clone()
    replacements = list(zip(passed, inner))[len(op.operands) :] + [
        (c, k.results[0]) for c, k in zip(constants, clones)
    ]
    for i in range(len(op.operands)):
        copy.operands[i] = inner[i]

    def rewire(nested: ir.Operation) -> ir.WalkResult:
        for k, value in enumerate(nested.operands):
            for old, new in replacements:
                if value == old:
                    nested.operands[k] = new
        return ir.WalkResult.ADVANCE

    copy.walk(rewire, ir.WalkOrder.PRE_ORDER)


def _kernel_key(
    module: ir.Module, op: ir.Operation, passed: List[ir.Value], constants: List[ir.Value]
) -> str:
    """What decides the kernel of ``op``: a scratch function taking
    ``passed`` as the kernel sees them (:func:`_key_type`) and holding the
    clones of :func:`_clone_into`, printed (and erased). Two generics with
    the same key get the same kernel; this is cheaper than building one
    (its descriptor code) for each of a model's thousands of generics."""
    with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(module.body):
        types = [_key_type(v) for v in passed]
        scratch = func.FuncOp(KERNEL_PREFIX, ir.FunctionType.get(types, []))
        block = scratch.add_entry_block()
    with ir.InsertionPoint(block), ir.Location.unknown():
        _clone_into(op, passed, list(block.arguments), constants)
        func.ReturnOp([])
    key = scratch.operation.get_asm(
        print_generic_op_form=True, use_local_scope=True, assume_verified=True
    )
    scratch.operation.erase()
    return key


def _build_kernel(
    module: ir.Module,
    name: str,
    op: ir.Operation,
    passed: List[ir.Value],
    constants: List[ir.Value],
) -> None:
    """The private function ``@name`` running ``op`` on its packed
    arguments (see module doc)."""
    types: List[ir.Type] = []
    for v in passed:
        types.extend(_packed_types(v))
    with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(module.body):
        kernel = func.FuncOp(name, ir.FunctionType.get(types, []))
        kernel.sym_visibility = ir.StringAttr.get("private")
        block = kernel.add_entry_block()
    with ir.InsertionPoint(block), ir.Location.unknown():
        inner: List[ir.Value] = []
        n = 0
        for v in passed:
            count = len(_packed_types(v))
            args = list(block.arguments)[n : n + count]
            n += count
            inner.append(args[0] if _strided(v.type) is None else _unpack(v.type, args))
        _clone_into(op, passed, inner, constants)
        func.ReturnOp([])


def outline_generics(module: ir.Module) -> int:
    """Outline every ``linalg.generic`` without results (see module doc).

    Returns the number of functions created.
    """
    generics: List[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if isinstance(op.opview, linalg.GenericOp):
            if len(op.results) == 0:
                generics.append(op)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    kernels: Dict[str, str] = {}  # key -> function name
    with module.context:
        for op in generics:
            captured = _captured(op)
            constants = [v for v in captured if _is_constant(v)]
            passed = list(op.operands) + [v for v in captured if not _is_constant(v)]
            key = _kernel_key(module, op, passed, constants)
            name = kernels.get(key)
            if name is None:
                name = f"{KERNEL_PREFIX}{len(kernels)}"
                _build_kernel(module, name, op, passed, constants)
                kernels[key] = name
            with ir.InsertionPoint(op), op.location:
                operands: List[ir.Value] = []
                for v in passed:
                    operands.extend(_pack(v))
                func.CallOp([], ir.FlatSymbolRefAttr.get(name), operands)
            op.erase()
    return len(kernels)


def _llvm_functions(module: ir.Module) -> Dict[str, ir.Operation]:
    """The ``llvm.func`` ops of ``module`` by name."""
    return {
        ir.StringAttr(op.attributes["sym_name"]).value: op.operation
        for op in module.body.operations
        if isinstance(op, llvm.LLVMFuncOp)
    }


def _callees(module: ir.Module) -> Dict[str, int]:
    """How many ``llvm.call`` ops name each function directly."""
    counts: Dict[str, int] = {}

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "llvm.call" and "callee" in op.attributes:
            name = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            counts[name] = counts.get(name, 0) + 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return counts


def _inline_into_wrappers(module: ir.Module) -> List[str]:
    """Inline each function whose only caller is its C-interface wrapper
    (``_mlir_ciface_<name>``, which then takes its place) and erase it;
    returns the names inlined. Nothing else is inlined: every other function
    is ``no_inline`` during MLIR's inliner, which runs with no simplification
    pipeline (the operations are moved as they are)."""
    functions = _llvm_functions(module)
    calls = _callees(module)
    entries = [
        name
        for name in functions
        if f"_mlir_ciface_{name}" in functions
        and functions[name].regions[0].blocks
        and calls.get(name, 0) == 1
        and "passthrough" not in functions[name].attributes
    ]
    if not entries:
        return []
    pinned = []
    for name, op in functions.items():
        if name in entries:
            op.attributes["sym_visibility"] = ir.StringAttr.get("private")
            op.attributes["linkage"] = ir.Attribute.parse("#llvm.linkage<internal>")
        elif "no_inline" not in op.attributes:
            op.attributes["no_inline"] = ir.UnitAttr.get()
            pinned.append(op)
    passmanager.PassManager.parse(
        "builtin.module(inline{default-pipeline=''})", module.context
    ).run(module.operation)
    for op in pinned:
        del op.attributes["no_inline"]
    left = _llvm_functions(module)
    for name in entries:
        if name in left:  # not inlined after all: public again, as it was
            op = left[name]
            del op.attributes["sym_visibility"]
            op.attributes["linkage"] = ir.Attribute.parse("#llvm.linkage<external>")
    return [name for name in entries if name not in left]


def mark_no_inline(module: ir.Module) -> None:
    """Keep the outlined functions apart, and leave the rest unoptimized.

    First each C-interface function's implementation is inlined into its
    wrapper (see module doc), which then gets ``optnone`` like the rest.
    Every outlined ``llvm.func`` gets ``no_inline``.  Every other function
    with a body except the C-interface wrappers (the entry function and its
    callees: after outlining, mostly calls and buffer bookkeeping, thousands
    of operations in a big model) gets ``optnone`` and ``noinline``: LLVM then
    spends no optimization on it and generates its code quickly, while the
    kernels, where the time is spent, are optimized.  Optimization never
    changes floating-point results here (no fast-math flags), so the bits are
    the same either way.
    """
    with module.context:
        inlined = _inline_into_wrappers(module)
        for name, op in _llvm_functions(module).items():
            if not op.regions[0].blocks:
                continue
            if name.startswith(KERNEL_PREFIX):
                op.attributes["no_inline"] = ir.UnitAttr.get()
            elif not name.startswith("_mlir_ciface_") or name[len("_mlir_ciface_") :] in inlined:
                op.attributes["passthrough"] = ir.ArrayAttr.get(
                    [ir.StringAttr.get("optnone"), ir.StringAttr.get("noinline")]
                )
