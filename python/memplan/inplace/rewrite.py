"""Rewrite mode: materialize memplan's out-of-place decisions as explicit
tensor copies, then let upstream one-shot-bufferize do the memref rewrite.

The copies are the ones upstream's TensorCopyInsertion would insert for the
same decisions (``resolveTensorOpOperandConflicts`` plus scf.for's yield
copies): ``bufferization.alloc_tensor() copy(%t)`` before the op for a copied
operand, after the op for ops that only create an alias (the result is
copied instead, e.g. tensor.extract_slice), and without ``copy`` when the
contents are never read. On the rewritten IR upstream's analysis finds no
conflict left, so its rewrite allocates and copies exactly where memplan
decided.
"""

from __future__ import annotations

from mlir import ir

from memplan.inplace.explain import can_omit_copy


def _alloc_tensor(value: ir.Value, copy: bool, loc: ir.Location, ip: ir.InsertionPoint) -> ir.Value:
    ttype = ir.RankedTensorType(value.type)
    dyn = []
    with loc, ip:
        reified = None if copy else _reified_dynamic_sizes(value)
        if reified is not None:
            dyn = reified
        elif not copy:
            index = ir.IndexType.get()
            for i in range(ttype.rank):
                if ttype.is_dynamic_dim(i):
                    c = ir.Operation.create("arith.constant", results=[index],
                                            attributes={"value": ir.IntegerAttr.get(index, i)})
                    d = ir.Operation.create("tensor.dim", results=[index], operands=[value, c.result])
                    dyn.append(d.result)
        operands = dyn + ([value] if copy else [])
        op = ir.Operation.create(
            "bufferization.alloc_tensor", results=[ttype], operands=operands,
            attributes={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([len(dyn), 1 if copy else 0, 0])})
    return op.result


class NotExact(Exception):
    """A copy memplan cannot materialize exactly like upstream."""


def _reified_dynamic_sizes(value: ir.Value):
    """Dynamic sizes as upstream's reifyResultShapes gives them, for the ops
    whose reification memplan mirrors; None for block arguments (tensor.dim)."""
    ttype = ir.RankedTensorType(value.type)
    if not any(ttype.is_dynamic_dim(i) for i in range(ttype.rank)):
        return []
    if not isinstance(value, ir.OpResult):
        return None
    op = value.owner
    op = op.operation if hasattr(op, "operation") else op
    if op.name == "tensor.empty":
        return list(op.operands)
    if op.name == "tensor.extract_slice":
        attrs = op.attributes
        sizes = list(attrs["static_sizes"])
        seg = list(attrs["operandSegmentSizes"])
        if len(sizes) != ttype.rank:
            raise NotExact("rank-reducing extract_slice")
        dyn_sizes = list(op.operands)[1 + seg[1]: 1 + seg[1] + seg[2]]
        return dyn_sizes
    raise NotExact(f"dynamic shape of {op.name}")


def plan_copies(ma) -> list[tuple]:
    """(kind, op id, operand index / value id, copy?) per copy to insert."""
    from memplan.inplace.driver import _post_order

    an = ma.an
    actions = []
    for scope in ma.scopes:
        for op in _post_order(an, scope):
            s = an.sem[op]
            if s is None or not s.bufferizable:
                continue
            for o in an.tensor_operands(op):
                if an.inplace[o]:
                    continue
                v = an.operands[o]
                if an.types[an.value_type[v]].kind != 1:
                    raise ValueError("copying of unranked tensors is not implemented")
                aliases = an.aliasing_values(o)
                copy = not can_omit_copy(ma, o)
                if (len(aliases) == 1 and an.value_op[aliases[0][0]] >= 0 and not an.write(o)
                        and len(an.aliasing_opoperands(aliases[0][0])) == 1):
                    actions.append(("result", op, aliases[0][0], copy))
                else:
                    actions.append(("operand", op, o - an.ob[op], copy))
            if an.op_name[op] == "scf.for":
                actions.extend(_for_yield_copies(ma, op))
    return actions


def _for_yield_copies(ma, op: int) -> list[tuple]:
    """scf.for's resolveConflicts: yielded values that alias a buffer from
    outside the loop (other than their iter_arg) get a fresh allocation."""
    an = ma.an
    block = an.entry_block(op)
    y = an.terminator(block)
    region = an.block_region[block]
    out = []
    args = list(an.block_args(block))
    for o in range(an.ob[y], an.ob[y + 1]):
        k = o - an.ob[y]
        if not an.is_tensor[an.operands[an.ob[op] + 3 + k]]:
            continue
        iter_arg = args[1 + k]
        ok = True
        for m in an.alias.members(an.operands[o]):
            if m == iter_arg:
                continue
            mr = an.value_region(m)
            if an.value_op[m] < 0:
                if not _region_properly_encloses(an, region, mr):
                    ok = False
            elif not (mr == region or _region_properly_encloses(an, region, mr)):
                ok = False
        if not ok:
            out.append(("yield", y, k, True))
    return out


def _region_properly_encloses(an, outer: int, inner: int) -> bool:
    r = inner
    while r >= 0:
        parent = an.region_op[r]
        r = an.op_region(parent)
        if r == outer:
            return True
    return False


def materialize_copies(ma) -> int:
    """Insert the copies of a finished Python analysis into the IR; returns
    how many were inserted."""
    an = ma.an
    return materialize_actions(plan_copies(ma), an.pyop, an.value_index)


def materialize_actions(actions: list[tuple], pyop, value_index) -> int:
    """Insert planned copies (see :func:`plan_copies`) into the IR the op ids
    refer to; ``pyop(op)`` gives the live op, ``value_index[v]`` the result
    number of a value id."""
    resolved = []
    for kind, op, what, copy in actions:
        py = pyop(op)
        if kind == "result":
            resolved.append((kind, py, py.results[int(value_index[what])], copy))
        else:
            resolved.append((kind, py, what, copy))
    after_points: dict = {}
    for kind, py, what, copy in resolved:
        loc = py.location
        if kind in ("operand", "yield"):
            value = py.operands[what]
            new = _alloc_tensor(value, copy, loc, ir.InsertionPoint(py))
            py.operands[what] = new
        else:
            value = what
            uses = [(u.owner, u.operand_number) for u in value.uses]
            ip = after_points.get(id(py))
            if ip is None:
                # One insertion point per op, as upstream: copies keep their order.
                ip = after_points[id(py)] = (ir.InsertionPoint.after(py), py)
            new = _alloc_tensor(value, copy, loc, ip[0])
            for owner, idx in uses:
                owner = owner.operation if hasattr(owner, "operation") else owner
                if owner.name == "tensor.dim":
                    continue
                owner.operands[idx] = new
    return len(resolved)


def copies_are_final(module: ir.Operation, opts, check_opts=None) -> bool:
    """Would upstream's analysis, re-run on the IR with memplan's copies, keep
    every operand in place? (Its analysis is not idempotent: a maybe-alias op
    such as arith.select or scf.if can tie a fresh copy back to the buffer it
    copies, and then it copies again.) Checked on a clone with memplan's own
    analysis, which makes upstream's decisions."""
    from memplan.inplace.driver import ModuleAnalysis

    trial = module.clone()
    try:
        ma = ModuleAnalysis(trial, opts)
        ma.run()
        try:
            materialize_copies(ma)
        except NotExact:
            return False
        check = ModuleAnalysis(trial, check_opts or opts)
        check.run()
        an = check.an
        for scope in check.scopes:
            for op in range(scope, an.op_end[scope] + 1):
                for o in an.tensor_operands(op):
                    if not an.inplace[o]:
                        return False
        return not an.errors
    finally:
        trial.erase()


def upstream_order(opts, values: dict):
    """``opts`` with the analysis order upstream's rewrite will re-analyze with
    (min-copy-bytes runs upstream bottom-up): the copies must survive that."""
    from dataclasses import replace

    h = values["analysis_heuristic"]
    if h == "min-copy-bytes":
        h = "bottom-up"
    return replace(opts, analysis_heuristic=h, analysis_fuzzer_seed=values["analysis_fuzzer_seed"])


def fast_materialize_and_bufferize(module: ir.Operation, fa, opts, values: dict) -> bool:
    """Rewrite mode through the C++ core: its decisions and copy plan (``fa``,
    analyzed with ``plan_copies``), the same clone check as
    :func:`materialize_and_bufferize`, then upstream's rewrite."""
    from memplan.inplace import fast
    from memplan.ir.graph import extract_graph, operation

    actions = fa.copy_actions()

    def ops_of(graph):
        cache: dict = {}  # one Python op per id: insertion points are keyed by op
        return lambda op: cache.get(op) or cache.setdefault(op, operation(graph, op))

    trial = module.clone()
    try:
        tg = extract_graph(trial)
        try:
            materialize_actions(actions, ops_of(tg), tg.value_index)
            final = True
        except NotExact:
            final = False
        if final:
            check = fast.analyze(trial, upstream_order(opts, values))
            final = check.all_in_place() if check.ok else None
    finally:
        trial.erase()
    if final is None:
        final = copies_are_final(module, opts, upstream_order(opts, values))  # the core declined the copied IR
    return _bufferize(module, values, final,
                      lambda: materialize_actions(actions, ops_of(fa.graph), fa.graph.value_index))


def materialize_and_bufferize(module: ir.Operation, ma, values: dict, ctx=None) -> bool:
    """Insert memplan's copies and run upstream's rewrite. Returns False (and
    runs upstream on the untouched IR) when upstream's re-analysis would add
    copies of its own."""
    final = copies_are_final(module, ma.opts, upstream_order(ma.opts, values))
    return _bufferize(module, values, final, lambda: materialize_copies(ma))


def _bufferize(module: ir.Operation, values: dict, final: bool, materialize) -> bool:
    """Upstream's rewrite, after memplan's copies when they are ``final``."""
    from memplan.inplace.bufferize import run_upstream

    if final:
        materialize()
    run_upstream(module, values)
    return final
