"""The transient storage plan of a module (analysis only; the IR is unchanged).

For every function that takes caller storage, and every function it reaches
through calls, the plan lists the *items* that live in the storage:

* each transient ``memref.alloc``: one the lifetime analysis of buffer reuse
  finds poolable (freed in its block, not escaping, identity layout, default
  memory space), with its live interval;
* each call to a function that itself needs storage: the callee's whole
  storage, live at the call.

Item sizes are byte expressions over values hoistable to the function entry
(:mod:`memplan.ir.slices`); a size that is not hoistable but bounded by the IR
(``arith.minui %d, %c1024``, a loop bound) is over-allocated to the bound.
Statically sized items are packed by the buffer-reuse packer; dynamically
sized ones take slots in a linear scan over their intervals, each slot as large
as the ``max`` of the sizes that share it, laid out after the static part.
A callee's size enters its callers' expressions through leaves that carry the
call path, so ``A -> B -> C`` makes A's size contain B's, which contains C's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from memplan.ir import sizeexpr as E
from memplan.ir.callgraph import CallGraph, build_call_graph
from memplan.ir.graph import Graph, entry_block, value_namer
from memplan.ir.parse import location_prefix
from memplan.ir.slices import Blocked, Hoistable, SliceAnalysis
from memplan.lifetimes import reasons as R
from memplan.lifetimes import roles as K
from memplan.lifetimes.analysis import LifetimeAnalysis
from memplan.lifetimes.fit import buffer_note, bytes_text, over_capacity, point_text
from memplan.lifetimes.sizes import element_bytes
from memplan.reuse import packing
from memplan.transients.contract import find_storage, planned_query

DEFAULT_ALIGNMENT = 64

# Reasons of the lifetime analysis that we handle ourselves: dynamic sizes are
# hoisted to the function entry here, not to a pool scope.
_OWN_REASONS = R.bit("dynamic-size-not-hoistable")


@dataclass(frozen=True)
class PathLeaf(E.Leaf):
    """A leaf computed in a callee: ``path`` lists the call ops from the
    function that emits the expression down to the one that owns ``value``."""

    path: tuple[int, ...] = ()


@dataclass
class Item:
    """One thing placed in a function's storage."""

    kind: str  # "alloc" or "call"
    op: int
    start: int
    end: int
    size: E.Expr
    bound: Optional[str] = None  # why the size is an upper bound, if it is
    slot: int = -1
    offset: E.Expr = field(default_factory=lambda: E.Const(0))
    shared: tuple[int, ...] = ()
    """Allocations of the other branches of a branch group: never live with
    this one, they take the same bytes."""
    erase: tuple[int, ...] = ()
    """Ops to erase with it: the dealloc of a branch group's merged result."""


@dataclass
class Diagnostic:
    """A message about op ``op`` of the graph."""

    op: int
    message: str
    notes: tuple[tuple[int, str], ...] = ()
    """(op, text) notes attached to the error."""


@dataclass
class FunctionPlan:
    """Where each transient of one function goes, and the bytes it needs."""

    func: int
    name: str
    storage_index: Optional[int]  # the marked argument; None: a new one is added
    items: list[Item] = field(default_factory=list)
    heap: list[tuple[int, str]] = field(default_factory=list)  # (alloc op, reason)
    static_bytes: int = 0
    total: E.Expr = field(default_factory=lambda: E.Const(0))

    @property
    def needs_storage(self) -> bool:
        """The function needs transient storage."""
        return self.total != E.Const(0)


@dataclass
class ModulePlan:
    """The transient plan of every function of a module, and its errors."""

    graph: Graph
    callgraph: CallGraph
    functions: dict[str, FunctionPlan] = field(default_factory=dict)
    errors: list[Diagnostic] = field(default_factory=list)
    remarks: list[Diagnostic] = field(default_factory=list)
    #: Calls from functions without storage to functions that need it: the
    #: caller allocates the callee's storage on the heap around the call.
    heap_calls: list[int] = field(default_factory=list)
    #: SSA namers per function, for readable size expressions.
    namers: dict[int, Callable[[int], str]] = field(default_factory=dict)


def plan_module(
    graph: Graph,
    alignment: int = DEFAULT_ALIGNMENT,
    capacity: Optional[int] = None,
    budget: Optional[int] = None,
) -> ModulePlan:
    """Plan every function reachable from a function with caller storage.

    With ``capacity``, each function's storage (its transients and the
    storage of the callees it passes storage to) must fit in that many bytes:
    otherwise an error where the live bytes exceed it (with a note per item
    live there), or, when they do not but no packing was found within the
    exact search's ``budget``, the smallest found; a storage of dynamic size
    is an error too (its bytes cannot be checked)."""
    cg = build_call_graph(graph)
    plan = ModulePlan(graph, cg)
    roots: list[str] = []
    # Functions planned already (memplan-transients' own output): their
    # views, offsets and size query stand; they are not planned again.
    planned: dict[str, str] = {}
    for name, f in cg.funcs.items():
        storage = find_storage(graph, f)
        query = planned_query(graph, f)
        if storage.error:
            plan.errors.append(Diagnostic(f, storage.error))
        elif storage.index is None:
            continue
        elif query is None:
            roots.append(name)
        elif query not in cg.funcs:
            plan.errors.append(
                Diagnostic(
                    f,
                    f"@{name} was planned already, but its size query @{query} "
                    "(memplan.transient_size_fn) "
                    "does not exist: its storage size is unknown",
                )
            )
        else:
            planned[name] = query
            plan.remarks.append(
                Diagnostic(
                    f,
                    f"@{name} was planned already (its size query is @{query}): it is left as it "
                    "is",
                )
            )
    fixed = _fixed_signatures(graph, cg)
    reachable = _reachable(cg, roots, {**fixed, **planned})
    for name in reachable:
        for call, callee in cg.calls[cg.funcs[name]]:
            if callee in fixed and not cg.is_declaration(cg.funcs[callee]):
                plan.remarks.append(
                    Diagnostic(
                        call,
                        f"@{callee} {fixed[callee]}: its signature is kept, its transients stay "
                        "on the heap",
                    )
                )
    if plan.errors:
        return plan
    lifetimes = LifetimeAnalysis(graph)
    for name, query in planned.items():
        # Allocations made since (by hand, or by a later pass) stay on the
        # heap: the function's offsets and query are fixed.
        since = FunctionPlan(cg.funcs[name], name, None)
        _collect_allocs(ModulePlan(graph, cg), since, lifetimes, alignment)
        plan.remarks.extend(
            Diagnostic(
                it.op,
                f"allocation stays on the heap: @{name} was planned already "
                f"(its size query is @{query}) and is not planned again",
            )
            for it in since.items
        )
    for name in cg.order:
        if name not in reachable:
            continue
        f = cg.funcs[name]
        if cg.is_declaration(f):
            continue
        storage = find_storage(graph, f)
        fp = FunctionPlan(f, name, storage.index)
        _collect_allocs(plan, fp, lifetimes, alignment)
        _collect_calls(plan, fp)
        static = [it for it in fp.items if isinstance(it.size, E.Const)]
        worst = sum(-(-it.size.value // alignment) * alignment for it in static)
        if worst >= packing.SIZE_LIMIT:
            # The packer works in int64: its worst case must stay below its limit.
            plan.errors.append(
                Diagnostic(
                    static[0].op,
                    f"transient storage needs up to {worst} bytes; memplan packs less than 2^62",
                )
            )
            continue
        if capacity is not None:
            error = _layout_within(fp, alignment, capacity, budget, graph)
            if error is not None:
                plan.errors.append(error)
                continue
        else:
            _layout(fp, alignment, budget=budget)
        plan.functions[name] = fp
    # A recursive call graph is fine as long as none of it needs storage (its
    # size would have no bound).
    for scc in cg.recursive:
        needy = [n for n in scc if n in plan.functions and plan.functions[n].items]
        if needy:
            cycle = " -> ".join(f"@{n}" for n in scc + [scc[0]])
            plan.errors.append(
                Diagnostic(
                    cg.funcs[needy[0]],
                    f"recursive call graph ({cycle}) needs transient storage: its size cannot be "
                    "bounded",
                )
            )
    for name, f in cg.funcs.items():
        if name in reachable:
            continue
        for call, callee in cg.calls[f]:
            if callee in plan.functions and plan.functions[callee].needs_storage:
                plan.heap_calls.append(call)
                plan.remarks.append(
                    Diagnostic(
                        call,
                        f"@{name} has no transient storage: the storage of @{callee} is "
                        "heap-allocated around this call",
                    )
                )
    return plan


def _fixed_signatures(graph: Graph, cg: CallGraph) -> dict[str, str]:
    """Functions without storage whose signature must not change, and why:
    public ones (external callers would break) and those a symbol use other
    than a call's callee references (``func.constant``, whose result type is
    the function's type; any op that names the function: SymbolTable uses
    without the CallOpInterface callees)."""
    fixed: dict[str, str] = {}
    for name, f in cg.funcs.items():
        if find_storage(graph, f).index is None and cg.is_public(f):
            fixed[name] = "is public and takes no memplan.transients storage"
    for op, name in graph.non_call_symbol_uses():
        if name in cg.funcs and find_storage(graph, cg.funcs[name]).index is None:
            where = location_prefix(graph.location(op))
            fixed.setdefault(name, f"is referenced by {graph.names[graph.op_name[op]]} at {where}")
    return fixed


def _reachable(cg: CallGraph, roots: list[str], stop: dict[str, str]) -> set[str]:
    """Functions planned with the roots: reached by calls, never through a
    function in ``stop`` (its signature is fixed, or it was planned already)."""
    seen = set(roots)
    work = list(roots)
    while work:
        f = cg.funcs[work.pop()]
        for _, callee in cg.calls[f]:
            if callee in cg.funcs and callee not in seen and callee not in stop:
                seen.add(callee)
                work.append(callee)
    return seen


def _collect_allocs(
    plan: ModulePlan, fp: FunctionPlan, lifetimes: LifetimeAnalysis, alignment: int
) -> None:
    g = plan.graph
    lt = lifetimes.function(fp.func)
    entry = entry_block(g, fp.func)
    slices = SliceAnalysis(g, fp.func)
    # A branch group is one item, as in buffer reuse: its first member
    # carries the others.
    group_of = lt.group_of()
    followers = {int(r) for grp in lt.groups for r in grp.rows[1:]}
    for i in range(len(lt)):
        op = int(lt.op[i])
        if lt.is_alloca[i] or i in followers:
            continue
        mask = int(lt.reasons[i]) & ~_OWN_REASONS
        if mask & R.bit("size-overflow"):
            plan.errors.append(Diagnostic(op, f"transient {lt.reason_detail(i)}"))
            continue
        if mask:
            reason = R.primary(mask)
            fp.heap.append((op, reason))
            plan.remarks.append(
                Diagnostic(op, f"allocation stays on the heap: {lt.reason_detail(i)}")
            )
            continue
        if int(lt.hoist_scope[i]) != entry:
            fp.heap.append((op, "parallel-region"))
            plan.remarks.append(
                Diagnostic(
                    op,
                    "allocation stays on the heap: inside a parallel region, its iterations may "
                    "overlap",
                )
            )
            continue
        size, bound = _alloc_size(plan, slices, op, alignment)
        if size is None:
            if bound is not None:  # left on the heap, not an error
                fp.heap.append((op, "guarded-size"))
                plan.remarks.append(Diagnostic(op, f"allocation stays on the heap: {bound}"))
            continue
        if bound:
            plan.remarks.append(Diagnostic(op, f"size over-allocated to its bound: {bound}"))
        item = Item("alloc", op, int(lt.start[i]), int(lt.end[i]), size, bound)
        if group_of[i] >= 0:
            grp = lt.groups[int(group_of[i])]
            item.size = E.const(max(int(lt.bytes[r]) for r in grp.rows))
            item.shared = tuple(int(lt.op[r]) for r in grp.rows[1:])
            item.erase = (grp.dealloc,) if grp.dealloc >= 0 else ()
        fp.items.append(item)


def _alloc_size(plan: ModulePlan, slices: SliceAnalysis, op: int, alignment: int):
    """``(size, bound note)``: the byte size of an alloc as an expression;
    ``(None, None)`` after an error; ``(None, why)`` when it stays on the heap."""
    g = plan.graph
    value = int(g.result_begin[op])
    info = g.types[g.value_type[value]]
    size: E.Expr = E.const(element_bytes(info))
    for d in info.shape:
        if d >= 0:
            size = E.mul(size, E.const(d))
    notes = []
    for v in g.operands[g.operand_begin[op] : g.operand_begin[op + 1]]:
        v = int(v)
        term, note = _hoisted_or_bounded(plan, slices, v)
        if term is None:
            blocked = slices.classify(v)
            if blocked.kind == "guarded":
                return None, f"its size {blocked.message}, and no bound is known"
            plan.errors.append(
                Diagnostic(
                    op,
                    f"transient size {blocked.message}; cannot compute it from the function "
                    "arguments",
                )
            )
            return None, None
        if note:
            notes.append(note)
        size = E.mul(size, term)
    return size, "; ".join(notes) or None


def _hoisted_or_bounded(plan: ModulePlan, slices: SliceAnalysis, v: int):
    """A hoistable leaf for ``v``, or an upper bound, or (None, None)."""
    r = slices.classify(v)
    if isinstance(r, Hoistable):
        return _leaf(plan, v), None
    bound = _upper_bound(plan, slices, v, depth=0)
    if bound is None:
        return None, None
    return bound, f"{_describe(plan, v)} <= {E.to_string(bound)}"


def _upper_bound(plan: ModulePlan, slices: SliceAnalysis, v: int, depth: int) -> Optional[E.Expr]:
    """An expression >= ``v`` over hoistable values, when the IR states one.

    Handles ``arith.minui``/``minsi`` with a bounded side, non-negative sums and
    products of bounded values, unsigned quotients and remainders (at most the
    dividend), constants, and the induction variables of loops
    (LoopLikeOpInterface: ``scf.for``, ``affine.for``; below their upper
    bound, for a non-negative lower bound).
    """
    if depth > 32:
        return None
    g = plan.graph
    if isinstance(slices.classify(v), Hoistable):
        return _leaf(plan, v)
    op = int(g.value_op[v])
    if op < 0:
        # A loop's induction variable (LoopLikeOpInterface) is below its
        # upper bound; with a non-negative lower bound it is a size.
        bounds = g.induction_bounds(v)
        if bounds is None:
            return None
        lb_value, lb_const, ub_value, ub_const = bounds
        if lb_const is None or lb_const < 0:
            return None
        if ub_value >= 0:
            return _upper_bound(plan, slices, ub_value, depth + 1)
        return E.const(ub_const) if ub_const is not None else None
    # Which function these ops compute (a minimum, a sum, a quotient) is read
    # by name: in MLIR 22.1.8 arith's unsigned min/max/div/rem and every
    # index op lack ValueBoundsOpInterface, and what it states for the others
    # is affine (no product of two bounded values; the closed bound of an
    # induction variable, ub - 1, has a negative term). Every other op is
    # asked through the interface (_value_bound).
    name = g.names[g.op_name[op]]
    operands = [int(x) for x in g.operands[g.operand_begin[op] : g.operand_begin[op + 1]]]
    if name in ("arith.minui", "arith.minsi", "index.minu", "index.mins"):
        bounds = [
            b for b in (_upper_bound(plan, slices, x, depth + 1) for x in operands) if b is not None
        ]
        return bounds[0] if bounds else None
    if name in (
        "arith.divui",
        "arith.ceildivui",
        "arith.remui",
        "index.divu",
        "index.ceildivu",
        "index.remu",
    ):
        # Unsigned: the quotient (rounded up too) and the remainder are at
        # most the dividend (a zero divisor traps before the size is used).
        return _upper_bound(plan, slices, operands[0], depth + 1)
    if name in ("arith.addi", "arith.muli", "arith.maxui", "index.add", "index.mul", "index.maxu"):
        a, b = (_upper_bound(plan, slices, x, depth + 1) for x in operands)
        if a is None or b is None:
            return None
        if name.endswith(("addi", "add")):
            return E.add(a, b)
        if name.endswith(("muli", "mul")):
            return E.mul(a, b)
        return E.maximum(a, b)
    return _value_bound(plan, slices, v)


def _value_bound(plan: ModulePlan, slices: SliceAnalysis, v: int) -> Optional[E.Expr]:
    """The closed constant upper bound upstream's ValueBoundsOpInterface
    states for ``v`` (``affine.min``, ``affine.apply``, ``arith.subi``, loop
    induction variables, ...), hoistable values taken as unknowns, when it is
    not negative."""
    bound = plan.graph.upper_bound(v, lambda x: isinstance(slices.classify(x), Hoistable))
    return E.const(bound) if bound is not None and bound >= 0 else None


def _constant(g: Graph, v: int) -> Optional[int]:
    """The integer value of ``v`` when a constant op (ConstantLike) defines it."""
    op = int(g.value_op[v])
    return g.constant_int(op) if op >= 0 else None


def _leaf(plan: ModulePlan, v: int) -> E.Expr:
    """A constant when a constant op defines ``v``, else a leaf."""
    value = _constant(plan.graph, v)
    if value is not None:
        return E.const(value)
    return PathLeaf(v, _describe(plan, v), ())


def _describe(plan: "ModulePlan", v: int) -> str:
    """The value's SSA name in its function, for expressions in attributes."""
    func = function_of(plan.graph, v)
    if func not in plan.namers:
        plan.namers[func] = value_namer(plan.graph, func)
    return plan.namers[func](v)


def function_of(g: Graph, v: int) -> int:
    """The function (FunctionOpInterface) that defines value ``v``."""
    op = int(g.value_op[v])
    op = op if op >= 0 else int(g.block_parent_op[g.value_block[v]])
    while op >= 0 and int(g.op_role[op]) & 0xFF != K.FUNC:
        op = int(g.op_parent[op])
    return op


def _collect_calls(plan: ModulePlan, fp: FunctionPlan) -> None:
    g = plan.graph
    slices = SliceAnalysis(g, fp.func)
    for call, callee in plan.callgraph.calls[fp.func]:
        cp = plan.functions.get(callee)
        if cp is None or not cp.needs_storage:
            continue
        size = _through_call(plan, slices, call, cp)
        if size is None:
            continue
        # The callee's storage is live for the call only; nested ops lift to
        # the enclosing op in the function's block, like allocation uses.
        anchor = g.ancestor_in_block(entry_block(g, fp.func), call)
        fp.items.append(Item("call", call, anchor, int(g.op_end[anchor]) + 1, size))


def _through_call(
    plan: ModulePlan, slices: SliceAnalysis, call: int, callee: FunctionPlan
) -> Optional[E.Expr]:
    """The callee's total with its leaves seen through ``call``; checks that
    the call operands those leaves read are hoistable in the caller."""
    g = plan.graph
    callee_slices = SliceAnalysis(g, callee.func)
    first_arg = int(g.block_arg_begin[entry_block(g, callee.func)])
    operands = [int(x) for x in g.operands[g.operand_begin[call] : g.operand_begin[call + 1]]]
    needed: set[int] = set()
    for leaf in E.leaf_nodes(callee.total):
        if leaf.path:
            # A leaf of a deeper callee: it reads operands of a call inside the
            # callee, which the callee's own plan already checked hoistable.
            first = leaf.path[0]
            for k in _args_read(g, callee_slices, first):
                needed.add(k)
            continue
        r = callee_slices.classify(leaf.value)
        for arg in r.args:
            needed.add(arg - first_arg)
    for k in sorted(needed):
        if k >= len(operands):
            continue
        r = slices.classify(operands[k])
        if isinstance(r, Blocked):
            plan.errors.append(
                Diagnostic(
                    call,
                    f"the transient size of @{callee.name} depends on call operand #{k}, which "
                    f"{r.message}",
                )
            )
            return None
    return seen_through_call(callee.total, call, callee.name)


def _args_read(g: Graph, slices: SliceAnalysis, call: int) -> set[int]:
    """Argument numbers of the function that a nested call's operands read."""
    first_arg = int(g.block_arg_begin[entry_block(g, slices.func)])
    out: set[int] = set()
    for v in g.operands[g.operand_begin[call] : g.operand_begin[call + 1]]:
        r = slices.classify(int(v))
        if isinstance(r, Hoistable):
            out.update(a - first_arg for a in r.args)
    return out


def seen_through_call(e: E.Expr, call: int, callee: str) -> E.Expr:
    """A callee's expression ``e`` as seen from the function making ``call``;
    leaf names gain the callee's name (``@g:%arg0``)."""
    if isinstance(e, PathLeaf):
        return PathLeaf(e.value, f"@{callee}:{e.name}", (call,) + e.path)
    if isinstance(e, E.Op):
        return E.Op(
            e.kind, seen_through_call(e.lhs, call, callee), seen_through_call(e.rhs, call, callee)
        )
    if isinstance(e, E.AlignUp):
        return E.AlignUp(seen_through_call(e.operand, call, callee), e.alignment)
    return e


def _layout_within(
    fp: FunctionPlan, alignment: int, capacity: int, budget: Optional[int], graph: Graph
) -> Optional[Diagnostic]:
    """:func:`_layout` in at most ``capacity`` bytes of storage, or the error."""
    dynamic = [it for it in fp.items if not isinstance(it.size, E.Const)]
    if dynamic:
        return Diagnostic(
            dynamic[0].op,
            f"the transient storage of @{fp.name} has a dynamic size "
            f"({E.to_string(dynamic[0].size)} bytes here): it cannot be "
            f"checked against the capacity of {capacity} bytes",
        )
    starts = np.array([it.start for it in fp.items], dtype=np.int64)
    ends = np.array([it.end for it in fp.items], dtype=np.int64)
    sizes = np.array([it.size.value for it in fp.items], dtype=np.int64)
    # The storage is a whole number of alignment units.
    usable = capacity // alignment * alignment
    over = over_capacity(starts, ends, sizes, usable, alignment)
    if over is not None:
        needed = -(-over.needed // alignment) * alignment
        notes = tuple((fp.items[k].op, _item_note(graph, fp.items[k])) for k in over.live)
        return Diagnostic(
            over.point,
            f"the transients of @{fp.name} live at "
            f"{point_text(graph, over.point, fp.func)} need "
            f"{bytes_text(over.live_bytes, needed)}, more than the capacity "
            f"of {capacity} bytes",
            notes,
        )
    try:
        _layout(fp, alignment, usable, budget)
    except packing.CapacityError as err:
        return Diagnostic(fp.func, f"the transient storage of @{fp.name}: {err}")
    return None


def _item_note(graph: Graph, it: Item) -> str:
    if it.kind == "call":
        return f"live here: the transient storage of @{graph.callee(it.op)} ({it.size.value} bytes)"
    return buffer_note(graph, it.op, it.size.value)


def _layout(
    fp: FunctionPlan, alignment: int, capacity: Optional[int] = None, budget: Optional[int] = None
) -> None:
    """Offsets for every item and the function's total (its static part
    packed in at most ``capacity`` bytes, or :class:`packing.CapacityError`)."""
    static = [it for it in fp.items if isinstance(it.size, E.Const)]
    dynamic = [it for it in fp.items if not isinstance(it.size, E.Const)]
    if static:
        result = packing.pack(
            np.array([it.start for it in static], dtype=np.int64),
            np.array([it.end for it in static], dtype=np.int64),
            np.array([it.size.value for it in static], dtype=np.int64),
            algorithm="best",
            alignment=alignment,
            capacity=capacity,
            budget=budget,
        )
        for it, off in zip(static, result.offsets):
            it.offset = E.const(int(off))
        fp.static_bytes = -(-int(result.pool_size) // alignment) * alignment
    # Dynamic items: linear scan over intervals; a slot is reused once its
    # last occupant is dead, and grows to the max of its occupants' sizes.
    slots: list[list[Item]] = []
    slot_free_at: list[int] = []
    for it in sorted(dynamic, key=lambda x: (x.start, x.op)):
        for s, free_at in enumerate(slot_free_at):
            if free_at <= it.start:
                slots[s].append(it)
                slot_free_at[s] = it.end
                it.slot = s
                break
        else:
            it.slot = len(slots)
            slots.append([it])
            slot_free_at.append(it.end)
    offset: E.Expr = E.const(fp.static_bytes)
    for members in slots:
        size = members[0].size
        for m in members[1:]:
            size = E.maximum(size, m.size)
        for m in members:
            m.offset = offset
        offset = E.add(offset, E.align_up(size, alignment))
    fp.total = offset
