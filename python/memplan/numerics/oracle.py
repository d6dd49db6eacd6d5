"""A run-time overlap oracle for pooled and emplaced memory.

Independent of the plan and of memplan's lifetime analysis and size model:
the rewritten module is instrumented so that, when it runs,

* every view (ViewLikeOpInterface: ``memref.view``, ``subview``,
  ``reinterpret_cast``, ...) of a 1-D ``i8`` buffer (a pool, transient
  storage), but a cast or a window into a view already reported (the
  program's own aliasing), reports its instance (a fresh one each time the op runs) and the
  bytes its result spans, measured at run time from the result's descriptor:
  its first byte is the aligned pointer
  (``memref.extract_aligned_pointer_as_index``) plus its offset, its extent
  ``1 + sum((size - 1) * stride)`` elements (none when a size is 0), both
  from ``memref.extract_strided_metadata`` and turned into bytes by LLVM
  itself (``llvm.getelementptr`` of the element type from null, as the
  allocation lowering does);
* every op that uses a memref value reports a *touch* of the view that value
  comes from: through view-like ops (ViewLikeOpInterface: subview, cast,
  reshapes, views) the view is known statically; through block arguments
  and region results it is the most recent live view containing the value's
  first byte.

A window taken directly in a byte buffer that no view registered (an
``i8`` argument or allocation) is registered too: two such windows that
overlap while live are reported, even where they are the program's own
aliasing rather than placements (no interface tells the two apart).

A view instance is live from its creation to its last touch. :func:`run`
executes the instrumented entry through the numerics heap hooks and returns
every pair of live-at-once instances that share a byte: a valid plan has
none, whatever the outputs.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from mlir import ir
from mlir.dialects import arith, func, llvm, memref

from memplan import _core
from memplan.ir.graph import extract_graph, function_ids, operation
from memplan.ir.parse import location_prefix
from memplan.lifetimes import roles as K
from memplan.numerics.execute import execute
from memplan.numerics.heap import PoisonHeap

VIEW_HOOK = "memplan_oracle_view"
TOUCH_HOOK = "memplan_oracle_touch"
TOUCH_PTR_HOOK = "memplan_oracle_touch_ptr"
_MARK = "memplan.oracle"

_VIEW_T = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)
_TOUCH_T = ctypes.CFUNCTYPE(None, ctypes.c_int64)


@dataclass
class Overlap:
    """Two view instances live at once that share bytes."""

    first: str
    second: str
    bytes: tuple[int, int]

    def __str__(self) -> str:
        return (
            f"views at {self.first} and {self.second} share "
            f"{self.bytes[1] - self.bytes[0]} bytes while both live"
        )


@dataclass
class OracleRun:
    """What one instrumented run saw."""

    views: int = 0
    touches: int = 0
    overlaps: list[Overlap] = field(default_factory=list)
    outcome: Any = None

    @property
    def ok(self) -> bool:
        """No overlap was seen at run time."""
        return not self.overlaps


def _llvm_element(t: ir.Type) -> Optional[ir.Type]:
    """The LLVM type of a memref element (what the lowering lays out)."""
    if isinstance(t, ir.IndexType):
        return ir.IntegerType.get_signless(64)
    if isinstance(t, ir.ComplexType):
        inner = _llvm_element(t.element_type)
        return None if inner is None else ir.Type.parse(f"!llvm.struct<({inner}, {inner})>")
    # Integers, floats (f80 has no Python class) and vectors are LLVM types.
    return t


def _is_byte_buffer(t: ir.Type) -> bool:
    return (
        isinstance(t, ir.MemRefType)
        and t.rank == 1
        and t.element_type == ir.IntegerType.get_signless(8)
    )


def _is_strided(t: ir.Type) -> bool:
    """A memref whose layout is strided (what extract_strided_metadata takes)."""
    if not isinstance(t, ir.MemRefType):
        return False
    try:
        t.get_strides_and_offset()
    except Exception:  # an affine-map layout that is not strided
        return False
    return True


def _byte_count(count: ir.Value, elem: ir.Type) -> ir.Value:
    """``count`` elements of ``elem`` in bytes, as an i64 (GEP from null)."""
    i64 = ir.IntegerType.get_signless(64)
    n = arith.IndexCastOp(i64, count).result
    zero = llvm.ZeroOp(llvm.PointerType.get()).result
    gep = llvm.GEPOp(llvm.PointerType.get(), zero, [n], [-(2**31)], elem, 0).result
    return llvm.PtrToIntOp(i64, gep).result


def _report_view(result: ir.Value, elem: ir.Type, k: int) -> None:
    """At the insertion point: report view ``k``'s first byte and byte extent."""
    i64 = ir.IntegerType.get_signless(64)
    index = ir.IndexType.get()
    meta = memref.ExtractStridedMetadataOp(result).results
    rank = ir.MemRefType(result.type).rank
    offset, sizes, strides = meta[1], meta[2 : 2 + rank], meta[2 + rank :]
    zero: ir.Value = arith.ConstantOp(index, 0).result
    one: ir.Value = arith.ConstantOp(index, 1).result
    span, count = one, one
    for size, stride in zip(sizes, strides):
        span = arith.AddIOp(
            span, arith.MulIOp(arith.SubIOp(size, one).result, stride).result
        ).result
        count = arith.MulIOp(count, size).result
    empty = arith.CmpIOp(arith.CmpIPredicate.eq, count, zero).result
    span = arith.SelectOp(empty, zero, span).result
    aligned = arith.IndexCastOp(i64, memref.ExtractAlignedPointerAsIndexOp(result).result).result
    first = arith.AddIOp(aligned, _byte_count(offset, elem)).result
    call = func.CallOp(
        [], VIEW_HOOK, [arith.ConstantOp(i64, k).result, first, _byte_count(span, elem)]
    )
    call.attributes[_MARK] = ir.UnitAttr.get()


def instrument(module: ir.Module) -> list[str]:
    """Add the hooks to ``module`` in place; returns the location of each view id."""
    i64 = ir.IntegerType.get_signless(64)
    views: list[str] = []
    view_id: dict[int, int] = {}  # graph value id of a view -> its view id
    body = module.body
    g = extract_graph(module)
    # The ops of the functions with a body, in program order (read before
    # any hook is inserted: the graph keeps pointing at them).
    ops = [
        op
        for f in function_ids(g)
        if int(g.op_end[f]) > f
        for op in range(f + 1, int(g.op_end[f]) + 1)
    ]

    def origin(v: int) -> Optional[int]:
        """The registered view a value is a view of, through view-like ops
        (ViewLikeOpInterface: their view source)."""
        for _ in range(64):
            if v in view_id:
                return view_id[v]
            owner = int(g.value_op[v])
            if owner < 0 or g.view_source[owner] < 0:
                return None
            v = int(g.operands[g.operand_begin[owner] + g.view_source[owner]])
        return None

    # Views of byte buffers (ViewLikeOpInterface, the view source a 1-D i8
    # memref): register each new instance. They are how memplan's rewrites
    # place a buffer in a pool or in transient storage (memref.view), and
    # how any other rewrite carves one: the instances this oracle checks.
    # A cast (CastOpInterface) is its source retyped, not a placement; inside
    # a registered view, a window (OffsetSizeAndStrideOpInterface: subview,
    # reinterpret_cast) is the program's own aliasing. Both are touches of
    # the view they come from. (A pool placed in storage is one registered
    # view inside another, and so are its buffers.)
    for i in ops:
        source = int(g.view_source[i])
        if source < 0 or int(g.num_results[i]) != 1:
            continue
        kind = int(g.op_interfaces[i])
        if kind & _core.OpInterface.CAST:
            continue
        if (
            kind & _core.OpInterface.OFFSETS_SIZES_STRIDES
            and origin(int(g.operands[g.operand_begin[i] + source])) is not None
        ):
            continue
        op = operation(g, i)
        result = op.results[0]
        if not _is_byte_buffer(op.operands[source].type) or not _is_strided(result.type):
            continue
        elem = _llvm_element(ir.MemRefType(result.type).element_type)
        if elem is None:
            continue
        k = len(views)
        views.append(location_prefix(op.location))
        view_id[int(g.result_begin[i])] = k
        with ir.InsertionPoint.after(op), op.location:
            _report_view(result, elem, k)

    for i in ops:
        if int(g.num_results[i]) and int(g.result_begin[i]) in view_id:
            continue
        if K.kind(g, i) == K.DEALLOC:
            continue
        op = operation(g, i)
        begin = int(g.operand_begin[i])
        for j, v in enumerate(op.operands):
            if not isinstance(v.type, ir.MemRefType):
                continue
            k = origin(int(g.operands[begin + j]))
            with ir.InsertionPoint(op), op.location:
                if k is not None:
                    call = func.CallOp([], TOUCH_HOOK, [arith.ConstantOp(i64, k).result])
                else:
                    ptr = memref.ExtractAlignedPointerAsIndexOp(v).result
                    call = func.CallOp([], TOUCH_PTR_HOOK, [arith.IndexCastOp(i64, ptr).result])
            call.attributes[_MARK] = ir.UnitAttr.get()
    with ir.InsertionPoint(body), module.operation.location:
        for name, n in ((VIEW_HOOK, 3), (TOUCH_HOOK, 1), (TOUCH_PTR_HOOK, 1)):
            decl = func.FuncOp(name, ([i64] * n, []))
            decl.attributes["sym_visibility"] = ir.StringAttr.get("private")
    return views


class _Recorder:
    """The hooks' state during one run."""

    def __init__(self) -> None:
        self.time = 0
        # instance: [view id, first byte, end byte, created, last touch]
        self.instances: list[list[int]] = []
        self.current: dict[int, int] = {}  # view id -> its latest instance
        self.touches = 0
        self.callbacks = (_VIEW_T(self._view), _TOUCH_T(self._touch), _TOUCH_T(self._touch_ptr))

    def _view(self, k: int, ptr: int, nbytes: int) -> None:
        self.time += 1
        self.current[k] = len(self.instances)
        self.instances.append([k, ptr, ptr + nbytes, self.time, self.time])

    def _touch(self, k: int) -> None:
        self.time += 1
        self.touches += 1
        i = self.current.get(k)
        if i is not None:
            self.instances[i][4] = self.time

    def _touch_ptr(self, ptr: int) -> None:
        self.time += 1
        self.touches += 1
        best = None
        for i in self.current.values():
            inst = self.instances[i]
            if inst[1] <= ptr < max(inst[2], inst[1] + 1) and (
                best is None or inst[3] > self.instances[best][3]
            ):
                best = i
        if best is not None:
            self.instances[best][4] = self.time

    def overlaps(self, where: list[str]) -> list[Overlap]:
        out = []
        insts = sorted(self.instances, key=lambda x: x[3])
        for a in range(len(insts)):
            ka, lo_a, hi_a, s_a, e_a = insts[a]
            for b in range(a + 1, len(insts)):
                kb, lo_b, hi_b, s_b, e_b = insts[b]
                if s_b > e_a:
                    break
                lo, hi = max(lo_a, lo_b), min(hi_a, hi_b)
                if lo < hi:
                    out.append(Overlap(where[ka], where[kb], (lo, hi)))
        return out


def run(
    module_text: str,
    entry: str,
    inputs: Optional[Sequence[Any]] = None,
    seed: int = 0,
    scratch: Sequence[int] = (),
    dims: Optional[Any] = None,
    values: Optional[Any] = None,
    isolate: bool = False,
) -> OracleRun:
    """Instrument ``module_text``, run ``@entry`` once (inputs, dynamic
    sizes ``dims`` and fixed argument ``values`` as in
    :func:`memplan.numerics.execute`) and report the overlaps seen. With
    ``isolate`` the run is in a forked child: a crash raises
    :class:`~memplan.numerics.runner.ExecutionCrash`."""
    with ir.Context():
        module = ir.Module.parse(module_text)
        where = instrument(module)
        text = str(module)
    recorder = _Recorder()
    view_cb, touch_cb, touch_ptr_cb = recorder.callbacks
    extra = {VIEW_HOOK: view_cb, TOUCH_HOOK: touch_cb, TOUCH_PTR_HOOK: touch_ptr_cb}
    with PoisonHeap.extra_runtime(extra):
        outcome = execute(
            text,
            entry,
            inputs=inputs,
            seed=seed,
            scratch=scratch,
            dims=dims,
            values=values,
            isolate=isolate,
        )
    return OracleRun(len(recorder.instances), recorder.touches, recorder.overlaps(where), outcome)


__all__ = ["Overlap", "OracleRun", "instrument", "run"]
