"""Module driver: function order, per-function analysis, boundary facts, and
the upstream test annotations (``__inplace_operands_attr__`` and friends)."""

from __future__ import annotations

from typing import Optional

from mlir import ir

from memplan.inplace.analysis import (
    Analysis,
    AnalysisError,
    Options,
)
from memplan._core import TypeKind
from memplan.inplace.incremental import Index
from memplan.inplace.model import describe, has_tensors, in_filtered_function, is_allowed
from memplan.inplace.semantics import EQUIV, UNKNOWN, Unsupported


def _post_order(an: Analysis, root: int) -> list[int]:
    ops = list(range(root, an.op_end[root] + 1))
    end, depth = an.op_end, an.op_depth
    ops.sort(key=lambda i: (end[i], -depth[i]))
    return ops


def _mt19937(seed: int):
    """std::mt19937 (32-bit), as upstream's fuzzer uses."""
    mt = [0] * 624
    mt[0] = seed & 0xFFFFFFFF
    for i in range(1, 624):
        mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
    idx = 624
    while True:
        if idx >= 624:
            for i in range(624):
                y = (mt[i] & 0x80000000) | (mt[(i + 1) % 624] & 0x7FFFFFFF)
                mt[i] = mt[(i + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            idx = 0
        y = mt[idx]
        idx += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        yield y & 0xFFFFFFFF


class ModuleAnalysis:
    """Runs the analysis over a module the way one-shot-bufferize does."""

    def __init__(self, module: ir.Operation, options: Options):
        self.opts = options
        self.an = Analysis(module, options)
        self.scopes: list[int] = []
        self.func_facts: dict[int, dict] = {}

    def setup(self) -> None:
        an = self.an
        options = self.opts
        if options.no_analysis_func_filter and not options.bufferize_function_boundaries:
            # Upstream's pass rejects this combination before any analysis.
            raise AnalysisError(0, "Invalid option: 'no-analysis-func-filter' requires "
                                   "'bufferize-function-boundaries'")
        for op in range(an.num_ops):
            self._check_regions(op)
        for v in range(an.nvalues):
            if an.types[an.value_type[v]].kind == TypeKind.UNRANKED_TENSOR:
                raise Unsupported(an.owner(v), "unranked tensors are not modeled")
        for op in range(an.num_ops):
            an.sem[op] = describe(an, op)
        if any(an.is_multi_block(r) for r in range(len(an.region_op))):
            an.rbw_active = set()
        if options.no_analysis_func_filter and not options.test_analysis_only:
            self._check_filtered_calls()
        for op in range(an.num_ops):
            s = an.sem[op]
            if s is not None and s.parallel_regions:
                an.has_parallel = True
        # Alias sets start as singletons; count non-writable members.
        for v in range(an.nvalues):
            if an.is_tensor[v] and not an.is_writable(v):
                an.n_nonwritable[v] = 1
        self.funcs = [op for op in range(1, an.num_ops)
                      if an.op_parent[op] == 0 and an.op_name[op] == "func.func"]
        for op in range(1, an.num_ops):
            if an.op_name[op] == "func.func" and an.op_parent[op] != 0:
                raise Unsupported(op, "func.func nested below the module is not supported")
        for f in self.funcs:
            name = an.pyop(f).attributes["sym_name"]
            an.symbol_funcs[ir.StringAttr(name).value] = f
        # Calls: conservative until the callee is analyzed.
        for op in range(an.num_ops):
            s = an.sem[op]
            if s is not None and s.bufferizable and getattr(s, "call", False):
                self._set_call(op, None)
        # mustBufferizeInPlace, in post-order over allowed bufferizable ops.
        for op in _post_order(an, 0):
            s = an.sem[op]
            if s is None or not s.bufferizable or not s.must_inplace:
                continue
            for o in an.tensor_operands(op):
                if o in s.must_inplace:
                    an.bufferize_inplace(o)

    def _check_regions(self, op: int) -> None:
        """Unstructured control flow (multi-block regions) is modeled in
        func.func bodies only: cf.br / cf.cond_br forwarding tensors to block
        arguments, CFG dominance and upstream's rule that op order proves
        nothing for a read and a write on a CFG cycle."""
        an = self.an
        name = an.op_name[op]
        if name == "func.func":
            return
        for r in an.regions_of(op):
            if an.is_multi_block(r):
                if self.opts.no_analysis_func_filter and in_filtered_function(an, op):
                    return  # never analyzed
                raise Unsupported(op, f"unstructured control flow (a multi-block region) in '{name}' "
                                      "is not modeled; memplan models multi-block regions only in "
                                      "func.func bodies")

    def _check_filtered_calls(self) -> None:
        """Upstream's rewrite (MLIR 22) bufferizes the functions named in
        no-analysis-func-filter with copy-before-write and a plain
        AnalysisState, which its func.call model casts to a
        OneShotAnalysisState: undefined behavior, in practice a segfault, as
        soon as such a function calls with tensor operands. Fail cleanly
        instead of handing the module to upstream."""
        an = self.an
        for op in range(an.num_ops):
            if an.op_name[op] == "func.call" and an.tensor_operands(op) and in_filtered_function(an, op):
                raise AnalysisError(op, "memplan-one-shot-bufferize: a func.call with tensor operands in a "
                                        "function named in no-analysis-func-filter crashes upstream's "
                                        "rewrite (MLIR 22); only test-analysis-only supports it")

    # ---------------------------------------------------------- calls
    def callee(self, call: int) -> int:
        attr = self.an.pyop(call).attributes["callee"]
        name = ir.FlatSymbolRefAttr(attr).value
        f = self.an.symbol_funcs.get(name)
        if f is None:
            raise Unsupported(call, f"callee @{name} not found")
        return f

    def _set_call(self, call: int, facts: Optional[dict]) -> None:
        an = self.an
        s = an.sem[call]
        results = an.tensor_results(call)
        for o in an.tensor_operands(call):
            k = o - an.ob[call]
            if facts is None:
                s.read[o] = True
                s.write[o] = True
                s.alias[o] = [(r, UNKNOWN, False) for r in results]
                continue
            s.read[o] = k in facts["read"]
            s.write[o] = k in facts["written"]
            rets = facts["aliasing"].get(k, [])
            equiv = None
            if len(rets) == 1:
                e = facts["equivalent"].get(rets[0])
                equiv = e
                if e is not None and e != k:
                    # Upstream asserts here (CallOpInterface::getAliasingValues,
                    # "inconsistent analysis state"): the only result aliasing
                    # this operand is equivalent to another argument. With
                    # unstructured control flow or arith.select a returned
                    # argument can alias a second one.
                    raise AnalysisError(call, f"'func.call' op operand #{k}: the callee's result "
                                              f"#{rets[0]} aliases argument #{k} but is equivalent to "
                                              f"argument #{e}; upstream One-Shot Analysis aborts here "
                                              "(assertion: inconsistent analysis state)")
            s.alias[o] = [(an.rb[call] + ri, EQUIV if equiv is not None else UNKNOWN, equiv is not None)
                          for ri in rets]

    def order_functions(self) -> tuple[list[int], list[int]]:
        an = self.an
        called_by: dict[int, list[int]] = {f: [] for f in self.funcs}
        count = {f: 0 for f in self.funcs}
        for f in self.funcs:
            seen = set()
            for op in range(f, an.op_end[f] + 1):
                if an.op_name[op] != "func.call":
                    continue
                callee = self.callee(op)
                if not self._tensor_signature(callee):
                    continue
                if f not in seen and f not in called_by[callee]:
                    called_by[callee].append(f)
                    count[f] += 1
                seen.add(callee)
        worklist = [f for f in self.funcs if count[f] == 0]
        worklist.reverse()  # pop_back: module order
        ordered = []
        while worklist:
            f = worklist.pop()
            ordered.append(f)
            for caller in called_by[f]:
                count[caller] -= 1
                if count[caller] == 0:
                    worklist.append(caller)
            del count[f]
        return ordered, [f for f in self.funcs if f in count]

    def _tensor_signature(self, f: int) -> bool:
        ftype = ir.FunctionType(ir.TypeAttr(self.an.pyop(f).attributes["function_type"]).value)
        return any(isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType))
                   for t in list(ftype.inputs) + list(ftype.results))

    # ---------------------------------------------------------- run
    def run(self) -> None:
        self.setup()
        an = self.an
        if not self.opts.bufferize_function_boundaries:
            self.scopes = [0]
            self.analyze_scope(0)
            return
        ordered, remaining = self.order_functions()
        for f in ordered + remaining:
            if not is_allowed(an, f):
                continue
            # Calls to already analyzed callees get their boundary facts.
            for op in range(f, an.op_end[f] + 1):
                if an.op_name[op] == "func.call" and an.sem[op] is not None and an.sem[op].bufferizable:
                    self._set_call(op, self.func_facts.get(self.callee(op)))
            self.scopes.append(f)
            self.analyze_scope(f)
            if f in remaining:
                # Functions that call each other circularly: bodies analyzed,
                # boundaries not (calls into them stay conservative), as upstream.
                continue
            self.func_facts[f] = self.boundary_facts(f)

    def analyze_scope(self, root: int) -> None:
        an = self.an
        an._read_cache.clear()
        an._defs_cache.clear()
        an._subset_cache.clear()
        post = _post_order(an, root)
        # scf.for inits are read iff their iter_arg is read.
        for op in post:
            s = an.sem[op]
            if s is not None and s.lazy_read:
                for o, bbarg in s.lazy_read.items():
                    s.read[o] = an.is_value_read(bbarg)
        an._read_cache.clear()
        self.check_assumptions(root, post)
        order = self.analysis_order(root, post)
        an.index = Index(an, self.scope_values(root)) if self.opts.incremental else None
        try:
            for op in order:
                an.analyze_single_op(op)
        finally:
            an.index = None
        self.equivalence_analysis(post)
        if an.rbw_active is not None:
            self.gather_undefined_tensor_uses(post)
        self.verify(post)

    def gather_undefined_tensor_uses(self, post: list[int]) -> None:
        """OneShotAnalysisState::gatherUndefinedTensorUses: the definitions of
        every tensor result of a bufferizable op. memplan needs no result
        of it; it runs (with unstructured control flow only) for the queries
        on which upstream recurses without end (see result_bufferizes_to_write)."""
        an = self.an
        for _, r in self._bufferizable_results(post):
            if an.result_bufferizes_to_write(r):
                continue
            for (o, _, _) in an.aliasing_opoperands(r):
                an.definitions(o)

    def _bufferizable_results(self, post: list[int]):
        """(op, tensor result) of the bufferizable ops, in ``post`` order."""
        an = self.an
        for op in post:
            s = an.sem[op]
            if s is not None and s.bufferizable:
                for r in an.tensor_results(op):
                    yield op, r

    def scope_values(self, root: int) -> list[int]:
        an = self.an
        vals = []
        for op in range(root, an.op_end[root] + 1):
            vals.extend(v for v in an.tensor_results(op))
            for r in an.regions_of(op):
                for b in an.region_blocks_of(r):
                    vals.extend(a for a in an.block_args(b) if an.is_tensor[a])
        return vals

    def analysis_order(self, root: int, post: list[int]) -> list[int]:
        an = self.an
        h = self.opts.analysis_heuristic
        if h == "bottom-up-from-terminators":
            return self._from_terminators(root, post)
        ops = [op for op in post if self._tensor_semantics(op)]
        if h == "bottom-up":
            ops.reverse()
        elif h == "top-down":
            pass
        elif h == "fuzzer":
            rng = _mt19937(self.opts.analysis_fuzzer_seed)
            n = len(ops)
            first = 0
            size = n
            while size > 1:
                off = next(rng) % size
                if off:
                    ops[first], ops[first + off] = ops[first + off], ops[first]
                first += 1
                size -= 1
        else:
            raise Unsupported(root, f"unknown analysis heuristic '{h}'")
        return ops

    def _tensor_semantics(self, op: int) -> bool:
        an = self.an
        if an.op_name[op] == "func.func" and an.sem[op] is not None and an.sem[op].bufferizable:
            return self._tensor_signature(op)
        return has_tensors(an, op)

    def _from_terminators(self, root: int, post: list[int]) -> list[int]:
        an = self.an
        traversed: dict[int, None] = {}
        for term in post:
            if not self._is_region_terminator(term):
                continue
            if term in traversed:
                continue
            traversed[term] = None
            work = [v for v in (an.operands[o] for o in range(an.ob[term], an.ob[term + 1]))
                    if an.is_tensor[v] and an.value_op[v] >= 0]
            region = an.op_region(term)
            while work:
                v = work.pop()
                d = an.value_op[v]
                if d in traversed:
                    continue
                traversed[d] = None
                if not self._in_region(region, d):
                    continue
                for (o, _, _) in an.aliasing_opoperands(v):
                    x = an.operands[o]
                    if an.is_tensor[x] and an.value_op[x] >= 0:
                        work.append(x)
        result = list(traversed)
        for op in self._post_order_reversed_children(root):
            if op not in traversed and self._tensor_semantics(op):
                result.append(op)
        return result

    def _in_region(self, region: int, op: int) -> bool:
        """Region::findAncestorOpInRegion(op) != nullptr."""
        an = self.an
        while op >= 0:
            if an.op_region(op) == region:
                return True
            op = an.op_parent[op]
        return False

    def _post_order_reversed_children(self, root: int) -> list[int]:
        """walk<PostOrder, ReverseIterator>: nested ops first (regions,
        blocks and ops visited back to front), then the op itself."""
        an = self.an
        children: dict[int, list[int]] = {}
        for op in range(root + 1, an.op_end[root] + 1):
            children.setdefault(an.op_block[op], []).append(op)
        out: list[int] = []
        stack = [(root, False)]
        while stack:
            op, expanded = stack.pop()
            if expanded:
                out.append(op)
                continue
            stack.append((op, True))
            # Push in forward order so that pops visit back to front.
            for r in an.regions_of(op):
                for b in an.region_blocks_of(r):
                    for child in children.get(b, ()):
                        stack.append((child, False))
        return out

    def _is_region_terminator(self, op: int) -> bool:
        # RegionBranchTerminatorOpInterface; of the unknown region ops, scf.reduce
        # and affine.yield are such terminators, scf.reduce.return is not
        # (checked with mlir-opt).
        return self.an.op_name[op] in ("scf.yield", "func.return", "linalg.yield", "tensor.yield",
                                       "scf.condition", "scf.in_parallel", "vector.yield",
                                       "scf.reduce", "affine.yield")

    def check_assumptions(self, root: int, post: list[int]) -> None:
        an = self.an
        for op in post:
            s = an.sem[op]
            if s is None or not s.bufferizable:
                continue
            if an.op_name[op] == "bufferization.to_tensor" and not getattr(s, "restrict", True):
                if an.use_begin[an.rb[op] + 1] > an.use_begin[an.rb[op]]:
                    raise AnalysisError(op, "'bufferization.to_tensor' op to_tensor ops without "
                                            "`restrict` are not supported by One-Shot Analysis")
            for o in an.tensor_operands(op):
                if an.would_create_raw(o, consistency_only=True):
                    raise AnalysisError(op, f"'{an.op_name[op]}' op not bufferizable under the given "
                                            "constraints: cannot avoid RaW conflict")
                if an.inplace[o] and an.would_write_nonwritable(o, consistency_only=True):
                    raise AnalysisError(op, f"'{an.op_name[op]}' op not bufferizable under the given "
                                            "constraints: would write to read-only buffer")

    def equivalence_analysis(self, post: list[int]) -> None:
        an = self.an
        for op, r in self._bufferizable_results(post):
            aliases = an.aliasing_opoperands(r)
            if not aliases:
                continue
            first = an.operands[aliases[0][0]]
            all_eq = True
            for (o, rel, definite) in aliases:
                is_eq = rel == EQUIV
                inpl = bool(an.inplace[o])
                val = an.operands[o]
                if is_eq and inpl and definite:
                    an.equiv.union(r, val)
                    all_eq = False
                    break
                if not is_eq or not inpl:
                    all_eq = False
                if not an.equivalent(val, first):
                    all_eq = False
            if all_eq and r not in an.sem[op].allocation:
                an.equiv.union(r, first)

    def verify(self, post: list[int]) -> None:
        an = self.an
        if self.opts.allow_return_allocs_from_loops:
            return
        for op in post:
            if an.op_name[op] == "scf.while":
                self._verify_while(op)
                continue
            if an.op_name[op] != "scf.for":
                continue
            s = an.sem[op]
            for o in an.tensor_operands(op):
                if o - an.ob[op] < 3:
                    continue
                (_, rel, _), = an.aliasing_values(o)
                if rel != EQUIV:
                    k = o - an.ob[op] - 3
                    an.errors.append((s.for_yield, f"Yield operand #{k} is not equivalent to the "
                                                   "corresponding iter bbArg"))
                    break

    def _verify_while(self, op: int) -> None:
        an = self.an
        cond, yld, bargs, aargs = an.sem[op].while_terms
        for term, args, what in ((cond, bargs, "Condition arg"), (yld, aargs, "Yield operand")):
            first = an.ob[term] + (1 if term == cond else 0)
            for k, o in enumerate(range(first, an.ob[term + 1])):
                v = an.operands[o]
                if not an.is_tensor[v]:
                    continue
                if k >= len(args) or not an.equivalent(v, args[k]):
                    an.errors.append((term, f"{what} #{k} is not equivalent to the corresponding iter bbArg"))
                    return

    # ---------------------------------------------------- function facts
    def boundary_facts(self, f: int) -> dict:
        an = self.an
        facts = {"read": set(), "written": set(), "aliasing": {}, "equivalent": {},
                 "access": {}, "equiv_annot": {}}
        ftype = ir.FunctionType(ir.TypeAttr(an.pyop(f).attributes["function_type"]).value)
        inputs = list(ftype.inputs)
        results = list(ftype.results)
        is_t = lambda t: isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType))
        block = an.entry_block(f) if an.region_begin[f + 1] > an.region_begin[f] else -1
        if block < 0:
            for i, t in enumerate(inputs):
                if is_t(t):
                    facts["aliasing"][i] = [j for j, rt in enumerate(results) if is_t(rt)]
        else:
            returns = [op for op in range(f, an.op_end[f] + 1) if an.op_name[op] == "func.return"]
            if not returns:
                raise AnalysisError(f, "cannot bufferize func.func without func.return")
            args = list(an.block_args(block))
            for a in args:
                if an.types[an.value_type[a]].kind != TypeKind.RANKED_TENSOR:
                    continue
                idx = an.value_index[a]
                al = []
                for ret in returns:
                    for o in range(an.ob[ret], an.ob[ret + 1]):
                        v = an.operands[o]
                        if (an.types[an.value_type[v]].kind == TypeKind.RANKED_TENSOR
                                and an.alias.find(v) == an.alias.find(a)):
                            k = o - an.ob[ret]
                            if k not in al:
                                al.append(k)
                if al:
                    facts["aliasing"][idx] = al

            def equiv_arg(o):
                v = an.operands[o]
                if not an.is_tensor[v]:
                    return None
                for a in args:
                    if an.types[an.value_type[a]].kind == TypeKind.RANKED_TENSOR and an.equivalent(v, a):
                        facts["equiv_annot"].setdefault(an.opnd_op[o], {})[o - an.ob[an.opnd_op[o]]] = \
                            an.value_index[a]
                        return an.value_index[a]
                return None

            n = an.ob[returns[0] + 1] - an.ob[returns[0]]
            for i in range(n):
                e = equiv_arg(an.ob[returns[0]] + i)
                if e is None:
                    continue
                if all(equiv_arg(an.ob[r] + i) == e for r in returns[1:]):
                    facts["equivalent"][i] = e
        # read / written
        attrs = an.pyop(f).attributes
        arg_attrs = ir.ArrayAttr(attrs["arg_attrs"]) if "arg_attrs" in attrs else None
        for i, t in enumerate(inputs):
            if not is_t(t):
                continue
            access = None
            if arg_attrs is not None:
                d = ir.DictAttr(arg_attrs[i])
                if "bufferization.access" in d:
                    access = ir.StringAttr(d["bufferization.access"]).value
            if access is not None:
                is_read = access in ("read", "read-write")
                is_written = access in ("write", "read-write")
            elif block < 0:
                is_read = is_written = True
            else:
                a = an.block_arg_begin[block] + i
                is_read = an.is_value_read(a)
                is_written = self.is_value_written(a)
            facts["access"][i] = ("read-write" if is_read and is_written else "read" if is_read
                                  else "write" if is_written else "none")
            if is_read:
                facts["read"].add(i)
            if is_written:
                facts["written"].add(i)
        return facts

    def is_value_written(self, v: int) -> bool:
        an = self.an
        for m in an.alias.members(v):
            for u in range(an.use_begin[m], an.use_begin[m + 1]):
                o = an.use_opnd[u]
                if an.inplace[o] and an.write(o):
                    return True
        return False
