"""``memplan-buffer-liveness``: report buffer lifetimes; the IR is unchanged.

Per function: every ``memref.alloc`` / ``memref.alloca``, its size, its live
interval and whether it can be pooled (or why not), plus peak live bytes.
Written as text or JSON (``{format=json output=report.json}``) and as pass
statistics (``memplan-opt --mlir-pass-statistics``). With ``capacity``, also
whether each function's buffers fit in it (a located error where they do not).
"""

from __future__ import annotations

import json
import sys

import numpy as np
from mlir import ir

from memplan.ir.graph import extract_graph, function_ids, operation
from memplan.lifetimes.analysis import FunctionLifetimes, LifetimeAnalysis, peak_live
from memplan.lifetimes.contents import held_without_contents
from memplan.lifetimes.fit import buffer_note, over_capacity, report_over
from memplan.liveness.report import format_text, heap_peaks, report_dict
from memplan.passes import PassContext
from memplan.passes.capacity import Capacity


def record_statistics(ctx: PassContext, lt: FunctionLifetimes) -> None:
    """Add one function's figures to the pass statistics."""
    ctx.stat("allocations", len(lt), "Allocations seen (alloc and alloca)")
    ctx.stat("eligible", int(lt.eligible.sum()), "Allocations that can be pooled")
    ctx.stat("peak-live-bytes", lt.peak_live_bytes, "Peak live bytes (summed over functions)")
    ctx.stat("total-alloc-bytes", lt.total_alloc_bytes, "Bytes of all static allocations")
    ctx.stat(
        "eligible-peak-bytes", lt.eligible_peak_bytes, "Peak live bytes of the poolable allocations"
    )
    for reason, n in lt.reason_counts().items():
        ctx.stat(f"skipped-{reason}", n, f"Allocations not poolable: {reason}")
    peaks = heap_peaks(lt)
    ctx.stat(
        "heap-peak-input",
        peaks["input"],
        "Peak heap bytes of the pass's input, every buffer counted, 64-byte blocks (summed over "
        "functions)",
    )
    if peaks["reuse"] is not None:
        ctx.stat(
            "heap-peak-reuse",
            peaks["reuse"],
            "Peak heap bytes after memplan-buffer-reuse (summed over functions)",
        )
    ctx.stat(
        "heap-peak-lower-bound",
        peaks["lower_bound"],
        "Peak with the given lifetimes, poolable buffers from allocation to last use (summed over "
        "functions)",
    )
    ctx.stat(
        "heap-peak-dataflow-bound",
        peaks["dataflow_bound"],
        "Peak with every buffer held only while its contents are needed (summed over functions)",
    )
    ctx.stat(
        "held-without-contents",
        len(held_without_contents(lt)),
        "Stretches where a buffer is held without contents it needs",
    )


def memory_spaces(lt: FunctionLifetimes) -> np.ndarray:
    """The integer memory space of each row (-1: a non-integer attribute)."""
    g = lt.graph
    return np.array([g.types[g.value_type[int(v)]].memory_space for v in lt.value], dtype=np.int64)


def check_capacity(ctx: PassContext, lt: FunctionLifetimes, capacity: Capacity) -> None:
    """Whether the function's buffers fit in ``capacity``: per bounded memory
    space, the most bytes of its statically sized allocations (allocas and
    buffers memplan does not pool included) live at one program point. Over
    the capacity: a located error; otherwise a statistic (and a remark)."""
    spaces = memory_spaces(lt)
    fits = True
    func = operation(lt.graph, lt.func_op)
    for space in sorted(set(spaces.tolist())):
        limit = capacity.of(space) if space >= 0 else None
        rows = np.nonzero((spaces == space) & (lt.bytes >= 0))[0]
        dynamic = int(((spaces == space) & (lt.bytes < 0)).sum())
        if limit is None:
            continue
        start, end, size, item = lt.items(rows)
        over = over_capacity(start, end, size, limit)
        where = capacity.where(space)
        if over is not None:
            first = {}
            for r, k in zip(rows.tolist(), np.asarray(item).tolist()):
                first.setdefault(k, int(lt.op[r]))
            notes = [(first[k], buffer_note(lt.graph, first[k], int(size[k]))) for k in over.live]
            report_over(
                ctx, lt.graph, "memplan-buffer-liveness", over, limit, where, notes, lt.func_op
            )
            fits = False
            continue
        if ctx.options["remarks"]:
            peak = peak_live(start, end, size)
            unknown = f"; {dynamic} allocations with dynamic sizes not counted" if dynamic else ""
            ctx.remark(
                func, f"fits in the capacity{where}: at most {peak} of {limit} bytes live{unknown}"
            )
        if dynamic:
            ctx.stat(
                "capacity-dynamic",
                dynamic,
                "Allocations with dynamic sizes in a memory space with a capacity (not counted)",
            )
    if fits:
        ctx.stat("capacity-fits", 1, "Functions whose buffers fit in the capacity")
    else:
        ctx.stat("capacity-over", 1, "Functions whose buffers need more than the capacity")


def emit_remarks(ctx: PassContext, lt: FunctionLifetimes) -> None:
    """One remark per allocation that cannot be pooled."""
    for i in range(len(lt)):
        reason = lt.reason(i)
        if reason is not None:
            ctx.remark(operation(lt.graph, int(lt.op[i])), f"not poolable: {reason}")


def run(module: ir.Operation, ctx: PassContext) -> None:
    graph = extract_graph(module)
    analysis = LifetimeAnalysis(graph)
    # Functions of nested modules too: each analysis is within one function.
    functions = [analysis.function(f) for f in function_ids(graph, nested=True)]
    capacity = ctx.options["capacity"].bounds
    for lt in functions:
        record_statistics(ctx, lt)
        if ctx.options["remarks"]:
            emit_remarks(ctx, lt)
        if capacity:
            check_capacity(ctx, lt, capacity)
    fmt = ctx.options["format"]
    if fmt == "none":
        return
    doc = report_dict(functions)
    text = json.dumps(doc, indent=1) if fmt == "json" else format_text(doc)
    if ctx.options["output"] == "-":
        print(text, file=sys.stdout)
        sys.stdout.flush()
    else:
        try:
            with open(ctx.options["output"], "w") as f:
                f.write(text + "\n")
        except OSError as err:
            ctx.error(
                module,
                f"memplan-buffer-liveness: cannot write the report to "
                f"'{ctx.options['output']}': {err.strerror}",
            )
