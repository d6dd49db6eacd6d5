"""Lowering a tensor- or memref-level module to the LLVM dialect for the JIT.

Pipeline (always on a private copy of the input, in a single-threaded
context of its own):

1. Tensor-level input only (any tensor-typed value in the module)::

       one-shot-bufferize{bufferize-function-boundaries
                          function-boundary-type-conversion=identity-layout-map}
       buffer-deallocation-pipeline

   ``reference="memplan"`` runs ``memplan-one-shot-bufferize`` with the same
   options instead (upstream's decisions, near-linear; :data:`REFERENCES`),
   falling back to upstream's where it fails.

   Memref-level input skips this stage.  One-shot-bufferize alone would be a
   no-op on it (checked), but ``buffer-deallocation-pipeline`` rejects IR that
   already holds ``memref.dealloc`` ("memory free side-effect on MemRef value
   not supported") and would add frees to IR that deliberately has none,
   changing its heap figures.  For the same reason a tensor-level module that
   already contains ``memref.dealloc`` (partly bufferized by hand) is
   bufferized but gets no deallocation pipeline.

2. Structured ops to loops and plain memref accesses::

       convert-bufferization-to-memref, linalg-generalize-named-ops,
       (reduction loops hoisted: memplan.numerics.loop_order)
       (kernels outlined: memplan.numerics.outline)
       (strided reads packed: see below)
       (matmul-like kernels tiled: memplan.numerics.tiling)
       convert-linalg-to-loops, expand-realloc, expand-strided-metadata,
       lower-affine, convert-vector-to-scf

   An input that the innermost loop reads with a stride and that other
   loops read again (a matmul reading its weight through a transposed map,
   ``C[i, j] += A[i, k] * W[j, k]``) is packed tile by tile, as a code
   generator would: for each tile of up to :data:`PACK_TILE` iterations of
   the innermost loop, the input's tile is copied into a stack buffer (at most
   :data:`PACK_MAX_BYTES`) with that loop's dimension last, and the op runs
   on the tile reading the copy (C++: ``lib/Numerics/PackStridedReads.cpp``).
   Only the innermost loop is split: every output element sees the same
   operations in the same order, so the values are the same bit for bit,
   and the heap is not touched.

3. Two rewrites done here in Python (see :func:`_instrument`):

   * ``alignment`` is dropped from every ``memref.alloc``.  With the attribute,
     ``finalize-memref-to-llvm`` (generic-functions mode) asks
     ``_mlir_memref_to_llvm_alloc`` for ``bytes + alignment`` and aligns the
     pointer itself, so the hook could not tell the requested size.  The
     checker's allocator returns blocks aligned to at least the largest
     alignment dropped (and at least 64), so the program's alignment promise
     still holds, and the hook sees the exact buffer size.
   * ``cf.assert`` becomes ``scf.if (not cond) { call @__memplan_assert_failed(id) }``
     so a failing assertion is counted and reported instead of aborting the
     Python process (execution continues after it).
   * loads and stores of sub-byte integers (``i1`` masks) go through an
     ``i8`` view of the memref, one byte per element (upstream's lowering
     asserts on them).
   * each ``memref.alloc`` and ``memref.dealloc`` first stores its site
     number (an index into ``LoweredProgram.heap_sites``) into the external
     global ``__memplan_heap_site``, whose storage the checker's heap
     provides: its hooks then name the op behind every allocation and free
     (a double free, a leak: :mod:`memplan.numerics.heap`).

4. To the LLVM dialect (``math.fpowi`` with a 64-bit exponent and
   ``math.ipowi`` become upstream's software functions: LLVM's ``powi``
   takes a C ``int`` and a wider exponent is a fatal code generation error)::

       convert-math-to-funcs{min-width-of-fpowi-exponent=33}, memref-expand,
       arith-expand, convert-scf-to-cf, convert-vector-to-llvm,
       convert-complex-to-standard, convert-math-to-llvm, convert-math-to-libm,
       convert-complex-to-llvm, convert-arith-to-llvm,
       convert-index-to-llvm, finalize-memref-to-llvm{use-generic-functions=1},
       convert-cf-to-llvm, convert-func-to-llvm, convert-ub-to-llvm,
       reconcile-unrealized-casts

   Anything left that is not in the LLVM dialect is reported as a
   :class:`LoweringError` at its location.

The entry function gets ``llvm.emit_c_interface`` before any of this.
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Sequence, Tuple

from mlir import ir, passmanager
from mlir.dialects import arith, builtin, func, memref, scf

from memplan import _core
from memplan.passes.pipeline import parse_pipeline, run_pass_manager

from .loop_order import hoist_reductions
from .outline import mark_no_inline, outline_generics
from .parallel import start as parallel_start
from .signature import Signature, entry_signature, find_func
from .source import ModuleSource, location_text, private_copy
from .tiling import tile_for_reuse
from .timing import PhaseTimes, phase

__all__ = [
    "LoweredProgram",
    "LoweringError",
    "lower",
    "is_tensor_level",
    "BUFFERIZE_PIPELINE",
    "REFERENCES",
    "DEALLOCATION_PIPELINE",
    "LOOPS_PIPELINE",
    "LLVM_PIPELINE",
    "ASSERT_HOOK",
    "HEAP_SITE",
    "MIN_ALIGNMENT",
]

#: Stage 1, tensor-level input only: bufferization ...
BUFFERIZE_PIPELINE = (
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}"
)
#: ... by upstream's pass, or by memplan's, whose in-place decisions are
#: upstream One-Shot Analysis' own (proven identical, test_inplace*.py) at
#: near-linear cost where upstream's is about cubic on long programs.
REFERENCES = {
    "upstream": BUFFERIZE_PIPELINE,
    "memplan": "memplan-" + BUFFERIZE_PIPELINE,
}
#: ... then deallocation, unless the module already frees buffers itself.
DEALLOCATION_PIPELINE = "buffer-deallocation-pipeline"
#: Stage 2.
GENERALIZE_PIPELINE = "convert-bufferization-to-memref,linalg-generalize-named-ops"
LOOPS_PIPELINE = (
    "convert-linalg-to-loops,expand-realloc,expand-strided-metadata,"
    "lower-affine,convert-vector-to-scf"
)
#: Most iterations of the innermost loop per packed tile of a strided input
#: (fewer where the tile would not fit in :data:`PACK_MAX_BYTES`).
PACK_TILE = 256
#: Largest stack buffer a packed tile may take.
PACK_MAX_BYTES = 1 << 20
#: Stage 4.
LLVM_PIPELINE = (
    "convert-math-to-funcs{min-width-of-fpowi-exponent=33},memref-expand,arith-expand,convert-scf-to-cf,convert-vector-to-llvm,"
    "convert-complex-to-standard,convert-math-to-llvm,convert-math-to-libm,"
    "convert-complex-to-llvm,convert-arith-to-llvm,"
    "convert-index-to-llvm,finalize-memref-to-llvm{use-generic-functions=1},"
    "convert-cf-to-llvm,convert-func-to-llvm,convert-ub-to-llvm,"
    "reconcile-unrealized-casts"
)
#: Symbol the rewritten ``cf.assert`` calls with the assertion's index.
ASSERT_HOOK = "__memplan_assert_failed"
#: External i64 global each heap op writes its site number into.
HEAP_SITE = "__memplan_heap_site"
#: Smallest alignment of the blocks handed out by the checker's allocator.
MIN_ALIGNMENT = 64


@dataclass
class LoweredProgram:
    """A module lowered to the LLVM dialect, ready for the ExecutionEngine."""

    module: ir.Module
    signature: Signature
    #: True when the input held tensors and went through bufferization.
    tensor_level: bool
    #: The pipeline that bufferized it here ("" for memref input).
    bufferization: str = ""
    #: Whose bufferization that was (a key of :data:`REFERENCES`), and why
    #: when it is not the one asked for.
    reference: str = "upstream"
    #: Why a bufferized module has no frees, where upstream's deallocation
    #: crashed on it or rejected it ("" otherwise): its values are the same,
    #: its heap figures lack the frees.
    undeallocated: str = ""
    #: Alignment every heap block must have (max of dropped ``alignment``s).
    alignment: int = MIN_ALIGNMENT
    #: ``(location, message)`` of each ``cf.assert``, by hook id.
    assert_messages: List[Tuple[str, str]] = field(default_factory=list)
    #: True when the module has a writable ``memref.global`` (each run then
    #: needs a fresh engine).
    mutable_globals: bool = False
    #: Signatures of the other functions given a C interface (``also``).
    others: Dict[str, Signature] = field(default_factory=dict)
    #: ``"<op> at <location>"`` of each ``memref.alloc`` / ``memref.dealloc``,
    #: by the site number it stores into :data:`HEAP_SITE`.
    heap_sites: List[str] = field(default_factory=list)
    #: Whether the program frees memory itself (has a ``memref.dealloc``):
    #: only then is a block left at its end a leak (memref IR before
    #: deallocation frees nothing by design).
    deallocates: bool = False


class LoweringError(RuntimeError):
    """The module could not be lowered for execution."""


@contextlib.contextmanager
def _errors_raised_as(context: ir.Context, what: str) -> Iterator[None]:
    """Any error diagnostic the body's passes emit, even from a pass that then
    succeeds, or its MLIRError, is raised as a :class:`LoweringError` with its
    location once the body is done."""
    errors: List[str] = []

    def collect(diag) -> bool:
        if diag.severity == ir.DiagnosticSeverity.ERROR:
            errors.append(f"{location_text(diag.location)}: {diag.message}")
        return True

    # Error diagnostics go to our handler rather than the bindings' capture,
    # which aborts the process on errors a successful pass left behind.
    context.emit_error_diagnostics = True
    handler = context.attach_diagnostic_handler(collect)
    try:
        yield
    except ir.MLIRError as err:
        errors = errors or [str(err)]
    finally:
        handler.detach()
    if errors:
        raise LoweringError(
            f"{what} failed: {errors[0]}"
            + (
                f" (and {len(errors) - 1} more error{'s' if len(errors) > 2 else ''})"
                if len(errors) > 1
                else ""
            )
        )


def _run(module: ir.Module, pipeline: str, what: str) -> None:
    """Run ``pipeline``, its errors raised as a :class:`LoweringError`
    (:func:`_errors_raised_as`). memplan's passes run through
    :func:`memplan.passes.pipeline.run_pass_manager` (the GIL released while MLIR
    runs, as they need)."""
    context = module.context
    with _errors_raised_as(context, what):
        if "memplan-" in pipeline:
            pm = parse_pipeline(f"builtin.module({pipeline})", context)
            run_pass_manager(pm, module.operation)
        else:
            pm = passmanager.PassManager.parse(f"builtin.module({pipeline})", context)
            pm.run(module.operation)


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


def _narrow_element(memref_type: ir.Type) -> bool:
    elem = ir.MemRefType(memref_type).element_type
    return isinstance(elem, ir.IntegerType) and elem.width < 8


def _widen_narrow_accesses(ops: List[ir.Operation]) -> None:
    """Access sub-byte integer memrefs one byte per element.

    Upstream ``finalize-memref-to-llvm`` asserts on loads and stores of
    ``i1``-like elements (and would abort the process), although it lays
    such memrefs out one byte per element, as numpy does for ``bool``.  Each
    access goes through an ``i8`` view of the same descriptor instead (an
    ``unrealized_conversion_cast`` that ``reconcile-unrealized-casts``
    removes: both types become the same LLVM struct): a load reads the byte
    and truncates it, a store writes the zero-extended value.
    """
    i8 = ir.IntegerType.get_signless(8)
    for op in ops:
        is_load = op.name == "memref.load"
        buffer = op.operands[0 if is_load else 1]
        mtype = ir.MemRefType(buffer.type)
        narrow = mtype.element_type
        wide_type = ir.MemRefType.get(mtype.shape, i8, mtype.layout, mtype.memory_space)
        indices = list(op.operands)[1 if is_load else 2 :]
        with ir.InsertionPoint(op), op.location:
            wide = builtin.UnrealizedConversionCastOp([wide_type], [buffer]).result
            if is_load:
                byte = memref.LoadOp(wide, indices).result
                value = arith.TruncIOp(narrow, byte).result
                op.results[0].replace_all_uses_with(value)
            else:
                byte = arith.ExtUIOp(i8, op.operands[0]).result
                memref.StoreOp(byte, wide, indices)
        op.erase()


def _mark_heap_sites(module: ir.Module, ops: List[ir.Operation]) -> List[str]:
    """Before each heap op, store its site number into :data:`HEAP_SITE`;
    returns the sites' ``"<op> at <location>"``."""
    sites: List[str] = []
    if not ops:
        return sites
    with module.context, ir.Location.unknown():
        i64 = ir.IntegerType.get_signless(64)
        site_type = ir.MemRefType.get([], i64)
        with ir.InsertionPoint.at_block_begin(module.body):
            memref.GlobalOp(HEAP_SITE, ir.TypeAttr.get(site_type))  # external: the heap's
        for op in ops:
            sites.append(f"{op.name} at {location_text(op.location)}")
            with ir.InsertionPoint(op), op.location:
                site = memref.GetGlobalOp(site_type, HEAP_SITE).result
                number = arith.ConstantOp(i64, ir.IntegerAttr.get(i64, len(sites) - 1)).result
                memref.StoreOp(number, site, [])
    return sites


def _instrument(module: ir.Module) -> tuple:
    """Drop ``memref.alloc`` alignments, reroute ``cf.assert``, widen
    sub-byte accesses and mark heap sites (see module doc).

    Returns ``(alignment, assert_messages, mutable_globals, heap_sites)``.
    """
    alignment = MIN_ALIGNMENT
    allocs: List[ir.Operation] = []
    asserts: List[ir.Operation] = []
    narrow: List[ir.Operation] = []
    heap_ops: List[ir.Operation] = []
    mutable_globals = False

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal mutable_globals
        if op.name in ("memref.alloc", "memref.dealloc"):
            heap_ops.append(op)
        if op.name == "memref.alloc" and "alignment" in op.attributes:
            allocs.append(op)
        elif op.name == "cf.assert":
            asserts.append(op)
        elif op.name == "memref.load" and _narrow_element(op.operands[0].type):
            narrow.append(op)
        elif op.name == "memref.store" and _narrow_element(op.operands[1].type):
            narrow.append(op)
        elif op.name == "memref.global" and "constant" not in op.attributes:
            mutable_globals = True
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    with module.context, ir.Location.unknown():
        _widen_narrow_accesses(narrow)
    for op in allocs:
        alignment = max(alignment, ir.IntegerAttr(op.attributes["alignment"]).value)
        del op.attributes["alignment"]

    messages: List[Tuple[str, str]] = []
    if asserts:
        with module.context, ir.Location.unknown():
            i1 = ir.IntegerType.get_signless(1)
            i64 = ir.IntegerType.get_signless(64)
            with ir.InsertionPoint.at_block_begin(module.body):
                hook = func.FuncOp(ASSERT_HOOK, ir.FunctionType.get([i64], []))
                hook.sym_visibility = ir.StringAttr.get("private")
            for op in asserts:
                msg = ir.StringAttr(op.attributes["msg"]).value
                messages.append((location_text(op.location), msg))
                with ir.InsertionPoint(op), op.location:
                    true = arith.ConstantOp(i1, ir.IntegerAttr.get(i1, 1))
                    failed = arith.XOrIOp(op.operands[0], true)
                    if_op = scf.IfOp(failed)
                    with ir.InsertionPoint(if_op.then_block):
                        ident = arith.ConstantOp(i64, ir.IntegerAttr.get(i64, len(messages) - 1))
                        func.CallOp([], ir.FlatSymbolRefAttr.get(ASSERT_HOOK), [ident])
                        scf.YieldOp([])
                op.erase()
    heap_sites = _mark_heap_sites(module, heap_ops)
    return alignment, messages, mutable_globals, heap_sites


def _check_lowered(module: ir.Module) -> None:
    """Raise :class:`LoweringError` if an op the JIT cannot translate is left.

    The location is that of the first op left that is not a conversion cast
    (the casts only mark where a value of an unconverted type is used).
    """
    left: List[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name != "builtin.module" and not op.name.startswith("llvm."):
            left.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    if left:
        cast = "builtin.unrealized_conversion_cast"
        op = next((o for o in left if o.name != cast), left[0])
        names = sorted({o.name for o in left}, key=lambda n: (n == cast, n))
        raise LoweringError(
            f"{location_text(op.location)}: {op.name} cannot be lowered to the LLVM "
            f"dialect by the checker's pipeline (left: {', '.join(names)})"
        )


def _prepared_copy(
    source: ModuleSource, source_name: str, entry: str, also: Sequence[str]
) -> Tuple[ir.Module, List[str]]:
    """A private copy of ``source`` whose entry function, and those of
    ``also`` that exist, have a C interface; returns it and the names of
    ``also`` found. Raises ``KeyError`` without ``func.func @entry``."""
    module = private_copy(source, source_name)
    with module.context:
        funcs = [find_func(module, entry)]
        found = []
        for name in also:
            try:
                funcs.append(find_func(module, name))
                found.append(name)
            except KeyError:
                pass
        for op in funcs:
            op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            if "sym_visibility" in op.attributes:  # a private function has no
                del op.attributes["sym_visibility"]  # externally visible wrapper
    return module, found


def _bufferize(
    module: ir.Module, copy, reference: str, times: PhaseTimes | None, prefix: str
) -> Tuple[ir.Module, str, str, str]:
    """Bufferize tensor-level ``module`` with the ``reference`` pipeline, then
    deallocate it (:func:`_deallocate`) unless it frees buffers itself;
    returns the module, the pipelines run, whose bufferization it was and
    why it has no frees where deallocation crashed or refused (else ``""``).
    Where memplan's bufferization fails, upstream's runs on a fresh
    ``copy()``, and the reference says why."""
    pipeline = REFERENCES[reference]
    try:
        with phase(times, f"{prefix}bufferization ({reference})"):
            _run(module, pipeline, "bufferization")
    except LoweringError as err:
        if reference == "upstream":
            raise
        failure = str(err)
        module = copy()
        pipeline = REFERENCES["upstream"]
        with phase(times, f"{prefix}bufferization (upstream)"):
            _run(module, pipeline, "bufferization")
        reference = f"upstream, as {reference}'s failed ({failure})"
    if _has_op(module, "memref.dealloc"):
        return module, pipeline, reference, ""
    with phase(times, f"{prefix}deallocation"):
        module, crash = _deallocate(module)
    if crash:
        return module, pipeline, reference, crash
    return module, f"{pipeline},{DEALLOCATION_PIPELINE}", reference, ""


def _deallocate(module: ir.Module) -> Tuple[ir.Module, str]:
    """Run :data:`DEALLOCATION_PIPELINE` on ``module`` in a forked child,
    which sends the result back as bytecode: upstream's deallocation aborts
    the process on some control flow (assertions in its ownership analysis),
    and a checker must not die with it; it rejects other control flow (a
    terminator with several successors but ``cf.cond_br``: ``cf.switch``).
    Returns the deallocated module and ``""``, or ``module`` unchanged and
    why it has no frees: the values it computes are the same, only its heap
    figures lack the frees."""

    def child() -> bytes:
        with open(os.devnull, "wb") as devnull:  # its assertion and stack dump
            os.dup2(devnull.fileno(), 2)
        _run(module, DEALLOCATION_PIPELINE, "deallocation")
        out = io.BytesIO()
        module.operation.write_bytecode(out)
        return out.getvalue()

    what = f"upstream's {DEALLOCATION_PIPELINE}"
    try:
        data = parallel_start(child, what).result()
    except LoweringError as err:
        return module, f"{what} rejected it ({err})"
    except RuntimeError as err:
        if not str(err).startswith(f"{what} died"):
            raise LoweringError(f"deallocation: {err}") from None
        return module, str(err)
    return ir.Module.parse(data, context=module.context), ""


def lower(
    source: ModuleSource,
    entry: str,
    source_name: str = "<input>",
    also: Sequence[str] = (),
    reference: str = "upstream",
    times: PhaseTimes | None = None,
    label: str = "",
) -> LoweredProgram:
    """Lower ``source`` (module or MLIR text) for execution; see module doc.

    The functions named in ``also`` that exist in the module get a C
    interface as well (their signatures land in ``LoweredProgram.others``).
    ``reference`` picks the bufferization of a tensor-level module (a key of
    :data:`REFERENCES`: ``"upstream"``'s one-shot-bufferize or ``"memplan"``'s,
    which makes the same decisions faster). ``times`` gets the seconds of
    each stage, named after ``label`` (``"before"``).
    The caller's module is never modified.  Raises ``KeyError`` if there is no
    ``func.func @entry``, :class:`LoweringError` if a pass fails and
    :class:`memplan.ir.parse.ParseError` if text or bytecode does not parse.
    """
    if reference not in REFERENCES:
        raise ValueError(
            f"reference bufferization '{reference}': expected one of " f"{', '.join(REFERENCES)}"
        )
    prefix = f"{label} " if label else ""

    def copy() -> ir.Module:
        with phase(times, f"{prefix}copy"):
            return _prepared_copy(source, source_name, entry, also)[0]

    with phase(times, f"{prefix}copy"):
        module, found = _prepared_copy(source, source_name, entry, also)
    tensor_level = is_tensor_level(module)
    pipeline = undeallocated = ""
    if tensor_level:
        module, pipeline, reference, undeallocated = _bufferize(
            module, copy, reference, times, prefix
        )
    with module.context:
        signature = entry_signature(module, entry)
        other_sigs = {name: entry_signature(module, name) for name in found}
        with phase(times, f"{prefix}lowering to loops"):
            _run(module, GENERALIZE_PIPELINE, "lowering to loops")
            hoist_reductions(module)
            outline_generics(module)
            _core.pack_strided_reads(module.operation._CAPIPtr, PACK_TILE, PACK_MAX_BYTES)
            with _errors_raised_as(module.context, "tiling"):
                tile_for_reuse(module)
            _run(module, LOOPS_PIPELINE, "lowering to loops")
            alignment, messages, mutable_globals, heap_sites = _instrument(module)
        with phase(times, f"{prefix}lowering to LLVM"):
            _run(module, LLVM_PIPELINE, "conversion to the LLVM dialect")
            _check_lowered(module)
            with _errors_raised_as(module.context, "inlining the entry"):
                mark_no_inline(module)
    return LoweredProgram(
        module=module,
        signature=signature,
        tensor_level=tensor_level,
        bufferization=pipeline,
        reference=reference,
        undeallocated=undeallocated,
        alignment=alignment,
        assert_messages=messages,
        mutable_globals=mutable_globals,
        others=other_sigs,
        heap_sites=heap_sites,
        deallocates=any(site.startswith("memref.dealloc ") for site in heap_sites),
    )
