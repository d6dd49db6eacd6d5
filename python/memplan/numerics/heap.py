"""The checker's heap: allocation hooks for JIT-compiled code, with poisoning.

``finalize-memref-to-llvm{use-generic-functions=1}`` makes every
``memref.alloc`` / ``memref.dealloc`` call ``_mlir_memref_to_llvm_alloc(size)``,
``_mlir_memref_to_llvm_aligned_alloc(alignment, size)`` and
``_mlir_memref_to_llvm_free(ptr)``.  :class:`PoisonHeap` provides those three
symbols as ctypes callbacks.  It

* hands out blocks owned by Python (``ctypes`` buffers), aligned to the
  program's largest alignment, so the program sees no difference;
* fills each new block with a poison byte, and each freed block too (freed
  blocks are kept until the run ends, so a read after free sees poison rather
  than reused memory);
* counts allocations, frees, bytes and the peak of live bytes (:class:`HeapStats`).

Running a program twice with two different poison bytes and getting different
outputs proves it reads memory it never wrote.
"""

from __future__ import annotations

import contextlib
import ctypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Iterator, List, Optional

if TYPE_CHECKING:
    from mlir.execution_engine import ExecutionEngine

__all__ = ["HeapStats", "PoisonHeap", "POISON_BYTES", "ALLOC", "ALIGNED_ALLOC", "FREE"]

ALLOC = "_mlir_memref_to_llvm_alloc"
ALIGNED_ALLOC = "_mlir_memref_to_llvm_aligned_alloc"
FREE = "_mlir_memref_to_llvm_free"

#: Poison bytes of the first and second run.  0xFF makes every float type a
#: NaN (which most arithmetic propagates) and every integer -1; 0x5A makes
#: large positive floats (f32 1.5e16, f64 1.4e127, f16 203.25) and integers.
#: A small poison value would be absorbed: 0xA5 gives f32 -2.9e-16, and
#: ``garbage + x == x`` hid a missing initialization in testing.
POISON_BYTES = (0xFF, 0x5A)

_ALLOC_T = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint64)
_ALIGNED_ALLOC_T = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64)
_FREE_T = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@dataclass
class HeapStats:
    """Heap traffic of one run of the entry function.

    Sizes are the bytes each ``memref.alloc`` asked for (element count times
    element size), without allocator padding: ``memref<16xf32>`` counts 64
    bytes whatever its ``alignment`` attribute (the lowering would otherwise
    over-allocate by the alignment; see :mod:`memplan.numerics.lowering`).
    ``memref.alloca`` is stack memory and not counted. Buffers the function
    returns count as live at exit. ``execute(module, entry).heap`` measures
    one run.
    """

    #: Number of heap allocations (``memref.alloc``, including those made by
    #: bufferization and ``memref.realloc`` expansion).
    allocations: int = 0
    #: Number of frees of blocks this heap handed out.
    frees: int = 0
    #: Sum of the sizes of all allocations.
    total_bytes: int = 0
    #: Largest sum of sizes of blocks live at the same time.
    peak_bytes: int = 0
    #: Bytes still allocated when the entry function returned (returned
    #: buffers and leaks).
    live_at_exit: int = 0
    #: Frees of pointers this heap never handed out (or already freed).
    invalid_frees: int = 0
    #: Like ``peak_bytes``, with every block rounded up to 64 bytes (what an
    #: allocator hands out; the measure of memplan's heap-peak statistics).
    peak_blocks_bytes: int = 0

    def __str__(self) -> str:
        text = (
            f"{self.allocations} allocs, {self.frees} frees, "
            f"{self.total_bytes} B total, {self.peak_bytes} B peak, "
            f"{self.live_at_exit} B live at exit"
        )
        if self.invalid_frees:
            text += f", {self.invalid_frees} INVALID frees"
        return text


class PoisonHeap:
    """Allocation hooks for one ExecutionEngine.

    ``install(engine)`` registers the three symbols; it must be called before
    the engine first looks up a function.  The same engine can run several
    times: call :meth:`reset` with the next poison byte between runs.  Keep
    this object alive as long as the engine (it owns the callbacks).
    """

    def __init__(self, alignment: int = 64, poison: Optional[int] = POISON_BYTES[0]):
        self.alignment = max(16, int(alignment))
        # Callback objects: referenced here so ctypes keeps the thunks alive.
        self._callbacks = (
            _ALLOC_T(self._alloc),
            _ALIGNED_ALLOC_T(self._aligned_alloc),
            _FREE_T(self._free),
        )
        self.reset(poison)

    def reset(self, poison: Optional[int]) -> None:
        """Forget all blocks and counts; fill new blocks with ``poison``
        (a byte value, or ``None`` for zero-filled memory)."""
        self.poison = poison
        self.stats = HeapStats()
        self._live: Dict[int, int] = {}  # address -> requested size
        self._buffers: List[ctypes.Array] = []  # every block of this run
        self._live_bytes = 0
        self._live_blocks = 0

    #: More runtime symbols to register with the hooks (name -> ctypes
    #: callback); set them with :meth:`extra_runtime`.
    _extra: Dict[str, object] = {}

    @classmethod
    @contextlib.contextmanager
    def extra_runtime(cls, symbols: Dict[str, object]) -> Iterator[None]:
        """Within the block, every engine gets ``symbols`` too (e.g. the
        hooks of :mod:`memplan.reuse.oracle`)."""
        old = cls._extra
        cls._extra = {**old, **symbols}
        try:
            yield
        finally:
            cls._extra = old

    def install(self, engine: ExecutionEngine) -> None:
        """Register the hooks as runtime symbols of ``engine``."""
        alloc, aligned_alloc, free = self._callbacks
        for name, cb in ((ALLOC, alloc), (ALIGNED_ALLOC, aligned_alloc), (FREE, free),
                         *self._extra.items()):
            # ExecutionEngine.register_runtime would prefix "_mlir_ciface_";
            # the lowered code calls these exact names.
            engine.raw_register_runtime(name, ctypes.cast(cb, ctypes.c_void_p))

    def finish(self) -> HeapStats:
        """Close the books of the current run and return its statistics."""
        self.stats.live_at_exit = self._live_bytes
        return self.stats

    def release(self) -> None:
        """Drop the blocks of the finished run (its statistics stay)."""
        self._live = {}
        self._buffers = []

    def owns(self, address: int) -> bool:
        """True if ``address`` is a live block handed out in this run."""
        return address in self._live

    # -- the hooks ---------------------------------------------------------

    def _allocate(self, size: int, alignment: int) -> int:
        try:
            align = max(self.alignment, alignment if alignment > 0 else 1)
            buf = ctypes.create_string_buffer(max(size, 1) + align)
            address = -(-ctypes.addressof(buf) // align) * align
            if self.poison is not None and size:
                ctypes.memset(address, self.poison, size)
            self._buffers.append(buf)
            self._live[address] = size
            stats = self.stats
            stats.allocations += 1
            stats.total_bytes += size
            self._live_bytes += size
            stats.peak_bytes = max(stats.peak_bytes, self._live_bytes)
            self._live_blocks += -(-size // 64) * 64
            stats.peak_blocks_bytes = max(stats.peak_blocks_bytes, self._live_blocks)
            return address
        except Exception:  # never let an exception unwind into JIT code
            return 0

    def _alloc(self, size: int) -> int:
        return self._allocate(size, 0)

    def _aligned_alloc(self, alignment: int, size: int) -> int:
        return self._allocate(size, alignment)

    def _free(self, address: Optional[int]) -> None:
        if not address:
            return
        size = self._live.pop(address, None)
        if size is None:
            self.stats.invalid_frees += 1
            return
        self.stats.frees += 1
        self._live_bytes -= size
        self._live_blocks -= -(-size // 64) * 64
        if self.poison is not None and size:
            ctypes.memset(address, self.poison, size)
