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

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .heap import POISON_BYTES, HeapStats
from .inputs import ArgValue, DimsSpec, make_arguments, place_array
from .lowering import LoweredProgram, lower
from .runner import DEFAULT_OPT_LEVEL, Executable, Output, RunOutcome
from .signature import Signature, ValueSpec
from .source import ModuleSource

__all__ = ["Mismatch", "CompareResult", "compare", "first_difference"]


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
    #: uninitialized memory and the same ``cf.assert`` messages failed the
    #: same number of times in both.
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

    def __str__(self) -> str:
        lines = ["OK" if self.ok else "MISMATCH"]
        if self.mismatch is not None:
            lines.append(f"  {self.mismatch}")
        for problem in self.uninitialized:
            lines.append(f"  {problem}")
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
            lines[0] += (
                f": {self.outputs} output{'' if self.outputs == 1 else 's'} identical"
                + (" (poison checked)" if self.poison else "")
            )
        lines.append(f"  heap before: {self.heap_before}")
        lines.append(f"  heap after:  {self.heap_after}")
        return "\n".join(lines)


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
    left: Sequence[Output], right: Sequence[Output], kind: str = "value", elements=None
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


def _elements(program: LoweredProgram) -> List[str]:
    sig = program.signature
    return [r.element for r in sig.results] + [a.element for a in sig.args if a.is_memref]


def _runs(
    exe: Executable, args, poison: bool, scratch: Sequence[int], elements: List[str], label: str
) -> Tuple[RunOutcome, Optional[Mismatch]]:
    """Run once (zeroed heap), or once per poison byte on the same compiled
    code; return the first run and the module's uninitialized read, if any.
    The second run's outputs are dropped as soon as they are compared."""
    if not poison:
        return exe.run(args, None, scratch), None
    first = exe.run(args, POISON_BYTES[0], scratch)
    second = exe.run(args, POISON_BYTES[1], scratch)
    problem = first_difference(first.outputs, second.outputs, "uninitialized", elements)
    if problem is not None:
        problem.module = label
    return first, problem


def _same_value_type(a: ValueSpec, b: ValueSpec) -> bool:
    """Same kind, element type and shape: layouts may differ."""
    return (a.is_memref, a.element, a.shape) == (b.is_memref, b.element, b.shape)


def _signature_difference(sig_b: Signature, sig_a: Signature) -> Optional[str]:
    if len(sig_b.args) != len(sig_a.args) or len(sig_b.results) != len(sig_a.results):
        return f"before {sig_b}, after {sig_a}"
    for kind, left, right in (("argument", sig_b.args, sig_a.args), ("result", sig_b.results, sig_a.results)):
        for i, (b, a) in enumerate(zip(left, right)):
            if not _same_value_type(b, a):
                return f"{kind} #{i} is {b.type_str} before, {a.type_str} after"
    return None


def _rebase(args: Sequence[ArgValue], sig: Signature, seed: int) -> List[ArgValue]:
    """The same argument values laid out for ``sig`` (whose layouts may differ)."""
    rng = np.random.default_rng(seed + 1)
    out = []
    for i, (arg, spec) in enumerate(zip(args, sig.args)):
        if arg.spec == spec or not spec.is_memref:
            out.append(arg)
        else:
            out.append(place_array(spec, i, arg.view(), rng))
    return out


def _logical_outputs(outputs: List[Output], relayout: Sequence[int]) -> List[Output]:
    """Outputs with the arguments at positions ``relayout`` compared by value
    (their logical elements) instead of their backing stores."""
    outputs = list(outputs)
    for n in relayout:
        o = outputs[n]
        outputs[n] = Output(o.name, np.ascontiguousarray(o.logical), o.shape, o.logical)
    return outputs


def _storage_bytes(programs: Sequence[Tuple[LoweredProgram, Executable]], args, index: int) -> int:
    """Transient storage the modules ask for through their size queries."""
    from memplan.transients.queries import QUERY_SUFFIX

    needed = 1
    for program, exe in programs:
        query = program.others.get(program.signature.name + QUERY_SUFFIX)
        if query is None:
            continue
        rest = [a for i, a in enumerate(args) if i != index]
        if len(rest) != len(query.args):
            continue
        result = exe.call(query, rest)
        if result:
            needed = max(needed, int(result[0].data))
    return needed


def compare(
    before: ModuleSource,
    after: ModuleSource,
    entry: str,
    inputs: Optional[Sequence[Any]] = None,
    seed: int = 0,
    poison: bool = True,
    dims: Optional[DimsSpec] = None,
    opt_level: int = DEFAULT_OPT_LEVEL,
    scratch: Sequence[int] = (),
    values: Optional[Mapping[int, Any]] = None,
) -> CompareResult:
    """Run ``before`` and ``after`` on identical inputs and compare bit for bit.

    ``before``/``after`` are ``mlir.ir.Module`` objects (copied, never
    modified), MLIR text or bytecode, at tensor or memref level; both are lowered as
    described in :mod:`memplan.numerics.lowering` and JIT-compiled once.
    ``inputs`` gives one value per argument of ``@entry`` (numpy arrays for
    memrefs/tensors, numbers for scalars); otherwise inputs are drawn as in
    :func:`memplan.numerics.inputs.make_arguments` with ``seed``, dynamic
    sizes from ``dims`` and the arguments in ``values`` (index -> array or
    number) fixed.  ``poison`` enables the uninitialized-read check described
    in the module doc (two runs per module, one compilation).

    The two entry functions must take and return the same values: same
    element types and shapes, in any memref layout (memplan's default
    bufferization gives arguments a fully dynamic layout).  Arguments whose
    layouts differ are compared element by element, not by backing store.

    ``scratch`` lists memref arguments that are working memory: they are
    filled with the poison byte before each run and not compared.  An
    argument marked ``memplan.transients`` is scratch too; unless ``dims`` or
    ``inputs`` size it, it gets the bytes that ``@<entry>_transient_size``
    asks for.

    Raises ``KeyError`` when a module has no ``func.func @entry``,
    :class:`~memplan.ir.parse.ParseError` when text does not parse,
    ``LoweringError`` / ``mlir.ir.MLIRError`` when one cannot be lowered or
    compiled and ``ValueError`` for inputs that do not fit the signature.
    """
    from memplan.transients.queries import QUERY_SUFFIX

    also = (entry + QUERY_SUFFIX,)
    prog_b = lower(before, entry, "<before>", also)
    prog_a = lower(after, entry, "<after>", also)
    sig_b, sig_a = prog_b.signature, prog_a.signature
    difference = _signature_difference(sig_b, sig_a)
    if difference is not None:
        mismatch = Mismatch(
            "signature", -1, f"@{entry}", None, str(sig_b), str(sig_a), detail=difference,
        )
        return CompareResult(False, mismatch, HeapStats(), HeapStats(),
                             signature=str(sig_b), poison=poison, seed=seed)

    exe_b, exe_a = Executable(prog_b, opt_level), Executable(prog_a, opt_level)
    storage = sig_a.storage if sig_a.storage is not None else sig_b.storage
    scratch = sorted(set(scratch) | ({storage} if storage is not None else set()))
    sized = inputs is not None or storage is None or sig_b.args[storage].shape[0] is not None
    if not sized and dims:
        sized = any(k in dims for k in ((storage, 0), storage, f"arg{storage}", f"%arg{storage}"))
    args_b = make_arguments(sig_b, inputs, seed, dims, values)
    if not sized:
        size = _storage_bytes(((prog_b, exe_b), (prog_a, exe_a)), args_b, storage)
        spec = sig_b.args[storage]
        args_b[storage] = place_array(
            spec, storage, np.zeros(size, spec.dtype), np.random.default_rng(seed)
        )
    args_a = _rebase(args_b, sig_a, seed)

    elements = _elements(prog_b)
    run_b, problem_b = _runs(exe_b, args_b, poison, scratch, elements, "before")
    del exe_b
    run_a, problem_a = _runs(exe_a, args_a, poison, scratch, elements, "after")
    del exe_a
    uninitialized = [p for p in (problem_b, problem_a) if p is not None]
    memref_args = [i for i, a in enumerate(sig_b.args) if a.is_memref and i not in scratch]
    relayout = [
        len(sig_b.results) + n
        for n, i in enumerate(memref_args)
        if args_b[i].spec != args_a[i].spec
    ]

    def outputs(run: RunOutcome) -> List[Output]:
        return _logical_outputs(run.outputs, relayout) if relayout else run.outputs

    mismatch = first_difference(outputs(run_b), outputs(run_a), "value", elements)
    counts_b = run_b.assert_counts
    counts_a = run_a.assert_counts
    ok = mismatch is None and not uninitialized and counts_b == counts_a
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
        outputs=len(run_b.outputs),
        poison=poison,
        seed=seed,
    )
