"""Bit-for-bit comparison of two versions of a program.

:func:`compare` runs ``before`` and ``after`` on the same inputs and compares
every output: each result of the entry function and each memref argument
after the call (a program may write its arguments).  Elements are compared as
raw bytes, so ``-0.0 != 0.0`` and two NaNs are equal only with the same bits.

With ``poison=True`` (the default) heap blocks start filled with the byte
``0xFF`` (NaN for every float type) and each module runs a second time with
``0x5A`` (large positive values).
A module whose outputs differ between its two runs read heap memory it had
not written (or had freed): this is reported as an ``"uninitialized"``
problem for that module, separately from the before/after comparison, which
uses the ``0xFF`` runs.  Stack memory (``memref.alloca``) is not poisoned.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from memplan.transients.contract import QUERY_SUFFIX

from .forms import Pairing, Role, pair_forms
from .heap import POISON_BYTES, HeapStats, UseAfterFree
from .inputs import ArgValue, DimsSpec, make_arguments, place_array
from .lowering import LoweredProgram, lower
from .parallel import cores
from .parallel import start as parallel_start
from .runner import DEFAULT_OPT_LEVEL, Executable, ExecutionCrash, Output, RunOutcome
from .signature import Signature, ValueSpec
from .source import ModuleSource, private_copy
from .timing import PhaseTimes, phase

__all__ = [
    "Mismatch",
    "CompareResult",
    "compare",
    "compare_paths",
    "first_difference",
    "expected_difference",
]


@dataclass
class Mismatch:
    """The first difference between two runs.

    ``kind`` is ``"value"`` (before and after disagree), ``"uninitialized"``
    (one module disagrees with itself under two poison bytes; ``module`` says
    which and ``before``/``after`` hold its values under ``0xFF``/``0x5A``),
    ``"shape"`` (an output has different shapes) or ``"signature"`` (the entry
    functions take or return different types).
    """

    kind: str
    #: Position in the output list: results first, then memref arguments.
    output: int
    #: E.g. ``"result #0 (memref<4xf32>)"`` or ``"arg #2 (memref<?xf32>)"``.
    output_name: str
    #: Row-major element index into the output (for arguments: into the
    #: argument's backing store, the same thing for identity layouts).
    flat_index: Optional[int]
    #: Value in the first run (``before``, or the ``0xFF`` run), as a numpy
    #: scalar (bf16 shown as float32).
    before: Any
    #: Value in the second run (``after``, or the ``0x5A`` run).
    after: Any
    #: Multi-dimensional index of ``flat_index`` where it has one.
    index: Optional[Tuple[int, ...]] = None
    #: Number of elements that differ in this output.
    count: int = 0
    #: Number of elements in this output.
    size: int = 0
    #: For ``"uninitialized"``: ``"before"`` or ``"after"``.
    module: str = ""
    #: Raw bits of the two values, as hex.
    before_bits: str = ""
    after_bits: str = ""
    detail: str = ""

    def __str__(self) -> str:
        if self.kind == "signature":
            return f"signature mismatch: {self.detail}"
        if self.kind == "shape":
            return (
                f"{self.output_name} (output {self.output}): shape "
                f"{self.before} (before) vs {self.after} (after)"
            )
        where = f"element {self.flat_index}"
        if self.index is not None and len(self.index) > 1:
            where += f" {list(self.index)}"
        if self.kind == "uninitialized":
            first, second = (f"poison 0x{b:02X}" for b in POISON_BYTES)
            head = f"{self.module} reads uninitialized memory: "
        else:
            first, second = "before", "after"
            head = ""
        return (
            f"{head}{self.output_name} (output {self.output}), {where}: "
            f"{first} = {str(self.before)} [0x{self.before_bits}], "
            f"{second} = {str(self.after)} [0x{self.after_bits}] "
            f"({self.count} of {self.size} elements differ)"
        )


@dataclass
class CompareResult:
    """Outcome of :func:`compare`."""

    #: True when outputs agree bit for bit, neither module reads
    #: uninitialized memory, neither has a heap fault (an invalid or double
    #: free, a leak: ``HeapStats.faults``) and the same ``cf.assert``
    #: messages failed the same number of times in both.
    ok: bool
    #: First before/after difference (``None`` when they agree).
    mismatch: Optional[Mismatch]
    #: Heap traffic of ``before`` and ``after`` (first run of each).
    heap_before: HeapStats
    heap_after: HeapStats
    #: One entry per module caught reading uninitialized memory (poison mode).
    uninitialized: List[Mismatch] = field(default_factory=list)
    #: Failed ``cf.assert``s of each module, ``"<location>: <message>"``.
    asserts_before: List[str] = field(default_factory=list)
    asserts_after: List[str] = field(default_factory=list)
    #: How often each assertion message failed, per module.  The check
    #: fails when these differ (messages are compared, not locations).
    assert_counts_before: Dict[str, int] = field(default_factory=dict)
    assert_counts_after: Dict[str, int] = field(default_factory=dict)
    #: Entry signature after bufferization, e.g. ``@main(memref<4xf32>) -> ()``.
    signature: str = ""
    #: Number of outputs compared (results plus memref arguments).
    outputs: int = 0
    poison: bool = True
    seed: int = 0
    #: How each side was run: its level (and the upstream pipeline that
    #: bufferized a tensor-level module here) and its signature's form.
    form_before: str = ""
    form_after: str = ""
    #: The compared outputs by program name (``result0``, ``arg1``: results,
    #: then memref arguments, numbered as ``before``'s function).
    output_names: List[str] = field(default_factory=list)
    #: With ``keep_outputs``: each side's outputs by program name.
    outputs_before: Dict[str, Output] = field(default_factory=dict)
    outputs_after: Dict[str, Output] = field(default_factory=dict)

    def __str__(self) -> str:
        agree = (
            self.mismatch is None
            and not self.uninitialized
            and self.assert_counts_before == self.assert_counts_after
        )
        lines = ["OK" if self.ok else "HEAP FAULT" if agree else "MISMATCH"]
        if self.mismatch is not None:
            lines.append(f"  {self.mismatch}")
        for problem in self.uninitialized:
            lines.append(f"  {problem}")
        for label, heap in (("before", self.heap_before), ("after", self.heap_after)):
            lines.extend(f"  {label}: {fault}" for fault in heap.fault_lines())
        same = self.assert_counts_before == self.assert_counts_after
        if not same:
            lines.append("  failed assertions differ:")
        for label, counts, where in (
            ("before", self.assert_counts_before, self.asserts_before),
            ("after", self.assert_counts_after, self.asserts_after),
        ):
            if same and label == "after":
                break
            for msg, n in counts.items():
                locs = [w[: -len(msg) - 2] for w in where if w.endswith(": " + msg)]
                lines.append(
                    f"  {'both' if same else label}: assertion failed {n} time"
                    f"{'' if n == 1 else 's'}: {msg!r} (at {', '.join(locs)})"
                )
        if self.ok:
            lines[0] += f": {self.outputs} output{'' if self.outputs == 1 else 's'} identical" + (
                " (poison checked)" if self.poison else ""
            )
        if self.form_before:
            lines.append(f"  before: {self.form_before}")
            lines.append(f"  after:  {self.form_after}")
        lines.append(f"  heap before: {self.heap_before}")
        lines.append(f"  heap after:  {self.heap_after}")
        return "\n".join(lines)


def expected_difference(
    actual: np.ndarray, expected: np.ndarray, rtol: float = 0.0, atol: float = 0.0
) -> Optional[str]:
    """How an output differs from an expected array (``None``: it does not).

    With ``rtol == atol == 0`` the two must be equal bit for bit when they
    have the same dtype, equal in value (NaNs alike) otherwise; with a
    tolerance, ``|actual - expected| <= atol + rtol * |expected|`` element
    by element, as ``numpy.isclose`` (NaNs alike).
    """
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape:
        return f"shape {actual.shape}, expected {expected.shape}"
    if actual.size == 0:
        return None
    if rtol == 0 and atol == 0 and actual.dtype == expected.dtype:
        a = np.ascontiguousarray(actual).reshape(-1).view(np.uint8).reshape(actual.size, -1)
        e = np.ascontiguousarray(expected).reshape(-1).view(np.uint8).reshape(expected.size, -1)
        differs = np.any(a != e, axis=1)
    else:
        try:
            a64, e64 = actual.astype(np.complex128), expected.astype(np.complex128)
        except (TypeError, ValueError):
            return f"dtype {actual.dtype}, expected {expected.dtype}"
        same_nan = np.isnan(a64) & np.isnan(e64)
        close = np.isclose(a64, e64, rtol=rtol, atol=atol) if (rtol or atol) else a64 == e64
        differs = ~(close | same_nan)
        differs = differs.reshape(-1)
    if not differs.any():
        return None
    count = f"{int(differs.sum())} of {actual.size} elements differ"
    try:
        a64, e64 = (
            actual.astype(np.complex128).reshape(-1),
            expected.astype(np.complex128).reshape(-1),
        )
    except (TypeError, ValueError):
        a64 = e64 = None
    if a64 is None or not np.isfinite(np.abs(a64 - e64)[differs]).all():
        flat = int(np.argmax(differs))
        return (
            f"element {_where(flat, actual.shape)}: {actual.reshape(-1)[flat]}, expected "
            f"{expected.reshape(-1)[flat]} ({count})"
        )
    # The largest errors, to choose a tolerance from.
    error = np.where(differs, np.abs(a64 - e64), 0.0)
    magnitude = np.abs(e64)
    relative = np.where(differs, error / np.where(magnitude > 0, magnitude, np.inf), 0.0)
    worst, worst_rel = int(np.argmax(error)), int(np.argmax(relative))

    def element(flat: int) -> str:
        return (
            f"at {_where(flat, actual.shape)} ({actual.reshape(-1)[flat]}, expected "
            f"{expected.reshape(-1)[flat]})"
        )

    return (
        f"{count}; largest absolute error {error[worst]:.3g} {element(worst)}; largest relative "
        f"error {relative[worst_rel]:.3g} {element(worst_rel)}"
    )


def _where(flat: int, shape: tuple) -> str:
    """A flat element index as the multi-dimensional index of ``shape``."""
    return str([int(i) for i in np.unravel_index(flat, shape)] if shape else [])


def _bits(value: np.ndarray) -> str:
    return value.tobytes()[::-1].hex()  # little-endian host: most significant first


def _display(value: np.generic, element: str) -> np.generic:
    """The element as a numpy scalar (bf16 bit patterns become float32)."""
    if element == "bf16":
        return np.array(int(value) << 16, dtype=np.uint32).view(np.float32)[()]
    return value


def _same_bytes(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether two arrays hold the same bytes (fast: compared as words)."""
    x = np.ascontiguousarray(x).reshape(-1).view(np.uint8)
    y = np.ascontiguousarray(y).reshape(-1).view(np.uint8)
    if x.size != y.size:
        return False
    if x.size % 8 == 0:
        return bool(np.array_equal(x.view(np.uint64), y.view(np.uint64)))
    return bool(np.array_equal(x, y))


def first_difference(
    left: Sequence[Output],
    right: Sequence[Output],
    kind: str = "value",
    elements: Optional[Sequence[str]] = None,
) -> Optional[Mismatch]:
    """First output element whose bytes differ between two runs, or ``None``.

    ``elements`` gives the element type text of each output (for display).
    """
    for n, (a, b) in enumerate(zip(left, right)):
        if a.shape != b.shape or a.data.shape != b.data.shape:
            return Mismatch("shape", n, a.name, None, a.shape, b.shape)
        item = a.data.dtype.itemsize
        count = a.data.size
        if count == 0 or _same_bytes(a.data, b.data):
            continue
        ab = np.ascontiguousarray(a.data).reshape(-1).view(np.uint8).reshape(count, item)
        bb = np.ascontiguousarray(b.data).reshape(-1).view(np.uint8).reshape(count, item)
        differs = np.any(ab != bb, axis=1)
        if not differs.any():
            continue
        flat = int(np.argmax(differs))
        va = a.data.reshape(-1)[flat]
        vb = b.data.reshape(-1)[flat]
        element = elements[n] if elements else ""
        index = None
        if a.shape and count == int(np.prod(a.shape)):
            index = tuple(int(i) for i in np.unravel_index(flat, a.shape))
        return Mismatch(
            kind,
            n,
            a.name,
            flat,
            _display(va, element),
            _display(vb, element),
            index=index,
            count=int(differs.sum()),
            size=count,
            before_bits=_bits(np.asarray(va)),
            after_bits=_bits(np.asarray(vb)),
        )
    return None


def _runs(
    exe: Executable,
    args,
    poison: bool,
    scratch: Sequence[int],
    elements: List[str],
    label: str,
    fill: Sequence[int] = (),
    isolate: bool = False,
) -> Tuple[RunOutcome, Optional[Mismatch]]:
    """Run once (zeroed heap), or once per poison byte on the same compiled
    code; return the first run and the module's uninitialized read, if any.
    The second run's outputs are dropped as soon as they are compared."""
    try:
        if not poison:
            return exe.run(args, None, scratch, fill, isolate), None
        first = exe.run(args, POISON_BYTES[0], scratch, fill, isolate)
        second = exe.run(args, POISON_BYTES[1], scratch, fill, isolate)
    except ExecutionCrash as err:
        err.args = (f"{label}: {err.args[0]}",)
        raise
    except UseAfterFree as err:
        raise UseAfterFree(f"{label}: {err.args[0]}") from None
    problem = first_difference(first.outputs, second.outputs, "uninitialized", elements)
    if problem is not None:
        problem.module = label
    return first, problem


def _run_elements(sig: Signature, scratch: Sequence[int]) -> List[str]:
    """Element types of a run's outputs, in the runner's order."""
    return [r.element for r in sig.results] + [
        a.element for i, a in enumerate(sig.args) if a.is_memref and i not in scratch
    ]


def _blank(spec: ValueSpec, index: int, what: str) -> ArgValue:
    """An argument the function writes (an out-param) or working memory of
    a static size: zeros, filled with poison before each run."""
    if any(d is None for d in spec.shape):
        raise ValueError(
            f"{what} %arg{index} ({spec.type_str}) has a dynamic shape: give it with "
            "inputs, or compare forms whose out-params are static"
        )
    shape = tuple(spec.shape)
    return place_array(spec, index, np.zeros(shape, spec.dtype), np.random.default_rng(0))


def _side_arguments(
    base: Sequence[ArgValue], sig: Signature, roles: Sequence[Role], seed: int
) -> List[Optional[ArgValue]]:
    """Arguments of one side from ``base`` (before's): each input is
    before's value in this side's layout, an out-param a blank array;
    storage is left to be sized (``None``)."""
    rng = np.random.default_rng(seed + 1)
    out: List[Optional[ArgValue]] = []
    for i, (role, spec) in enumerate(zip(roles, sig.args)):
        if role.kind == "input":
            arg = base[role.index]
            out.append(
                arg
                if arg.spec == spec or not spec.is_memref
                else place_array(spec, i, arg.view(), rng)
            )
        elif role.kind == "out":
            out.append(_blank(spec, i, "out-param"))
        else:
            out.append(None)
    return out


def _storage_size(
    program: LoweredProgram, exe: Executable, args: Sequence[Optional[ArgValue]], index: int
) -> Tuple[int, str]:
    """Bytes of transient storage ``program`` asks for through its size
    query (1 without one: the function's own size check then fails), and
    where the number comes from."""
    name = program.signature.name + QUERY_SUFFIX
    query = program.others.get(name)
    rest = [a for i, a in enumerate(args) if i != index]
    if query is None or len(rest) != len(query.args) or any(a is None for a in rest):
        return 1, "no size query"
    result = exe.call(query, rest)
    return (max(1, int(result[0].data)) if result else 1), f"from @{name}"


def _place_storage(args: List[Optional[ArgValue]], sig: Signature, index: int, size: int) -> None:
    spec = sig.args[index]
    if spec.shape and spec.shape[0] is not None:
        size = spec.shape[0]
    args[index] = place_array(spec, index, np.zeros(size, spec.dtype), np.random.default_rng(0))


def _program_outputs(
    outputs: Sequence[Output],
    sig: Signature,
    roles: Sequence[Role],
    results: Sequence[int],
    scratch: Sequence[int],
) -> Dict[Tuple[str, int], Tuple[Output, ValueSpec, bool]]:
    """A run's outputs by what they are in the program: ``("result", r)``
    or ``("arg", i)`` (before's numbering), with their spec and whether the
    side holds them in an argument."""
    named = {}
    n = 0
    for j, spec in enumerate(sig.results):
        named[("result", results[j])] = (outputs[n], spec, False)
        n += 1
    for i, spec in enumerate(sig.args):
        if not spec.is_memref or i in scratch:
            continue
        role = roles[i]
        key = ("result", role.index) if role.kind == "out" else ("arg", role.index)
        named[key] = (outputs[n], spec, True)
        n += 1
    return named


def _logical(output: Output, name: str) -> Output:
    """An output by its logical elements (an argument's backing store may
    hold gaps of a strided layout), under the program's name for it."""
    if output.logical is None:
        return Output(name, output.data, output.shape)
    return Output(name, np.array(output.logical, order="C"), output.shape, output.logical)


def _aligned_outputs(
    before: Dict, after: Dict, pairing: Pairing, sig_b: Signature
) -> Tuple[List[Output], List[Output], List[str], List[str]]:
    """Both runs' outputs in the program's order (results, then before's
    memref arguments), named alike, compared by logical elements wherever
    the two sides hold them differently; with their element types and the
    program names (``result0``, ``arg1``)."""
    keys = [("result", r) for r in range(len(pairing.program_results))]
    keys += sorted(k for k in before if k[0] == "arg")
    left, right, elements, names = [], [], [], []
    for kind, number in keys:
        (ob, spec_b, arg_b), (oa, spec_a, arg_a) = before[(kind, number)], after[(kind, number)]
        spec = pairing.program_results[number] if kind == "result" else sig_b.args[number]
        name = f"{kind} #{number} ({spec.type_str})"
        if (arg_b or arg_a) and (arg_b != arg_a or spec_b != spec_a):
            ob, oa = _logical(ob, name), _logical(oa, name)
        else:
            ob, oa = (
                Output(name, ob.data, ob.shape, ob.logical),
                Output(name, oa.data, oa.shape, oa.logical),
            )
        left.append(ob)
        right.append(oa)
        elements.append(spec.element)
        names.append(f"{kind}{number}")
    return left, right, elements, names


def _form(program: LoweredProgram, notes: Sequence[str]) -> str:
    """How a side was run: its level (and the pipeline that bufferized it
    here) and its signature's form."""
    if program.tensor_level:
        whose = {"upstream": "upstream", "memplan": "memplan's upstream-identical"}.get(
            program.reference, program.reference
        )
        text = (
            f"tensor level, bufferized here by {whose} {program.bufferization} (not "
            "optimize-allocation-liveness: its heap is not what upstream's full memory "
            "pipeline gives)"
        )
        if program.undeallocated:
            text += f", without frees: {program.undeallocated}"
    else:
        text = "memref level, run as given"
    return text + "".join(f"; {note}" for note in notes)


def compare(
    before: ModuleSource,
    after: ModuleSource,
    entry: str,
    values: Optional[Mapping[int, Any]] = None,
    **settings: Any,
) -> CompareResult:
    """Run ``before`` and ``after`` on identical inputs and compare bit for bit.

    ``before``/``after`` are ``mlir.ir.Module`` objects (copied, never
    modified), MLIR text or bytecode, at tensor or memref level; both are
    lowered as described in :mod:`memplan.numerics.lowering` and
    JIT-compiled once. ``values`` fixes arguments (index -> array or
    number; argument numbers are ``before``'s); the other keywords, which
    choose the inputs, the checks and how the programs run, are
    :func:`compare_paths`' (declared and documented there, once).

    The two entry functions compute the same values: same element types and
    shapes, in any memref layout (memplan's default bufferization gives
    arguments a fully dynamic layout), and either form of
    :mod:`memplan.numerics.forms`: one may write the other's memref results
    to out-params (``buffer-results-to-out-params``), and either may take
    transient storage.  Outputs held differently (other layouts, a result
    against an out-param) are compared element by element.

    Raises ``KeyError`` when a module has no ``func.func @entry``,
    :class:`~memplan.ir.parse.ParseError` when text does not parse,
    ``LoweringError`` / ``mlir.ir.MLIRError`` when one cannot be lowered or
    compiled, ``ValueError`` for inputs that do not fit the signature and
    ``TypeError`` for a keyword :func:`compare_paths` does not take.
    """
    return compare_paths(before, after, entry, [values], raise_errors=True, **settings)[0]


def compare_paths(
    before: ModuleSource,
    after: ModuleSource,
    entry: str,
    value_sets: Sequence[Optional[Mapping[int, Any]]],
    inputs: Optional[Sequence[Any]] = None,
    seed: int = 0,
    poison: bool = True,
    dims: Optional[DimsSpec] = None,
    opt_level: int = DEFAULT_OPT_LEVEL,
    scratch: Sequence[int] = (),
    keep_outputs: bool = False,
    isolate: bool = False,
    raise_errors: bool = True,
    reference: str = "upstream",
    times: Optional[PhaseTimes] = None,
    parallel: bool = False,
) -> List[Union[CompareResult, Exception]]:
    """:func:`compare` once per entry of ``value_sets`` (each a ``values``
    mapping: the scalars that select a path, say), lowering and compiling
    each module once: one :class:`CompareResult` per entry. Without
    ``raise_errors``, what a run raises (:class:`ExecutionCrash`,
    :class:`~memplan.numerics.heap.UseAfterFree`, ...) takes its entry's
    place instead.

    ``inputs`` gives one value per argument of ``before``'s ``@entry``
    (numpy arrays for memrefs/tensors, numbers for scalars); otherwise inputs
    are drawn as in :func:`memplan.numerics.inputs.make_arguments` with
    ``seed``, dynamic sizes from ``dims`` and the arguments of the entry's
    ``values`` fixed. ``poison`` enables the uninitialized-read check
    described in the module doc (two runs per module, one compilation).
    ``opt_level`` is the JIT's.

    ``scratch`` lists memref arguments that are working memory: they are
    filled with the poison byte before each run and not compared.  An
    argument marked ``memplan.transients`` is scratch too; unless ``dims`` or
    ``inputs`` size it, it gets the bytes that ``@<entry>_transient_size``
    asks for.  Out-params start filled with the poison byte (a function
    that reads one before writing it reads uninitialized memory).
    ``keep_outputs`` keeps both runs' outputs in the result
    (``outputs_before``/``outputs_after``, by program name).  ``isolate``
    runs each call in a forked child (:meth:`Executable.run`): a program
    that crashes raises :class:`~memplan.numerics.runner.ExecutionCrash`
    (memplan-check does this) instead of killing the process.
    ``reference`` bufferizes a tensor-level module with upstream's
    one-shot-bufferize (``"upstream"``) or memplan's (``"memplan"``: the same
    decisions, near-linear where upstream's analysis is about cubic), and
    ``times`` gets the seconds of each phase. With ``parallel`` and
    ``isolate`` on a machine with two cores or more, AFTER is lowered,
    JIT-compiled and run in forked children while BEFORE is in this process
    (the same code, the same bits; memplan-check does this).
    """
    also = (entry + QUERY_SUFFIX,)
    if parallel and cores() > 1:
        prog_b, prog_a = _lower_both(before, after, entry, also, reference, times)
    else:
        prog_b = lower(before, entry, "<before>", also, reference, times, "before")
        prog_a = lower(after, entry, "<after>", also, reference, times, "after")
    sig_b, sig_a = prog_b.signature, prog_a.signature
    pairing, difference = pair_forms(sig_b, sig_a)
    if pairing is None:
        mismatch = Mismatch(
            "signature",
            -1,
            f"@{entry}",
            None,
            str(sig_b),
            str(sig_a),
            detail=difference,
        )
        return [
            CompareResult(
                False,
                mismatch,
                HeapStats(),
                HeapStats(),
                signature=str(sig_b),
                poison=poison,
                seed=seed,
                form_before=_form(prog_b, ()),
                form_after=_form(prog_a, ()),
            )
            for _ in value_sets
        ]

    exe_b, exe_a = Executable(prog_b, opt_level), Executable(prog_a, opt_level)
    results: List[Union[CompareResult, Exception]] = []
    for k, values in enumerate(value_sets):
        try:
            results.append(
                _compare_once(
                    prog_b,
                    prog_a,
                    exe_b,
                    exe_a,
                    pairing,
                    inputs,
                    seed,
                    poison,
                    dims,
                    scratch,
                    values,
                    keep_outputs,
                    isolate,
                    last=k == len(value_sets) - 1,
                    times=times,
                    parallel=parallel and len(value_sets) == 1 and cores() > 1,
                )
            )
        except (RuntimeError, ValueError) as err:
            if raise_errors:
                raise
            results.append(err)
    return results


def _lower_both(
    before: ModuleSource,
    after: ModuleSource,
    entry: str,
    also: Sequence[str],
    reference: str,
    times: Optional[PhaseTimes],
) -> Tuple[LoweredProgram, LoweredProgram]:
    """:func:`~memplan.numerics.lowering.lower` of both sides, AFTER's in a
    forked child meanwhile (:mod:`memplan.numerics.parallel`). The child
    sends its lowered module back as bytecode, parsed here into a context of
    its own (as ``lower`` gives each module): the same module as lowered here,
    at the cost of writing and parsing it (gpt2_l48_h512_s128: 0.3 CPU s
    against 2 of lowering). What the child raises is raised here, after what
    lowering BEFORE raises."""

    def after_side() -> Tuple[bytes, LoweredProgram, Optional[PhaseTimes]]:
        side_times = PhaseTimes() if times is not None else None
        program = lower(after, entry, "<after>", also, reference, side_times, "after")
        stream = io.BytesIO()
        program.module.operation.write_bytecode(stream)
        return stream.getvalue(), replace(program, module=None), side_times

    child = parallel_start(after_side, "lowering AFTER")
    try:
        prog_b = lower(before, entry, "<before>", also, reference, times, "before")
    except BaseException:
        child.cancel()
        raise
    data, prog_a, side_times = child.result()
    prog_a.module = private_copy(data, "<after>")
    if times is not None:
        times.merge(side_times)
    return prog_b, prog_a


def _detached(run: RunOutcome) -> RunOutcome:
    """``run`` with each output's ``logical`` view of its ``data`` replaced
    by where it lies in it, so that pickling it (from a child) sends the
    elements once; :func:`_attach` makes the views again."""
    for out in run.outputs:
        logical = out.logical
        if logical is None or not np.shares_memory(logical, out.data) or not out.data.size:
            continue
        start = logical.__array_interface__["data"][0] - out.data.__array_interface__["data"][0]
        out.logical = ("view", start, logical.shape, logical.strides)
    return run


def _attach(run: RunOutcome) -> None:
    """Undo :func:`_detached`."""
    for out in run.outputs:
        if isinstance(out.logical, tuple):
            _, start, shape, strides = out.logical
            flat = out.data.reshape(-1)
            out.logical = np.lib.stride_tricks.as_strided(
                flat[start // flat.itemsize :], shape=shape, strides=strides
            )


def _compare_once(
    prog_b: LoweredProgram,
    prog_a: LoweredProgram,
    exe_b: Executable,
    exe_a: Executable,
    pairing: Pairing,
    inputs,
    seed: int,
    poison: bool,
    dims,
    scratch: Sequence[int],
    values,
    keep_outputs: bool,
    isolate: bool,
    last: bool = True,
    times: Optional[PhaseTimes] = None,
    parallel: bool = False,
) -> CompareResult:
    """One comparison on compiled programs (see :func:`compare`); the
    ``last`` one drops each engine once it has run (two large models' code
    is never held at once). With ``parallel`` (and ``isolate``, ``last``)
    AFTER is compiled and run in a forked child meanwhile
    (:mod:`memplan.numerics.parallel`)."""
    sig_b, sig_a = prog_b.signature, prog_a.signature
    storage_b, storage_a = pairing.storage("before"), pairing.storage("after")
    scratch_b = sorted(set(scratch) | ({storage_b} if storage_b is not None else set()))
    scratch_a = sorted(set(scratch) | ({storage_a} if storage_a is not None else set()))
    args_b: List[Optional[ArgValue]] = list(make_arguments(sig_b, inputs, seed, dims, values))
    sized = inputs is not None or storage_b is None or sig_b.args[storage_b].shape[0] is not None
    if not sized and dims:
        sized = any(
            k in dims for k in ((storage_b, 0), storage_b, f"arg{storage_b}", f"%arg{storage_b}")
        )
    for i in pairing.out_params("before"):
        args_b[i] = _blank(sig_b.args[i], i, "out-param")
    args_a = _side_arguments(args_b, sig_a, pairing.args_after, seed)
    notes_b, notes_a = list(pairing.notes_before), list(pairing.notes_after)
    if storage_b is not None:
        if not sized:
            size, source = _storage_size(prog_b, exe_b, args_b, storage_b)
            _place_storage(args_b, sig_b, storage_b, size)
        else:
            source = "given"
        notes_b[-1] += f" ({args_b[storage_b].data.nbytes} bytes, {source})"

    def size_after(times, how) -> str:
        """Place AFTER's transient storage (its size query runs compiled
        AFTER: on the side that compiles and runs it, in the child with
        ``parallel``); returns what the note on it adds."""
        if storage_a is None:
            return ""
        if sized and storage_b is not None:
            size, source = args_b[storage_b].data.nbytes, "as before's"
        else:
            with phase(times, f"after size query{how}"):
                size, source = _storage_size(prog_a, exe_a, args_a, storage_a)
        _place_storage(args_a, sig_a, storage_a, size)
        return f" ({args_a[storage_a].data.nbytes} bytes, {source})"

    def compile_and_run(side, exe, args, sig, scratch, times=times, how="", prepare=None):
        with phase(times, f"{side} JIT compilation{how}"):
            exe.compile()
        note = prepare(times, how) if prepare is not None else ""
        with phase(times, f"{side} runs{how}"):
            ran = _runs(
                exe,
                args,
                poison,
                scratch,
                _run_elements(sig, scratch),
                side,
                pairing.out_params(side),
                isolate,
            )
        if last:
            exe.close()
        return ran, note

    if parallel and isolate and last:
        # AFTER is compiled and run in a forked child while BEFORE is here.
        def after_side():
            side_times = PhaseTimes() if times is not None else None
            (run, problem), note = compile_and_run(
                "after", exe_a, args_a, sig_a, scratch_a, side_times, " (in parallel)", size_after
            )
            return _detached(run), problem, side_times, note

        child = parallel_start(after_side, "AFTER's JIT compilation and runs")
        try:
            (run_b, problem_b), _ = compile_and_run("before", exe_b, args_b, sig_b, scratch_b)
        except BaseException:
            child.cancel()
            raise
        run_a, problem_a, side_times, note_a = child.result()
        _attach(run_a)
        if times is not None:
            times.merge(side_times)
    else:
        (run_b, problem_b), _ = compile_and_run("before", exe_b, args_b, sig_b, scratch_b)
        (run_a, problem_a), note_a = compile_and_run(
            "after", exe_a, args_a, sig_a, scratch_a, prepare=size_after
        )
    if storage_a is not None:
        notes_a[-1] += note_a
    uninitialized = [p for p in (problem_b, problem_a) if p is not None]
    with phase(times, "comparison"):
        left, right, elements, names = _aligned_outputs(
            _program_outputs(
                run_b.outputs, sig_b, pairing.args_before, pairing.results_before, scratch_b
            ),
            _program_outputs(
                run_a.outputs, sig_a, pairing.args_after, pairing.results_after, scratch_a
            ),
            pairing,
            sig_b,
        )
        mismatch = first_difference(left, right, "value", elements)
    counts_b = run_b.assert_counts
    counts_a = run_a.assert_counts
    ok = (
        mismatch is None
        and not uninitialized
        and counts_b == counts_a
        and run_b.heap.clean
        and run_a.heap.clean
    )
    return CompareResult(
        ok=ok,
        mismatch=mismatch,
        heap_before=run_b.heap,
        heap_after=run_a.heap,
        uninitialized=uninitialized,
        asserts_before=run_b.failed_asserts,
        asserts_after=run_a.failed_asserts,
        assert_counts_before=counts_b,
        assert_counts_after=counts_a,
        signature=str(sig_b),
        outputs=len(left),
        poison=poison,
        seed=seed,
        form_before=_form(prog_b, notes_b),
        form_after=_form(prog_a, notes_a),
        output_names=names,
        outputs_before=dict(zip(names, left)) if keep_outputs else {},
        outputs_after=dict(zip(names, right)) if keep_outputs else {},
    )
