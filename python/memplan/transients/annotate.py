"""Write the transient plan as attributes (the test surface of the analysis)."""

from __future__ import annotations

from mlir import ir

from memplan.ir import sizeexpr as E
from memplan.ir.graph import operation
from memplan.transients.plan import ModulePlan

ALLOC_ATTR = "memplan.transient"
FUNC_ATTR = "memplan.transient_storage"
CALL_ATTR = "memplan.transient_call"


def _s(text: str) -> ir.StringAttr:
    return ir.StringAttr.get(text)


def annotate(plan: ModulePlan) -> None:
    """Attributes on allocations, functions and calls; the IR is otherwise unchanged.

    * alloc: ``{scope = @f, interval = [start, end], slot, offset = "...", size = "..."}``
      with the interval relative to the function op, or ``"heap: <reason>"``;
    * function: ``{argument = N | "new", size = "..."}``;
    * call: ``{callee = @g, offset = "...", size = "..."}``.
    """
    g = plan.graph
    i64 = ir.IntegerType.get_signless(64)
    for name, fp in plan.functions.items():
        for item in fp.items:
            op = operation(g, item.op)
            common = {"offset": _s(E.to_string(item.offset)), "size": _s(E.to_string(item.size))}
            if item.kind == "alloc":
                attrs = {
                    "scope": ir.FlatSymbolRefAttr.get(name),
                    "interval": ir.DenseI64ArrayAttr.get(
                        [item.start - fp.func, item.end - fp.func]
                    ),
                    "slot": ir.IntegerAttr.get(i64, item.slot),
                    **common,
                }
                if item.bound:
                    attrs["bound"] = _s(item.bound)
                op.attributes[ALLOC_ATTR] = ir.DictAttr.get(attrs)
            else:
                callee = g.callee(item.op) or ""
                op.attributes[CALL_ATTR] = ir.DictAttr.get(
                    {"callee": ir.FlatSymbolRefAttr.get(callee), **common}
                )
        for alloc, reason in fp.heap:
            operation(g, alloc).attributes[ALLOC_ATTR] = _s(f"heap: {reason}")
        argument = (
            ir.IntegerAttr.get(i64, fp.storage_index)
            if fp.storage_index is not None
            else _s("new" if fp.needs_storage else "none")
        )
        operation(g, fp.func).attributes[FUNC_ATTR] = ir.DictAttr.get(
            {"argument": argument, "size": _s(E.to_string(fp.total))}
        )
