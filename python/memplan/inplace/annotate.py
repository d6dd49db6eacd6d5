"""Write the analysis results into the IR exactly as upstream's
``test-analysis-only`` / ``print-conflicts`` / ``dump-alias-sets`` do."""

from __future__ import annotations

from mlir import ir

from memplan.inplace.driver import ModuleAnalysis


def annotate(ma: ModuleAnalysis) -> None:
    an = ma.an
    opts = ma.opts
    str_attrs = {s: ir.StringAttr.get(s) for s in ("none", "true", "false")}
    cache: dict[tuple, ir.Attribute] = {}
    unit = ir.UnitAttr.get()
    for (op, name) in an.annotations:
        an.pyop(op).attributes[name] = unit
    if opts.test_analysis_only:
        operands, is_tensor, inplace = an.operands, an.is_tensor, an.inplace
        for scope in ma.scopes:
            for op in range(scope, an.op_end[scope] + 1):
                b, e = an.ob[op], an.ob[op + 1]
                if b == e:
                    continue
                key = tuple(
                    ("true" if inplace[o] else "false") if operands[o] >= 0 and is_tensor[operands[o]] else "none"
                    for o in range(b, e))
                if "true" not in key and "false" not in key:
                    continue
                attr = cache.get(key)
                if attr is None:
                    attr = ir.ArrayAttr.get([str_attrs[k] for k in key])
                    cache[key] = attr
                an.pyop(op).attributes["__inplace_operands_attr__"] = attr
        if opts.bufferize_function_boundaries:
            i64 = ir.IntegerType.get_signless(64)
            for f in ma.scopes:
                facts = ma.func_facts.get(f)
                if facts is None:
                    continue
                for ret, per in facts["equiv_annot"].items():
                    n = an.ob[ret + 1] - an.ob[ret]
                    vals = [per.get(i, -1) for i in range(n)]
                    an.pyop(ret).attributes["__equivalent_func_args__"] = ir.ArrayAttr.get(
                        [ir.IntegerAttr.get(i64, x) for x in vals])
                _set_arg_access(an.pyop(f), facts["access"])
            # Declarations are in the function order too (no body, no scope).
            for f, facts in ma.func_facts.items():
                if f not in ma.scopes:
                    _set_arg_access(an.pyop(f), facts["access"])
    if opts.dump_alias_sets:
        _dump_alias_sets(ma)


def _set_arg_access(func: ir.Operation, access: dict) -> None:
    if not access:
        return
    attrs = func.attributes
    ftype = ir.FunctionType(ir.TypeAttr(attrs["function_type"]).value)
    n = len(ftype.inputs)
    old = ir.ArrayAttr(attrs["arg_attrs"]) if "arg_attrs" in attrs else None
    dicts = []
    for i in range(n):
        entries = {}
        if old is not None:
            d = ir.DictAttr(old[i])
            for j in range(len(d)):
                na = d[j]
                entries[na.name] = na.attr
        if i in access:
            entries["bufferization.access"] = ir.StringAttr.get(access[i])
        dicts.append(ir.DictAttr.get(entries))
    attrs["arg_attrs"] = ir.ArrayAttr.get(dicts)


def _dump_alias_sets(ma: ModuleAnalysis) -> None:
    an = ma.an
    for scope in ma.scopes:
        state = ir.AsmState(an.pyop(scope))
        names: dict[int, ir.Attribute] = {}

        def name_of(v: int) -> ir.Attribute:
            a = names.get(v)
            if a is None:
                a = ir.StringAttr.get(_value(an, v).get_name(state))
                names[v] = a
            return a

        def aliases(v: int) -> ir.Attribute:
            return ir.ArrayAttr.get([name_of(m) for m in an.alias.members(v)])

        for op in range(scope, an.op_end[scope] + 1):
            res = an.tensor_results(op)
            py = None
            if res:
                py = an.pyop(op)
                py.attributes["__opresult_alias_set_attr__"] = ir.ArrayAttr.get([aliases(r) for r in res])
            regions = list(an.regions_of(op))
            has = False
            region_attrs = []
            for r in regions:
                block_attrs = []
                for b in an.region_blocks_of(r):
                    args = [a for a in an.block_args(b) if an.is_tensor[a]]
                    has = has or bool(args)
                    block_attrs.append(ir.ArrayAttr.get([aliases(a) for a in args]))
                region_attrs.append(ir.ArrayAttr.get(block_attrs))
            if has:
                py = py or an.pyop(op)
                py.attributes["__bbarg_alias_set_attr__"] = ir.ArrayAttr.get(region_attrs)


def _value(an, v: int) -> ir.Value:
    op = an.value_op[v]
    if op >= 0:
        return an.pyop(op).results[an.value_index[v]]
    b = an.value_block[v]
    parent = an.pyop(an.block_parent[b])
    r = an.block_region[b]
    region = parent.regions[r - an.region_begin[an.block_parent[b]]]
    pos = an.region_blocks_of(r).index(b)
    block = list(region.blocks)[pos]
    return block.arguments[an.value_index[v]]
