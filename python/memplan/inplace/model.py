"""Per-op bufferization models: upstream's BufferizableOpInterface answers.

Each ``_op_*`` function fills an :class:`OpSem` for one op, following the
upstream MLIR 22 external models (tensor, linalg, scf, bufferization, arith,
vector, func). The rules were checked one by one against ``mlir-opt
--one-shot-bufferize="test-analysis-only print-conflicts"``.
"""

from __future__ import annotations

from mlir import ir

from memplan.inplace.semantics import (
    ARITH_BUFFERIZABLE,
    BUFFERIZABLE_DIALECTS,
    EQUIV,
    UNKNOWN,
    OpSem,
    Unsupported,
)


def is_allowed(an, op: int) -> bool:
    """BufferizationOptions::isOpAllowed."""
    name = an.op_name[op]
    dialect = name.split(".", 1)[0]
    if dialect == "func" and not an.opts.bufferize_function_boundaries:
        return False
    if an.opts.dialect_filter and dialect not in an.opts.dialect_filter:
        return False
    if an.opts.no_analysis_func_filter and in_filtered_function(an, op):
        return False
    return True


# Ops implementing FunctionOpInterface (upstream's no-analysis-func-filter
# matches the nearest one enclosing an op, or the op itself, by symbol name).
FUNCTION_LIKE = {
    "func.func", "gpu.func", "llvm.func", "spirv.func", "ml_program.func", "ml_program.subgraph",
    "async.func", "emitc.func", "transform.named_sequence",
}


def in_filtered_function(an, op: int) -> bool:
    """The op, or the function-like op closest around it, is named in
    ``no-analysis-func-filter`` (upstream denies such ops: they are not
    analyzed, and calls into such functions stay conservative)."""
    names = an.opts.no_analysis_func_filter
    cache = an.filtered_funcs
    p = op
    while p >= 0 and an.op_name[p] not in FUNCTION_LIKE:
        p = an.op_parent[p]
    if p < 0:
        return False
    hit = cache.get(p)
    if hit is None:
        attrs = an.pyop(p).attributes
        hit = "sym_name" in attrs and ir.StringAttr(attrs["sym_name"]).value in names
        cache[p] = hit
    return hit


def unknown_sem(an, op: int) -> OpSem:
    s = OpSem(bufferizable=False)
    targets = [(r, UNKNOWN, False) for r in an.tensor_results(op)]
    for r in an.regions_of(op):
        blocks = an.region_blocks_of(r)
        if blocks:
            targets += [(a, UNKNOWN, False) for a in an.block_args(blocks[0]) if an.is_tensor[a]]
    for o in an.tensor_operands(op):
        s.read[o] = True
        s.write[o] = True
        s.alias[o] = list(targets)
    return s


def has_tensors(an, op: int) -> bool:
    """The op has tensor operands, results or block arguments."""
    if an.tensor_operands(op) or an.tensor_results(op):
        return True
    for r in an.regions_of(op):
        for b in an.region_blocks_of(r):
            if any(an.is_tensor[a] for a in an.block_args(b)):
                return True
    return False


def describe(an, op: int):
    """The OpSem of ``op``, or None for ops without bufferization relevance."""
    name = an.op_name[op]
    if name == "builtin.module":
        return None
    if an.opts.no_analysis_func_filter and in_filtered_function(an, op):
        # Denied by no-analysis-func-filter: never analyzed, whatever it is.
        return unknown_sem(an, op) if has_tensors(an, op) else None
    if name in UNKNOWN_REGION_OPS:
        return _unknown_region_op(an, op)
    if name in _EXCLUSIVE_REGIONS and not is_allowed(an, op):
        # Denied by dialect-filter: an unknown op, but its regions stay
        # mutually exclusive (insideMutuallyExclusiveRegions asks the
        # RegionBranchOpInterface, not the bufferization model).
        s = unknown_sem(an, op) if has_tensors(an, op) else OpSem(bufferizable=False)
        s.region_branch = True
        return s
    if not an.touches_tensors[op] and (name not in _ALWAYS or not is_allowed(an, op)):
        if an.region_begin[op + 1] > an.region_begin[op] and name.split(".", 1)[0] in BUFFERIZABLE_DIALECTS \
                and name not in _ALWAYS and name not in _REGION_OK and not name.startswith("linalg."):
            raise Unsupported(op, f"memplan's in-place analysis does not model '{name}'")
        return None
    if not is_allowed(an, op):
        return unknown_sem(an, op) if has_tensors(an, op) else None
    fn = _MODELS.get(name)
    if name in UPSTREAM_UNKNOWN:
        fn = None  # not bufferizable upstream either: an unknown op
    elif fn is None and name.startswith("linalg.") and _is_structured_linalg(an, op):
        fn = _op_linalg
    if fn is not None:
        return fn(an, op, OpSem())
    dialect = name.split(".", 1)[0]
    modeled_dialect = (dialect in BUFFERIZABLE_DIALECTS or name in ARITH_BUFFERIZABLE) \
        and name not in UPSTREAM_UNKNOWN
    if modeled_dialect:
        if has_tensors(an, op) or (an.region_begin[op + 1] > an.region_begin[op]
                                    and name not in _REGION_OK):
            raise Unsupported(op, f"memplan's in-place analysis does not model '{name}'")
        return None
    if not has_tensors(an, op):
        return None
    if not an.opts.allow_unknown_ops:
        raise Unsupported(
            op, f"op '{name}' is not bufferizable; pass allow-unknown-ops to treat it as "
            "an unknown op (its tensor operands read, written and aliasing every result)")
    return unknown_sem(an, op)


# Ops of bufferizable dialects that upstream (MLIR 22) does not bufferize:
# unknown ops there too (checked with mlir-opt: their results are not writable).
UPSTREAM_UNKNOWN = {"linalg.pack", "linalg.unpack", "tensor.bitcast", "scf.reduce.return", "affine.yield"}

# Registered region ops of bufferizable dialects without a BufferizableOpInterface
# model upstream (MLIR 22): unknown ops whose bodies are still analyzed, as
# straight-line code -- their regions are neither repetitive nor parallel for
# the analysis (e.g. an scf.parallel body is not privatized and a read before a
# write in it is no conflict; checked with mlir-opt). The value says whether
# the op is a RegionBranchOpInterface with mutually exclusive regions (upstream's
# insideMutuallyExclusiveRegions does not ask for bufferizability).
UNKNOWN_REGION_OPS = {
    "scf.parallel": False,
    "scf.reduce": False,
    "affine.for": False,
    "affine.parallel": False,
    "affine.if": True,
}


def _unknown_region_op(an, op: int):
    name = an.op_name[op]
    exclusive = UNKNOWN_REGION_OPS[name]
    if not has_tensors(an, op):
        return OpSem(bufferizable=False, region_branch=True) if exclusive else None
    if not an.opts.allow_unknown_ops and is_allowed(an, op):
        raise Unsupported(
            op, f"op '{name}' is not bufferizable upstream; pass allow-unknown-ops to treat it as "
            "an unknown op (its tensor operands read, written and aliasing every result)")
    s = unknown_sem(an, op)
    s.region_branch = exclusive
    return s

# RegionBranchOpInterface ops with mutually exclusive regions.
_EXCLUSIVE_REGIONS = {"scf.if", "scf.index_switch"}

# Ops whose regions matter even without tensors (repetitive / branching).
_ALWAYS = {"scf.for", "scf.while", "scf.forall", "scf.if", "scf.index_switch", "scf.execute_region", "func.func"}

_REGION_OK = {"linalg.yield", "tensor.yield", "scf.yield", "vector.yield", "scf.condition", "scf.forall.in_parallel"}


def _operand(an, op: int, i: int) -> int:
    return an.ob[op] + i


def _set(s: OpSem, o: int, read: bool, write: bool, alias=()) -> None:
    s.read[o] = read
    s.write[o] = write
    s.alias[o] = list(alias)


# ----------------------------------------------------------------- tensor
def _op_alloc_like(an, op, s):
    """Ops without tensor operands that allocate a new tensor with contents."""
    for o in an.tensor_operands(op):
        _set(s, o, True, False)
    for r in an.tensor_results(op):
        s.allocation.add(r)
    return s


def _op_empty(an, op, s):
    for r in an.tensor_results(op):
        s.allocation.add(r)
        s.result_write[r] = False
    return s


def _op_view(relation):
    def fn(an, op, s):
        res = an.tensor_results(op)
        for o in an.tensor_operands(op):
            if o == an.ob[op]:
                _set(s, o, False, False, [(res[0], relation, True)])
            else:
                _set(s, o, True, False)  # e.g. tensor.reshape's shape operand
        if relation == EQUIV and an.op_name[op] == "tensor.cast":
            s.is_cast = True
        return s
    return fn


def _op_extract_slice(an, op, s):
    src = an.ob[op]
    _set(s, src, False, False, [(an.rb[op], UNKNOWN, True)])
    return s


def _op_insert_slice(an, op, s):
    src, dest = an.ob[op], an.ob[op] + 1
    _set(s, src, True, False)
    _set(s, dest, _insert_reads_dest(an, op), True, [(an.rb[op], EQUIV, True)])
    s.subset_insert = (src, dest)
    return s


def _insert_reads_dest(an, op) -> bool:
    """The destination is not read when the slice overwrites all of it."""
    key = an.slice_key(op) if an.sem[op] is not None else None
    if key is None:
        from memplan.inplace.analysis import _slice_key
        key = _slice_key(an, op)
    offsets, sizes, strides = key
    dest_shape = an.types[an.value_type[an.operands[an.ob[op] + 1]]].shape
    all_zero = all(k == ("c", 0) for k in offsets)
    sizes_match = len(sizes) == len(dest_shape) and all(
        k[0] == "c" and k[1] == d for k, d in zip(sizes, dest_shape))
    strides_one = all(k == ("c", 1) for k in strides)
    return not (all_zero and sizes_match and strides_one)


def _op_read_only(an, op, s):
    for o in an.tensor_operands(op):
        _set(s, o, True, False)
    return s


def _op_no_access(an, op, s):
    for o in an.tensor_operands(op):
        _set(s, o, False, False)
    return s


def _op_dps_all_read(an, op, s):
    """DstBufferizableOpInterfaceExternalModel: every tensor operand read, the
    init written and equivalent to its tied result."""
    inits = _dps_inits(an, op)
    for o in an.tensor_operands(op):
        if o in inits:
            _set(s, o, True, True, [(inits[o], EQUIV, True)])
        else:
            _set(s, o, True, False)
    return s


def _dps_inits(an, op) -> dict:
    """Init operand id -> tied result, for ops whose inits are the trailing
    operands tied to results in order (tensor.insert, vector.transfer_write)."""
    name = an.op_name[op]
    if name == "tensor.insert":
        return {an.ob[op] + 1: an.rb[op]}
    if name == "vector.transfer_write":
        return {an.ob[op] + 1: an.rb[op]} if an.nres[op] else {}
    raise Unsupported(op, f"no destination-style model for '{name}'")


# ----------------------------------------------------------------- linalg
_REDUCING = {
    "linalg.matmul", "linalg.batch_matmul", "linalg.matvec", "linalg.vecmat", "linalg.dot",
    "linalg.batch_matvec", "linalg.batch_vecmat", "linalg.reduce", "linalg.batch_reduce_matmul",
    "linalg.contract", "linalg.mmt4d", "linalg.batch_mmt4d", "linalg.quantized_matmul",
    "linalg.quantized_batch_matmul", "linalg.matmul_transpose_a", "linalg.matmul_transpose_b",
    "linalg.batch_matmul_transpose_a", "linalg.batch_matmul_transpose_b",
}
_ELEMENTWISE_NAMED = {
    "linalg.copy", "linalg.map", "linalg.fill", "linalg.add", "linalg.sub", "linalg.mul",
    "linalg.div", "linalg.div_unsigned", "linalg.max", "linalg.min", "linalg.powf",
    "linalg.exp", "linalg.log", "linalg.abs", "linalg.ceil", "linalg.floor", "linalg.negf",
    "linalg.reciprocal", "linalg.round", "linalg.sqrt", "linalg.rsqrt", "linalg.square",
    "linalg.tanh", "linalg.erf", "linalg.select",
}


def _is_structured_linalg(an, op) -> bool:
    name = an.op_name[op]
    if name in ("linalg.yield", "linalg.index", "linalg.pack", "linalg.unpack", "linalg.softmax",
                "linalg.winograd_filter_transform", "linalg.winograd_input_transform",
                "linalg.winograd_output_transform"):
        return False
    return "operandSegmentSizes" in an.pyop(op).attributes or name in ("linalg.map", "linalg.reduce",
                                                                      "linalg.transpose", "linalg.broadcast")


def _op_linalg(an, op, s):
    py = an.pyop(op)
    attrs = py.attributes
    n = an.ob[op + 1] - an.ob[op]
    if "operandSegmentSizes" in attrs:
        seg = list(attrs["operandSegmentSizes"])
        n_ins, n_outs = seg[0], seg[1]
    else:
        n_outs = an.nres[op]
        n_ins = n - n_outs
    if n_ins + n_outs != n:
        raise Unsupported(op, f"unexpected operands of '{an.op_name[op]}'")
    results = list(an.results(op))
    if any(an.is_tensor[an.operands[an.ob[op] + n_ins + i]] for i in range(n_outs)) and len(results) != n_outs:
        raise Unsupported(op, "linalg op with tensor inits but a different number of results")
    # payloadUsesValueForOperand: the matching body argument has uses.
    block = an.entry_block(op) if an.region_begin[op + 1] > an.region_begin[op] else -1
    if block < 0:
        raise Unsupported(op, "linalg op without a body")
    args = list(an.block_args(block))
    for i in range(n):
        o = an.ob[op] + i
        v = an.operands[o]
        if v < 0 or not an.is_tensor[v]:
            continue
        used = i < len(args) and an.use_begin[args[i] + 1] > an.use_begin[args[i]]
        if i >= n_ins:
            _set(s, o, used, True, [(results[i - n_ins], EQUIV, True)])
        else:
            _set(s, o, used, False)
    s.elementwise = _linalg_elementwise
    return s


def _op_softmax(an, op, s):
    """linalg.softmax: input read, output written (not read), tied result."""
    src, dest = an.ob[op], an.ob[op] + 1
    _set(s, src, True, False)
    _set(s, dest, False, True, [(an.rb[op], EQUIV, True)])
    return s


def _linalg_elementwise(an, op_operands) -> bool:
    op = an.opnd_op[op_operands[0]]
    name = an.op_name[op]
    s = an.sem[op]
    cached = getattr(s, "_ew", None)
    if cached is None:
        cached = _linalg_maps(an, op)
        s._ew = cached
    if cached is False:
        return False
    for o in op_operands:
        if not cached[o - an.ob[op]]:
            return False
    return True


def _linalg_maps(an, op):
    """False if some loop is not parallel, else per operand: identity map?"""
    name = an.op_name[op]
    attrs = an.pyop(op).attributes
    n = an.ob[op + 1] - an.ob[op]
    if name == "linalg.generic":
        its = str(attrs["iterator_types"])
        if "reduction" in its or "window" in its:
            return False
        maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(attrs["indexing_maps"])]
        return [m.n_symbols == 0 and m == ir.AffineMap.get_identity(m.n_dims) for m in maps]
    if name in _REDUCING or name.startswith(("linalg.conv", "linalg.pooling", "linalg.depthwise")):
        return False
    if name in ("linalg.transpose", "linalg.broadcast"):
        # Input map is a permutation / projection; the init map is the identity.
        return [False] * (n - 1) + [True]
    if name in _ELEMENTWISE_NAMED and "indexing_maps" not in attrs:
        return [True] * n
    raise Unsupported(op, f"element-wise access of '{name}' is not modeled")


# ------------------------------------------------------------ bufferization
def _op_alloc_tensor(an, op, s):
    py = an.pyop(op)
    seg = list(py.attributes["operandSegmentSizes"])
    copy = seg[1] > 0
    for o in an.tensor_operands(op):
        _set(s, o, True, False)
    r = an.rb[op]
    s.allocation.add(r)
    s.result_write[r] = copy
    return s


def _op_to_tensor(an, op, s):
    attrs = an.pyop(op).attributes
    r = an.rb[op]
    s.writable[r] = "writable" in attrs
    s.restrict = "restrict" in attrs
    return s


def _op_materialize(an, op, s):
    src, dest = an.ob[op], an.ob[op] + 1
    _set(s, src, True, False)
    s.must_inplace.add(src)
    if an.is_tensor[an.operands[dest]]:
        _set(s, dest, False, True, [(an.rb[op], EQUIV, True)])
        s.must_inplace.add(dest)
        s.subset_insert = (src, dest)  # SubsetInsertionOpInterface
    s.elementwise = lambda an_, ops: True
    return s


def _op_to_buffer(an, op, s):
    attrs = an.pyop(op).attributes
    o = an.ob[op]
    _set(s, o, True, "read_only" not in attrs)
    return s


# ------------------------------------------------------------------ arith
def _op_constant(an, op, s):
    for r in an.tensor_results(op):
        s.writable[r] = False
    return s


def _op_select(an, op, s):
    cond = an.ob[op]
    if an.is_tensor[an.operands[cond]]:
        raise Unsupported(op, "arith.select with a tensor condition")
    for o in (an.ob[op] + 1, an.ob[op] + 2):
        if an.is_tensor[an.operands[o]]:
            _set(s, o, False, False, [(an.rb[op], EQUIV, False)])
    return s


# -------------------------------------------------------------------- scf
def _op_scf_yield(an, op, s):
    parent = an.op_parent[op]
    pname = an.op_name[parent]
    for o in an.tensor_operands(op):
        k = o - an.ob[op]
        if pname == "scf.if":
            alias = [(an.rb[parent] + k, EQUIV, False)]
        elif pname == "scf.index_switch":
            alias = []  # upstream's scf.yield model only aliases if/execute_region
        elif pname == "scf.execute_region":
            alias = [(an.rb[parent] + k, EQUIV, True)]
        elif pname in ("scf.for", "scf.while"):
            alias = []
        else:
            raise Unsupported(op, f"scf.yield inside '{pname}' is not modeled")
        _set(s, o, True, False, alias)
        s.must_inplace.add(o)
    return s


def _region_yields(an, op) -> list[int]:
    yields = []
    for r in an.regions_of(op):
        blocks = an.region_blocks_of(r)
        if len(blocks) > 1:
            raise Unsupported(op, "multi-block regions are not supported")
        if blocks:
            yields.append(an.terminator(blocks[0]))
    return yields


def _op_scf_if(an, op, s):
    s.region_branch = True
    yields = _region_yields(an, op)
    if an.op_name[op] == "scf.if":
        if an.tensor_results(op) and len(yields) != 2:
            raise Unsupported(op, "scf.if with tensor results but no else region")
        order = yields
    else:
        # scf.index_switch: regions are (default, case...); upstream lists the
        # case yields first, then the default yield.
        order = yields[1:] + yields[:1]
    for r in an.tensor_results(op):
        k = r - an.rb[op]
        s.value_alias_operands[r] = [(an.ob[y] + k, EQUIV, False) for y in order]
    return s


def _op_execute_region(an, op, s):
    s.region_branch = True
    yields = _region_yields(an, op)
    for r in an.tensor_results(op):
        k = r - an.rb[op]
        s.value_alias_operands[r] = [(an.ob[y] + k, EQUIV, True) for y in yields]
    return s


def _op_scf_for(an, op, s):
    s.region_branch = True
    s.repetitive_regions = (0,)
    n_ctrl = 3
    block = an.entry_block(op)
    yield_op = an.terminator(block)
    args = list(an.block_args(block))
    for o in an.tensor_operands(op):
        k = o - an.ob[op] - n_ctrl
        if k < 0:
            continue
        bbarg = args[1 + k]
        result = an.rb[op] + k
        yielded = an.ob[yield_op] + k

        def alias_fn(an_, bbarg=bbarg, result=result, yielded=yielded):
            rel = EQUIV if an_.equivalent(bbarg, an_.operands[yielded]) else UNKNOWN
            return [(result, rel, rel == EQUIV)]

        s.read[o] = True  # resolved per function: isValueRead of the iter arg
        s.write[o] = True
        s.dyn_alias[o] = alias_fn
        s.lazy_read[o] = bbarg
    s.for_yield = yield_op
    return s


def _op_scf_while(an, op, s):
    s.region_branch = True
    s.repetitive_regions = (0, 1)
    before = an.entry_block(op, 0)
    after = an.entry_block(op, 1)
    cond = an.terminator(before)
    yld = an.terminator(after)
    bargs = list(an.block_args(before))
    aargs = list(an.block_args(after))
    nres = an.nres[op]
    for o in an.tensor_operands(op):
        k = o - an.ob[op]
        s.read[o] = True
        s.write[o] = True
        if k >= nres or an.value_type[an.operands[o]] != an.value_type[an.rb[op] + k]:
            s.alias[o] = []
            continue
        result = an.rb[op] + k

        def alias_fn(an_, k=k, result=result):
            rel = UNKNOWN
            if k < len(bargs) and an_.value_type[bargs[k]] == an_.value_type[result]:
                c_opnd = an_.operands[an_.ob[cond] + 1 + k]
                eq_cond = an_.equivalent(bargs[k], c_opnd)
                eq_yield = k < len(aargs) and an_.equivalent(aargs[k], an_.operands[an_.ob[yld] + k])
                if eq_cond and eq_yield:
                    rel = EQUIV
            return [(result, rel, rel == EQUIV)]

        s.dyn_alias[o] = alias_fn
    s.while_terms = (cond, yld, bargs, aargs)
    return s


def _op_scf_forall(an, op, s):
    s.region_branch = True
    s.repetitive_regions = (0,)
    s.parallel_regions = (0,)
    attrs = an.pyop(op).attributes
    seg = list(attrs["operandSegmentSizes"])  # dyn lbs, ubs, steps, outputs
    n_ctrl = seg[0] + seg[1] + seg[2]
    block = an.entry_block(op)
    args = list(an.block_args(block))
    n_iv = len(args) - seg[3]
    for o in an.tensor_operands(op):
        k = o - an.ob[op] - n_ctrl
        if k < 0:
            raise Unsupported(op, "tensor loop bound in scf.forall")
        bbarg = args[n_iv + k]
        s.read[o] = True  # upstream: shared_outs are always considered read
        s.write[o] = True
        s.alias[o] = [(an.rb[op] + k, EQUIV, True)]
    return s


def _op_parallel_insert_slice(an, op, s):
    # The destination (a shared_outs block argument) is written, and upstream
    # reports it as aliasing that block argument itself, so a write through it
    # never conflicts with that definition. Checked against mlir-opt.
    src, dest = an.ob[op], an.ob[op] + 1
    _set(s, src, True, False)
    _set(s, dest, False, True, [(an.operands[dest], EQUIV, True)])
    s.subset_insert = (src, dest)
    return s


def _op_scf_condition(an, op, s):
    for o in an.tensor_operands(op):
        _set(s, o, True, False)
        s.must_inplace.add(o)
    return s


# ------------------------------------------------------------------- func
def _op_func(an, op, s):
    py = an.pyop(op)
    attrs = py.attributes
    block = an.entry_block(op) if an.region_begin[op + 1] > an.region_begin[op] else -1
    if block >= 0:
        arg_attrs = ir.ArrayAttr(attrs["arg_attrs"]) if "arg_attrs" in attrs else None
        for i, a in enumerate(an.block_args(block)):
            if not an.is_tensor[a]:
                continue
            if arg_attrs is not None:
                d = ir.DictAttr(arg_attrs[i])
                if "bufferization.writable" in d:
                    s.writable[a] = ir.BoolAttr(d["bufferization.writable"]).value
        if an.is_multi_block(an.region_begin[op]):
            _func_block_args_alias(an, op, s)
    return s


def _func_block_args_alias(an, op, s):
    """Non-entry block arguments of a func.func body alias (EQUIV, maybe) the
    operands that the branches into their block forward
    (OpWithUnstructuredControlFlowBufferizableOpInterfaceExternalModel), in
    upstream's order (the block's use list)."""
    r = an.region_begin[op]
    for b in an.region_blocks_of(r)[1:]:
        args = [a for a in an.block_args(b) if an.is_tensor[a]]
        if not args:
            continue
        callers = []
        for pred in an.block_predecessor_blocks(b):
            term = an.block_terminator(pred)
            succs = an.block_successors(pred)
            callers.append(_forwarded_begin(an, term, succs.index(b)))
        for a in args:
            k = an.value_index[a]
            s.value_alias_operands[a] = [(begin + k, EQUIV, False) for begin in callers]


def _forwarded_begin(an, op, succ_index: int) -> int:
    """Operand id of the first operand that ``op`` forwards to successor
    ``succ_index`` (BranchOpInterface::getSuccessorOperands)."""
    name = an.op_name[op]
    if name == "cf.br":
        return an.ob[op]
    if name == "cf.cond_br":
        seg = list(an.pyop(op).attributes["operandSegmentSizes"])
        return an.ob[op] + 1 + (seg[1] if succ_index == 1 else 0)
    if not an.pyop(op).context.is_registered_operation(name):
        # Not a BranchOpInterface op: upstream's rewrite asserts on it
        # ("expected that all callers implement BranchOpInterface"), so no
        # fallback to upstream either.
        from memplan.inplace.analysis import AnalysisError

        raise AnalysisError(op, f"memplan-one-shot-bufferize: '{name}' forwarding tensors to a block "
                                "(unstructured control flow) is not modeled: it is not a branch op "
                                "(BranchOpInterface), which upstream's bufferization asserts on")
    raise Unsupported(op, f"'{name}' forwarding tensors to a block (unstructured control flow) "
                          "is not modeled; memplan models cf.br and cf.cond_br")


def _op_branch(an, op, s):
    """cf.br / cf.cond_br (upstream's BranchLikeOpInterface): forwarded operands
    neither read nor written, each aliasing (EQUIV, maybe) the block argument
    of every successor it is forwarded to."""
    succs = an.block_successors(an.op_block[op])
    ranges = []
    for i, b in enumerate(succs):
        begin = _forwarded_begin(an, op, i)
        ranges.append((begin, begin + an.block_nargs[b], b))
    for o in an.tensor_operands(op):
        alias = [(an.block_arg_begin[b] + (o - begin), EQUIV, False)
                 for (begin, end, b) in ranges if begin <= o < end]
        _set(s, o, False, False, alias)
    return s


def _op_call(an, op, s):
    # Filled in by the module driver once the callee is analyzed.
    s.call = True
    return s


_MODELS = {
    "tensor.empty": _op_empty,
    "linalg.softmax": _op_softmax,
    "tensor.extract_slice": _op_extract_slice,
    "tensor.insert_slice": _op_insert_slice,
    "tensor.cast": _op_view(EQUIV),
    "tensor.collapse_shape": _op_view(EQUIV),
    "tensor.expand_shape": _op_view(EQUIV),
    "tensor.reshape": _op_view(EQUIV),
    "tensor.dim": _op_no_access,
    "tensor.rank": _op_no_access,
    "tensor.extract": _op_read_only,
    "tensor.insert": _op_dps_all_read,
    "tensor.pad": _op_alloc_like,
    "tensor.generate": _op_alloc_like,
    "tensor.from_elements": _op_alloc_like,
    "tensor.splat": _op_alloc_like,
    "tensor.concat": _op_alloc_like,
    "tensor.yield": lambda an, op, s: s,
    "bufferization.alloc_tensor": _op_alloc_tensor,
    "bufferization.to_tensor": _op_to_tensor,
    "bufferization.materialize_in_destination": _op_materialize,
    "bufferization.to_buffer": _op_to_buffer,
    "arith.constant": _op_constant,
    "arith.select": _op_select,
    "arith.index_cast": _op_view(EQUIV),
    "vector.transfer_read": _op_read_only,
    "vector.transfer_write": _op_dps_all_read,
    "scf.yield": _op_scf_yield,
    "scf.if": _op_scf_if,
    "scf.index_switch": _op_scf_if,
    "scf.execute_region": _op_execute_region,
    "scf.for": _op_scf_for,
    "scf.while": _op_scf_while,
    "scf.condition": _op_scf_condition,
    "scf.forall": _op_scf_forall,
    "scf.forall.in_parallel": lambda an, op, s: s,
    "tensor.parallel_insert_slice": _op_parallel_insert_slice,
    "func.func": _op_func,
    "func.return": _op_read_only,
    "func.call": _op_call,
    "bufferization.dealloc_tensor": _op_no_access,
    "cf.br": _op_branch,
    "cf.cond_br": _op_branch,
}
