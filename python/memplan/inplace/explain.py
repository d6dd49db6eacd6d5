"""The explanation API: the analysis' decisions, sets and conflicts as data.

:func:`analyze` runs memplan's in-place engine (:mod:`memplan.inplace.engine`)
in analysis-only mode (the IR is not touched) and returns an
:class:`AnalysisResult`: the decision per tensor OpOperand, alias and
equivalence sets, every conflict as (definition, conflicting write, read)
with ops and locations, and the copy upstream's copy insertion would make
with its bytes. ``to_json()`` exports all of it; ``explain_text()`` is what
``memplan explain FILE`` prints.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Optional, Union

from mlir import ir

from memplan import _core
from memplan.inplace import engine
from memplan.inplace.min_copy_bytes import run_ranked
from memplan.inplace.options import order_name
from memplan.ir.interfaces import is_function, is_module, symbol_name
from memplan.ir.parse import location_prefix
from memplan.passes import lookup


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
    """An operand of an op: the op's name, operand number and location."""

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
    """The in-place decision on one tensor operand, and why."""

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
    #: the shape is dynamic) and whether only an allocation is needed. None
    #: for an op upstream's copy insertion skips (an unknown op: no copy).
    copy_of: Optional[ValueInfo] = None
    copy_bytes: int = 0
    alloc_only: bool = False

    def explain(self) -> str:
        """Why this operand bufferizes out of place, as text."""
        head = (
            f"{self.location}: operand #{self.operand} of {self.op} ({self.value.name} : "
            f"{self.value.type}) bufferizes out of place"
        )
        size = "dynamic size" if self.copy_bytes < 0 else f"{self.copy_bytes} bytes"
        subject = self.copy_of.name if self.copy_of else self.value.name
        if self.copy_of is None:
            lines = [f"{head}: no copy (the op is not bufferizable; it keeps its tensor operand)"]
        elif self.alloc_only:
            lines = [
                f"{head}: a new buffer in place of {subject} ({size}; no copy, its contents are "
                "not read)"
            ]
        else:
            lines = [f"{head}: a copy of {subject} ({size})"]
        if self.conflict is not None:
            c = self.conflict
            lines.append(
                f"  definition:        {c.definition.location}: {c.definition.name} "
                f"({c.definition.defined_by})"
            )
            lines.append(
                f"  conflicting write: {c.write.location}: operand #{c.write.operand} of "
                f"{c.write.op}"
            )
            lines.append(
                f"  read:              {c.read.location}: operand #{c.read.operand} of {c.read.op}"
            )
            lines.append(
                "  in place, the write would overwrite the definition before the read sees it"
            )
        elif self.non_writable:
            for v in self.non_writable:
                lines.append(f"  not writable:      {v.location}: {v.name} ({v.defined_by})")
            lines.append("  in place, the op would write into a buffer that must not be written")
        return "\n".join(lines)


@dataclass
class AnalysisResult:
    """The in-place analysis of a module: a decision per tensor operand,
    the alias and equivalence sets, and the heuristic used."""

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
        """The read-after-write conflicts behind out-of-place operands."""
        return [d.conflict for d in self.operands if d.conflict is not None]

    @property
    def copy_bytes(self) -> int:
        """Bytes copied (allocation-only copies cost 0; dynamic ones count as -1 each)."""
        return sum(0 if d.alloc_only else d.copy_bytes for d in self.copies if d.copy_bytes >= 0)

    def to_dict(self) -> dict[str, Any]:
        """The whole analysis as plain data (what ``to_json`` prints)."""
        return {
            "heuristic": self.heuristic,
            "operands": [asdict(d) for d in self.operands],
            "alias_sets": [[asdict(v) for v in s] for s in self.alias_sets],
            "equivalence_sets": [[asdict(v) for v in s] for s in self.equivalence_sets],
            "copy_bytes": self.copy_bytes,
            "heuristic_costs": [
                {"order": h, "copy_bytes": b, "copies": c} for (h, b, c) in self.heuristic_costs
            ],
        }

    def to_json(self, indent: Optional[int] = 2) -> str:
        """The whole analysis as JSON."""
        return json.dumps(self.to_dict(), indent=indent)

    def explain_text(self) -> str:
        """Why each copy is made, and the total, as text."""
        copies = self.copies
        if not copies:
            return "no copies: every tensor operand bufferizes in place\n"
        parts = [d.explain() for d in copies]
        total = f"{len(copies)} out-of-place operand(s), {self.copy_bytes} bytes copied"
        return "\n\n".join(parts) + "\n\n" + total + "\n"


def analyze(target: Union[ir.Module, ir.Operation, Any], **options: Any) -> AnalysisResult:
    """Run memplan's in-place analysis on a module or one function.

    ``options`` are the pass options in Python spelling
    (``bufferize_function_boundaries=True``, ``analysis_heuristic="top-down"``,
    ...), checked as the pass checks them (:class:`memplan.passes.PassOptionError`
    for an unknown option or a bad value). The IR is not modified. Raises
    :class:`InplaceAnalysisError` (with the first error, located) when the
    analysis fails.
    """
    op = target.operation if isinstance(target, (ir.Module, ir.OpView)) else target
    func_name = None
    module = op
    if is_function(op):
        func_name = symbol_name(op)
        module = op.parent
        while module is not None and not is_module(module):
            module = module.parent
        if module is None:
            raise ValueError("the function is not inside a builtin.module")
    values = lookup("memplan-one-shot-bufferize").resolve_options(options)
    values.update(test_analysis_only=False, print_conflicts=False, dump_alias_sets=False)
    heuristic, seed = values["analysis_heuristic"], values["analysis_fuzzer_seed"]
    if heuristic == "fuzzer" and not seed:
        raise ValueError("analysis_heuristic='fuzzer' needs a non-zero analysis_fuzzer_seed")
    errors: list[str] = []

    def on_diagnostic(d: ir.Diagnostic) -> bool:
        if d.severity == ir.DiagnosticSeverity.ERROR:
            errors.append(f"{location_prefix(d.location)}: {d.message}")
        return True

    costs: list = []
    handler = module.context.attach_diagnostic_handler(on_diagnostic)
    try:
        if heuristic == "min-copy-bytes":
            ranking, result = run_ranked(module, values, analysis_only=True)
            heuristic, seed, costs = ranking.heuristic, ranking.seed, ranking.costs
        else:
            result = engine.run(module, values, heuristic, seed, analysis_only=True)
    finally:
        handler.detach()
    if not result.ok:
        raise InplaceAnalysisError(errors[0] if errors else "the in-place analysis failed", None)
    return build_result(module, result, order_name(heuristic, seed), costs, func_name)


class InplaceAnalysisError(ValueError):
    """The analysis stopped: an op that is not bufferizable (without
    allow_unknown_ops), or an upstream error (e.g. a loop yielding a
    non-equivalent tensor). ``str()`` is located."""

    def __init__(self, message: str, cause):
        super().__init__(message)
        self.cause = cause


class _Numbering:
    """The engine's op numbering (pre-order from the module, which is op 0)
    and the value and location facts an :class:`AnalysisResult` prints."""

    def __init__(self, module: ir.Operation):
        self.ops: list[ir.Operation] = []
        self.func: list[int] = []  # nearest function (itself included), or -1
        stack = [(module, -1)]
        while stack:
            op, parent = stack.pop()
            i = len(self.ops)
            self.ops.append(op)
            self.func.append(i if is_function(op) else (self.func[parent] if parent >= 0 else -1))
            children = [
                child.operation
                for region in op.regions
                for block in region.blocks
                for child in block.operations
            ]
            stack.extend((c, i) for c in reversed(children))
        self._op_ids = {op: i for i, op in enumerate(self.ops)}
        self._states: dict[int, ir.AsmState] = {}
        self._infos: dict[tuple, ValueInfo] = {}
        self._ids: dict[tuple, int] = {}

    def function_name(self, op: int) -> str:
        f = self.func[op]
        return "" if f < 0 else ir.StringAttr(self.ops[f].attributes["sym_name"]).value

    def location(self, op: int) -> str:
        return location_prefix(self.ops[op].location)

    def value(self, key: tuple) -> ir.Value:
        """The value of an engine value tuple (op, block argument, region, block, index)."""
        op, is_arg, region, block, index = key
        if not is_arg:
            return self.ops[op].results[index]
        return list(self.ops[op].regions[region].blocks)[block].arguments[index]

    def value_key(self, value: ir.Value) -> tuple:
        """The engine value tuple of ``value``."""
        owner = value.owner
        if isinstance(owner, ir.Block):
            parent = owner.owner
            for ri, region in enumerate(parent.regions):
                for bi, block in enumerate(region.blocks):
                    if block == owner:
                        return (
                            self._op_ids[parent.operation],
                            True,
                            ri,
                            bi,
                            ir.BlockArgument(value).arg_number,
                        )
            raise ValueError("a block argument outside its parent's regions")  # pragma: no cover
        return (self._op_ids[owner.operation], False, 0, 0, ir.OpResult(value).result_number)

    def info(self, key: tuple) -> ValueInfo:
        key = tuple(key)
        found = self._infos.get(key)
        if found is None:
            op, is_arg, _, _, index = key
            f = self.func[op] if self.func[op] >= 0 else 0
            state = self._states.get(f)
            if state is None:
                state = self._states[f] = ir.AsmState(self.ops[f])
            value = self.value(key)
            kind = "bbArg" if is_arg else "result"
            found = self._infos[key] = ValueInfo(
                self._ids.setdefault(key, len(self._ids)),
                value.get_name(state),
                str(value.type),
                f"{kind} {index} of {self.ops[op].name}",
                self.location(op),
            )
        return found

    def ref(self, op: int, operand: int) -> OpRef:
        return OpRef(self.ops[op].name, operand, self.location(op))

    def tensor_values(self, op: int) -> list[tuple]:
        """Tensor results, then tensor block arguments, of op ``op``."""
        o = self.ops[op]
        out = [
            (op, False, 0, 0, i)
            for i, r in enumerate(o.results)
            if isinstance(r.type, (ir.RankedTensorType, ir.UnrankedTensorType))
        ]
        for ri, region in enumerate(o.regions):
            for bi, block in enumerate(region.blocks):
                out.extend(
                    (op, True, ri, bi, i)
                    for i, a in enumerate(block.arguments)
                    if isinstance(a.type, (ir.RankedTensorType, ir.UnrankedTensorType))
                )
        return out


def build_result(
    module: ir.Operation,
    result: _core.EngineResult,
    heuristic: str,
    costs: list,
    func_name: Optional[str] = None,
) -> AnalysisResult:
    """The :class:`AnalysisResult` of an analysis-only engine ``result`` on
    ``module`` (only function ``func_name``'s operands and values if given)."""
    n = _Numbering(module)
    scopes = set(result.scopes)

    def selected(op: int) -> bool:
        in_scope = 0 in scopes or n.func[op] in scopes
        return in_scope and (func_name is None or n.function_name(op) == func_name)

    conflicts = {(c[0][0], c[0][1]): c for c in result.conflicts if c[1][0] >= 0}
    copies = {(c[0], c[1]): c for c in result.copies}
    decisions: list[OperandDecision] = []
    for op, operand, inplace in sorted(result.decisions, key=lambda d: (d[0], d[1])):
        if not selected(op):
            continue
        value = n.ops[op].operands[operand]
        key = n.value_key(value)
        d = OperandDecision(
            n.ops[op].name, operand, n.location(op), n.function_name(op), n.info(key), inplace
        )
        if not inplace:
            c = conflicts.get((op, operand))
            if c is not None:
                d.conflict = ConflictInfo(n.info(c[3]), n.ref(*c[2]), n.ref(*c[1]))
            copy = copies.get((op, operand))
            if copy is not None:
                _, _, copied, alloc_only, nbytes, non_writable = copy
                d.non_writable = [n.info(v) for v in non_writable]
                d.copy_of = n.info(copied)
                d.copy_bytes = nbytes
                d.alloc_only = alloc_only
        decisions.append(d)

    scope_values = [v for op in range(len(n.ops)) if selected(op) for v in n.tensor_values(op)]

    def groups(sets: list) -> list[list[ValueInfo]]:
        set_of = {tuple(m): i for i, members in enumerate(sets) for m in members}
        out, emitted = [], set()
        for v in scope_values:
            i = set_of.get(v)
            if i is None:
                out.append([n.info(v)])
            elif i not in emitted:
                emitted.add(i)
                out.append([n.info(m) for m in sets[i]])
        return out

    return AnalysisResult(
        decisions,
        groups(result.alias_sets),
        groups(result.equivalence_sets),
        heuristic,
        list(costs),
    )
