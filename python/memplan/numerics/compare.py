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
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from .heap import POISON_BYTES, HeapStats
from .inputs import DimsSpec, make_arguments
from .lowering import LoweredProgram, lower
from .runner import Executable, Output, RunOutcome
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
    #: uninitialized memory and no ``cf.assert`` failed.
    ok: bool
    #: First before/after difference (``None`` when they agree).
    mismatch: Optional[Mismatch]
    #: Heap traffic of ``before`` and ``after`` (first run of each).
    heap_before: HeapStats
    heap_after: HeapStats
    #: One entry per module caught reading uninitialized memory (poison mode).
    uninitialized: List[Mismatch] = field(default_factory=list)
    #: Failed ``cf.assert`` messages, per module.
    asserts_before: List[str] = field(default_factory=list)
    asserts_after: List[str] = field(default_factory=list)
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
        for label, msgs in (("before", self.asserts_before), ("after", self.asserts_after)):
            for msg in msgs:
                lines.append(f"  {label}: assertion failed: {msg}")
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
        if count == 0:
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


def _runs(program: LoweredProgram, args, poison: bool, opt_level: int, scratch: Sequence[int]) -> List[RunOutcome]:
    exe = Executable(program, opt_level)
    if not poison:
        return [exe.run(args, None, scratch)]
    return [exe.run(args, byte, scratch) for byte in POISON_BYTES]


def compare(
    before: ModuleSource,
    after: ModuleSource,
    entry: str,
    inputs: Optional[Sequence[Any]] = None,
    seed: int = 0,
    poison: bool = True,
    dims: Optional[DimsSpec] = None,
    opt_level: int = 2,
    scratch: Sequence[int] = (),
) -> CompareResult:
    """Run ``before`` and ``after`` on identical inputs and compare bit for bit.

    ``before``/``after`` are ``mlir.ir.Module`` objects (copied, never
    modified) or MLIR text, at tensor or memref level; both are lowered as
    described in :mod:`memplan.numerics.lowering` and JIT-compiled.
    ``inputs`` gives one value per argument of ``@entry`` (numpy arrays for
    memrefs/tensors, numbers for scalars); otherwise random inputs are drawn
    with ``seed`` and dynamic sizes from ``dims`` (see
    :mod:`memplan.numerics.inputs`; unmentioned dynamic sizes are 7).
    ``poison`` enables the uninitialized-read check described in the module
    doc (two runs per module instead of one). ``scratch`` lists memref
    arguments that are working memory, such as transient storage: they are
    filled with the poison byte before each run and not compared.

    Raises ``KeyError`` when a module has no ``func.func @entry`` and
    ``LoweringError`` / ``mlir.ir.MLIRError`` when one cannot be lowered.
    """
    prog_b = lower(before, entry, "<before>")
    prog_a = lower(after, entry, "<after>")
    sig_b, sig_a = prog_b.signature, prog_a.signature
    if (sig_b.args, sig_b.results) != (sig_a.args, sig_a.results):
        mismatch = Mismatch(
            "signature", -1, f"@{entry}", None, str(sig_b), str(sig_a),
            detail=f"before {sig_b}, after {sig_a}",
        )
        return CompareResult(False, mismatch, HeapStats(), HeapStats(),
                             signature=str(sig_b), poison=poison, seed=seed)

    args = make_arguments(sig_b, inputs, seed, dims)
    runs_b = _runs(prog_b, args, poison, opt_level, scratch)
    runs_a = _runs(prog_a, args, poison, opt_level, scratch)
    elements = _elements(prog_b)

    mismatch = first_difference(runs_b[0].outputs, runs_a[0].outputs, "value", elements)
    uninitialized = []
    if poison:
        for label, runs in (("before", runs_b), ("after", runs_a)):
            problem = first_difference(runs[0].outputs, runs[1].outputs, "uninitialized", elements)
            if problem is not None:
                problem.module = label
                uninitialized.append(problem)
    asserts_b = runs_b[0].failed_asserts
    asserts_a = runs_a[0].failed_asserts
    ok = mismatch is None and not uninitialized and not asserts_b and not asserts_a
    return CompareResult(
        ok=ok,
        mismatch=mismatch,
        heap_before=runs_b[0].heap,
        heap_after=runs_a[0].heap,
        uninitialized=uninitialized,
        asserts_before=asserts_b,
        asserts_after=asserts_a,
        signature=str(sig_b),
        outputs=len(runs_b[0].outputs),
        poison=poison,
        seed=seed,
    )
