"""The explanation API: the analysis' decisions, sets and conflicts as data.

:func:`analyze` runs memplan's in-place analysis (without touching the IR) and
returns an :class:`AnalysisResult`: the decision per tensor OpOperand, alias
and equivalence sets, every conflict as (definition, conflicting write, read)
with ops and locations, and the bytes each copy costs. ``to_json()`` exports
all of it; ``explain_text()`` is what ``memplan explain FILE`` prints.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Optional, Union

from mlir import ir

from memplan.ir.parse import location_prefix

_DYNAMIC_COST = 1 << 40  # a copy of unknown size, for comparing heuristics


@dataclass
class ValueInfo:
    """A tensor SSA value: printed name, type, and where it is defined."""

    id: int
    name: str
    type: str
    defined_by: str  # "result N of OP" or "bbArg N of OP"
    location: str


@dataclass
class OpRef:
    op: str
    operand: int
    location: str


@dataclass
class ConflictInfo:
    """Why an operand cannot be in place: writing it in place would make
    ``write`` overwrite ``definition`` before ``read`` reads it."""

    definition: ValueInfo
    write: OpRef
    read: OpRef


@dataclass
class OperandDecision:
    op: str
    operand: int
    location: str
    function: str
    value: ValueInfo
    inplace: bool
    #: Out of place because of a RaW conflict ...
    conflict: Optional[ConflictInfo] = None
    #: ... or because an alias is not writable.
    non_writable: list[ValueInfo] = field(default_factory=list)
    #: What the copy materializes (the operand, or the op's result for ops that
    #: only create an alias, like tensor.extract_slice), its byte size (-1 when
    #: the shape is dynamic) and whether only an allocation is needed.
    copy_of: Optional[ValueInfo] = None
    copy_bytes: int = 0
    alloc_only: bool = False

    def explain(self) -> str:
        head = (f"{self.location}: operand #{self.operand} of {self.op} ({self.value.name} : "
                f"{self.value.type}) bufferizes out of place")
        size = "dynamic size" if self.copy_bytes < 0 else f"{self.copy_bytes} bytes"
        subject = self.copy_of.name if self.copy_of else self.value.name
        if self.alloc_only:
            lines = [f"{head}: a new buffer in place of {subject} ({size}; no copy, its contents are not read)"]
        else:
            lines = [f"{head}: a copy of {subject} ({size})"]
        if self.conflict is not None:
            c = self.conflict
            lines.append(f"  definition:        {c.definition.location}: {c.definition.name} "
                         f"({c.definition.defined_by})")
            lines.append(f"  conflicting write: {c.write.location}: operand #{c.write.operand} of {c.write.op}")
            lines.append(f"  read:              {c.read.location}: operand #{c.read.operand} of {c.read.op}")
            lines.append("  in place, the write would overwrite the definition before the read sees it")
        elif self.non_writable:
            for v in self.non_writable:
                lines.append(f"  not writable:      {v.location}: {v.name} ({v.defined_by})")
            lines.append("  in place, the op would write into a buffer that must not be written")
        return "\n".join(lines)


@dataclass
class AnalysisResult:
    operands: list[OperandDecision]
    alias_sets: list[list[ValueInfo]]
    equivalence_sets: list[list[ValueInfo]]
    heuristic: str
    #: min-copy-bytes: (order, bytes copied, copies) per analysis order tried.
    heuristic_costs: list = field(default_factory=list)

    @property
    def copies(self) -> list[OperandDecision]:
        """The out-of-place operands, in program order."""
        return [d for d in self.operands if not d.inplace]

    @property
    def conflicts(self) -> list[ConflictInfo]:
        return [d.conflict for d in self.operands if d.conflict is not None]

    @property
    def copy_bytes(self) -> int:
        """Bytes copied (allocation-only copies cost 0; dynamic ones count as -1 each)."""
        return sum(0 if d.alloc_only else d.copy_bytes for d in self.copies if d.copy_bytes >= 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "heuristic": self.heuristic,
            "operands": [asdict(d) for d in self.operands],
            "alias_sets": [[asdict(v) for v in s] for s in self.alias_sets],
            "equivalence_sets": [[asdict(v) for v in s] for s in self.equivalence_sets],
            "copy_bytes": self.copy_bytes,
            "heuristic_costs": [{"order": h, "copy_bytes": b, "copies": c} for (h, b, c) in self.heuristic_costs],
        }

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def explain_text(self) -> str:
        copies = self.copies
        if not copies:
            return "no copies: every tensor operand bufferizes in place\n"
        parts = [d.explain() for d in copies]
        total = f"{len(copies)} out-of-place operand(s), {self.copy_bytes} bytes copied"
        return "\n\n".join(parts) + "\n\n" + total + "\n"


def _options(kwargs: dict):
    from memplan.inplace.bufferize import OPTIONS, options_from

    values = {o.py_name: o.default for o in OPTIONS}
    for k, v in kwargs.items():
        key = k.replace("-", "_")
        if key not in values:
            raise TypeError(f"analyze() got an unknown option '{k}'")
        if isinstance(v, (list, tuple)):
            v = ",".join(v)
        values[key] = v
    opts = options_from(values)
    opts.test_analysis_only = False
    opts.print_conflicts = False
    opts.dump_alias_sets = False
    return opts


#: The analysis orders min-copy-bytes tries, bottom-up first (it wins ties).
MIN_COPY_BYTES_ORDERS = (("bottom-up", 0), ("top-down", 0), ("bottom-up-from-terminators", 0),
                         ("fuzzer", 1), ("fuzzer", 2), ("fuzzer", 3))


def order_name(heuristic: str, seed: int) -> str:
    """``top-down``, ``fuzzer-2``: one of :data:`MIN_COPY_BYTES_ORDERS`."""
    return f"{heuristic}-{seed}" if heuristic == "fuzzer" else heuristic


def run_heuristic(module: ir.Operation, opts):
    """A finished ModuleAnalysis; ``min-copy-bytes`` tries several orders and
    keeps the one copying the fewest bytes (ties: fewest copies, then the
    first order). Its ``heuristic_costs`` lists (order, bytes, copies) per
    order tried (None for an order whose analysis failed)."""
    from memplan.inplace.driver import ModuleAnalysis

    if opts.analysis_heuristic != "min-copy-bytes":
        ma = ModuleAnalysis(module, opts)
        ma.run()
        ma.heuristic_costs = []
        return ma
    best = None
    costs = []
    for h, seed in MIN_COPY_BYTES_ORDERS:
        o = _copy_opts(opts, h, seed)
        ma = ModuleAnalysis(module, o)
        ma.run()
        if ma.an.errors:
            costs.append((order_name(h, seed), None, None))
            continue
        cost = (copy_cost(ma), copy_count(ma))
        costs.append((order_name(h, seed), *cost))
        if best is None or cost < best[0]:
            best = (cost, ma)
    if best is None:
        o = _copy_opts(opts, "bottom-up", 0)
        ma = ModuleAnalysis(module, o)
        ma.run()
    else:
        ma = best[1]
    ma.heuristic_costs = costs
    return ma


def _copy_opts(opts, heuristic: str, seed: int):
    from dataclasses import replace

    return replace(opts, analysis_heuristic=heuristic, analysis_fuzzer_seed=seed)


def _copy_targets(ma):
    """(value copied, allocation only) per out-of-place operand of the scopes."""
    an = ma.an
    for scope in ma.scopes:
        for op in range(scope, an.op_end[scope] + 1):
            for o in an.tensor_operands(op):
                if not an.inplace[o]:
                    yield copy_target(ma, o)


def copy_count(ma) -> int:
    """Out-of-place operands that copy contents (allocation-only ones do not)."""
    return sum(1 for _, alloc_only in _copy_targets(ma) if not alloc_only)


def copy_cost(ma) -> int:
    """Bytes the out-of-place decisions copy (dynamic shapes count huge)."""
    an = ma.an
    total = 0
    for value, alloc_only in _copy_targets(ma):
        if alloc_only:
            continue
        b = an.types[an.value_type[value]].static_bytes
        total += _DYNAMIC_COST if b < 0 else b
    return total


def copy_target(ma, o: int) -> tuple[int, bool]:
    """(value copied, allocation only) for an out-of-place operand, as
    upstream's resolveTensorOpOperandConflicts and canOmitTensorCopy decide."""
    an = ma.an
    aliases = an.aliasing_values(o)
    s = an.sem[an.opnd_op[o]]
    if s is None or not s.bufferizable:
        return an.operands[o], False
    target = an.operands[o]
    if (len(aliases) == 1 and an.value_op[aliases[0][0]] >= 0 and not an.write(o)
            and len(an.aliasing_opoperands(aliases[0][0])) == 1):
        target = aliases[0][0]
    return target, can_omit_copy(ma, o)


def can_omit_copy(ma, o: int) -> bool:
    an = ma.an
    if undefined_contents(ma, an.operands[o]):
        return True
    if an.write(o) and not an.read(o):
        return True
    if not an.read(o) and not any(an.is_value_read(v) for (v, _, _) in an.aliasing_values(o)):
        return True
    return False


def undefined_contents(ma, v: int) -> bool:
    """gatherUndefinedTensorUses: a bufferizable op's tensor result without
    definitions in its reverse use-def chain."""
    an = ma.an
    op = an.value_op[v]
    if op < 0 or an.sem[op] is None or not an.sem[op].bufferizable:
        return False
    first = an.use_begin[v]
    if first == an.use_begin[v + 1]:
        return False
    return not an.definitions(an.use_opnd[first])


def analyze(target: Union[ir.Module, ir.Operation, Any], **options) -> AnalysisResult:
    """Run memplan's in-place analysis on a module or one function.

    ``options`` are the pass options in Python spelling
    (``bufferize_function_boundaries=True``, ``analysis_heuristic="top-down"``,
    ...). The IR is not modified.
    """
    op = target.operation if isinstance(target, (ir.Module, ir.OpView)) else target
    func_name = None
    module = op
    if op.name == "func.func":
        func_name = ir.StringAttr(op.attributes["sym_name"]).value
        module = op.parent
        while module is not None and module.name != "builtin.module":
            module = module.parent
        if module is None:
            raise ValueError("the function is not inside a builtin.module")
    opts = _options(options)
    from memplan.inplace.analysis import AnalysisError
    from memplan.inplace.semantics import Unsupported

    try:
        ma = run_heuristic(module, opts)
    except (Unsupported, AnalysisError) as err:
        raise InplaceAnalysisError(_located(module, err), err) from None
    if ma.an.errors:
        op, msg = ma.an.errors[0]
        raise InplaceAnalysisError(f"{location_prefix(ma.an.pyop(op).location)}: {msg}", None)
    return build_result(ma, func_name)


def _value(an, v: int) -> ir.Value:
    """The bindings' value for the analysis' value id ``v``."""
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


class InplaceAnalysisError(ValueError):
    """The analysis stopped: an op it does not model, or an upstream error
    (e.g. a loop yielding a non-equivalent tensor). ``str()`` is located."""

    def __init__(self, message: str, cause):
        super().__init__(message)
        self.cause = cause


def _located(module, err) -> str:
    from memplan.ir.graph import extract_graph, operation

    try:
        op = operation(extract_graph(module), err.op)
        return f"{location_prefix(op.location)}: {err.message}"
    except Exception:  # pragma: no cover
        return err.message


def build_result(ma, func_name: Optional[str] = None) -> AnalysisResult:
    an = ma.an
    states: dict[int, ir.AsmState] = {}
    infos: dict[int, ValueInfo] = {}

    def func_of(op: int) -> int:
        while op > 0 and an.op_name[op] != "func.func":
            op = an.op_parent[op]
        return op

    def loc(op: int) -> str:
        return location_prefix(an.pyop(op).location)

    def info(v: int) -> ValueInfo:
        i = infos.get(v)
        if i is None:
            owner = an.owner(v)
            f = func_of(owner)
            st = states.get(f)
            if st is None:
                st = states[f] = ir.AsmState(an.pyop(f))
            kind = "result" if an.value_op[v] >= 0 else "bbArg"
            i = infos[v] = ValueInfo(v, _value(an, v).get_name(st), an.types[an.value_type[v]].text,
                                     f"{kind} {an.value_index[v]} of {an.op_name[owner]}", loc(owner))
        return i

    def fname(f: int) -> str:
        if f <= 0:
            return ""
        return ir.StringAttr(an.pyop(f).attributes["sym_name"]).value

    def ref(o: int) -> OpRef:
        op = an.opnd_op[o]
        return OpRef(an.op_name[op], o - an.ob[op], loc(op))

    decisions: list[OperandDecision] = []
    scope_values: list[int] = []
    for scope in ma.scopes:
        for op in range(scope, an.op_end[scope] + 1):
            f = func_of(op)
            if func_name is not None and fname(f) != func_name:
                continue
            scope_values.extend(an.tensor_results(op))
            for r in an.regions_of(op):
                for b in an.region_blocks_of(r):
                    scope_values.extend(a for a in an.block_args(b) if an.is_tensor[a])
            for o in an.tensor_operands(op):
                d = OperandDecision(an.op_name[op], o - an.ob[op], loc(op), fname(f),
                                    info(an.operands[o]), bool(an.inplace[o]))
                if not d.inplace:
                    c = an.conflicts.get(o)
                    if c is not None:
                        d.conflict = ConflictInfo(info(c.definition), ref(c.write), ref(c.read))
                    d.non_writable = [info(v) for v in an.nonwritable_hits.get(o, [])]
                    target, alloc_only = copy_target(ma, o)
                    d.copy_of = info(target)
                    d.copy_bytes = an.types[an.value_type[target]].static_bytes
                    d.alloc_only = alloc_only
                decisions.append(d)

    def groups(uf) -> list[list[ValueInfo]]:
        by_root: dict[int, list[ValueInfo]] = {}
        for v in scope_values:
            by_root.setdefault(uf.find(v), [])
        for root in by_root:
            by_root[root] = [info(m) for m in uf.members(root)]
        return list(by_root.values())

    return AnalysisResult(decisions, groups(an.alias), groups(an.equiv), ma.opts.analysis_heuristic,
                          list(getattr(ma, "heuristic_costs", [])))
