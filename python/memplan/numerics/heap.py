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
* counts allocations, frees, bytes and the peak of live bytes (:class:`HeapStats`);
* finds heap faults, each named by its ops (the lowering stores the site of
  every ``memref.alloc`` / ``memref.dealloc`` into ``__memplan_heap_site``
  before the call, :mod:`memplan.numerics.lowering`): a free of memory it
  did not hand out (a stack buffer, an argument, a view's inner address), a
  double free, and a leak (a block neither freed nor returned when the
  function returns: :meth:`PoisonHeap.finish`).

Running a program twice with two different poison bytes and getting different
outputs proves it reads memory it never wrote.

With ``quarantine=True`` (an isolated run in a child process,
:meth:`memplan.numerics.runner.Executable.run`), each block gets pages of its
own and a freed block's pages become inaccessible: any later read or write of
a freed block, by the program, the runtime library or the harness reading
the results, faults, and the child reports which block (its alloc and free
sites) before it dies (``memplan._core.quarantine_*``). This catches every
access to the last 16,384 freed blocks of a run, whatever values it reads,
and nothing else (an access past the end of a live block within its last
page is not caught).
"""

from __future__ import annotations

import contextlib
import ctypes
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from memplan import _core

if TYPE_CHECKING:
    from mlir.execution_engine import ExecutionEngine

__all__ = [
    "HeapStats",
    "PoisonHeap",
    "POISON_BYTES",
    "ALLOC",
    "ALIGNED_ALLOC",
    "FREE",
    "HEAP_SITE",
    "UseAfterFree",
    "use_after_free",
]

ALLOC = "_mlir_memref_to_llvm_alloc"
ALIGNED_ALLOC = "_mlir_memref_to_llvm_aligned_alloc"
FREE = "_mlir_memref_to_llvm_free"
#: The external global the lowered program stores each heap op's site into
#: (memplan.numerics.lowering.HEAP_SITE).
HEAP_SITE = "__memplan_heap_site"

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
    #: Of ``invalid_frees``, the frees of a block already freed.
    double_frees: int = 0
    #: Blocks neither freed nor returned when the function returned, and
    #: their bytes (:meth:`PoisonHeap.finish` with the returned blocks).
    leaks: int = 0
    leaked_bytes: int = 0
    #: In a program that frees nothing (memref IR before deallocation, not
    #: checked for leaks): the blocks neither freed nor returned.
    unfreed: int = 0
    #: Each distinct fault (invalid free, double free, leak), naming its
    #: ops, with how often it happened, in the order first seen.
    faults: Dict[str, int] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        """No invalid or double free and no leak."""
        return not (self.invalid_frees or self.leaks)

    def __str__(self) -> str:
        text = (
            f"{self.allocations} allocs, {self.frees} frees, "
            f"{self.total_bytes} B total, {self.peak_bytes} B peak, "
            f"{self.live_at_exit} B live at exit"
        )
        if self.invalid_frees:
            text += f", {self.invalid_frees} INVALID frees"
            if self.double_frees:
                text += f" ({self.double_frees} double)"
        if self.leaks:
            text += f", {self.leaks} LEAKED ({self.leaked_bytes} B)"
        if self.unfreed:
            text += (
                f", {self.unfreed} never freed (the program frees nothing: not checked "
                "for leaks)"
            )
        return text

    def fault_lines(self) -> List[str]:
        """One line per distinct fault (``"... (3 times)"`` when repeated)."""
        return [message + (f" ({n} times)" if n > 1 else "") for message, n in self.faults.items()]


class UseAfterFree(RuntimeError):
    """An access to a freed block (quarantine mode): the run stopped there."""


def use_after_free(record: bytes, sites: Sequence[str]) -> Optional[UseAfterFree]:
    """The :class:`UseAfterFree` a quarantine fault record (written by the
    child's fault handler) describes, or None if ``record`` is not one."""
    if len(record) != 48:
        return None
    magic, _address, offset, alloc_site, free_site, phase = struct.unpack("<6q", record)
    if magic != _core.QUARANTINE_FAULT_MAGIC:
        return None
    when = " while the harness read the returned buffers" if phase == 2 else ""
    return UseAfterFree(
        f"use after free: an access to byte {offset} of the buffer of "
        f"{_site(sites, alloc_site)}, freed by {_site(sites, free_site)}{when}"
    )


def _site(sites: Sequence[str], number: int) -> str:
    if 0 <= number < len(sites):
        return sites[number]
    return "an op the checker did not mark"


class PoisonHeap:
    """Allocation hooks for one ExecutionEngine.

    ``install(engine)`` registers the three symbols; it must be called before
    the engine first looks up a function.  The same engine can run several
    times: call :meth:`reset` with the next poison byte between runs.  Keep
    this object alive as long as the engine (it owns the callbacks).
    """

    def __init__(
        self,
        alignment: int = 64,
        poison: Optional[int] = POISON_BYTES[0],
        sites: Sequence[str] = (),
    ):
        self.alignment = max(16, int(alignment))
        #: ``"<op> at <location>"`` by site number (LoweredProgram.heap_sites).
        self.sites = list(sites)
        # Callback objects: referenced here so ctypes keeps the thunks alive.
        self._callbacks = (
            _ALLOC_T(self._alloc),
            _ALIGNED_ALLOC_T(self._aligned_alloc),
            _FREE_T(self._free),
        )
        #: The storage of the program's HEAP_SITE global.
        self._site = ctypes.c_int64(-1)
        self.quarantine = False
        self.reset(poison)

    def reset(self, poison: Optional[int], quarantine: bool = False) -> None:
        """Forget all blocks and counts; fill new blocks with ``poison``
        (a byte value, or ``None`` for zero-filled memory); with
        ``quarantine``, give blocks pages of their own, inaccessible once
        freed (only in a child process that reports faults: see the module
        doc)."""
        self.release()
        self.poison = poison
        self.quarantine = quarantine
        self.stats = HeapStats()
        self._live: Dict[int, Tuple[int, int]] = {}  # address -> (size, alloc site)
        self._freed: Dict[int, Tuple[int, int]] = {}  # address -> (alloc site, free site)
        self._buffers: List[ctypes.Array] = []  # every block of this run
        self._live_bytes = 0
        self._live_blocks = 0
        self._site.value = -1

    #: More runtime symbols to register with the hooks (name -> ctypes
    #: callback); set them with :meth:`extra_runtime`.
    _extra: Dict[str, object] = {}

    @classmethod
    @contextlib.contextmanager
    def extra_runtime(cls, symbols: Dict[str, object]) -> Iterator[None]:
        """Within the block, every engine gets ``symbols`` too (e.g. the
        hooks of :mod:`memplan.numerics.oracle`)."""
        old = cls._extra
        cls._extra = {**old, **symbols}
        try:
            yield
        finally:
            cls._extra = old

    def install(self, engine: ExecutionEngine) -> None:
        """Register the hooks as runtime symbols of ``engine``."""
        alloc, aligned_alloc, free = self._callbacks
        for name, cb in (
            (ALLOC, alloc),
            (ALIGNED_ALLOC, aligned_alloc),
            (FREE, free),
            *self._extra.items(),
        ):
            # ExecutionEngine.register_runtime would prefix "_mlir_ciface_";
            # the lowered code calls these exact names.
            engine.raw_register_runtime(name, ctypes.cast(cb, ctypes.c_void_p))
        # A data symbol: the program's site global lives here.
        engine.raw_register_runtime(HEAP_SITE, ctypes.c_void_p(ctypes.addressof(self._site)))

    def finish(self, returned: Iterable[int] = (), leaks: bool = True) -> HeapStats:
        """Close the books of the current run and return its statistics:
        every live block but those at the ``returned`` addresses (the
        ``allocated`` pointers of the memrefs the function returned) is a
        leak, or, without ``leaks``, counted as ``unfreed``."""
        self.stats.live_at_exit = self._live_bytes
        kept = set(returned)
        for address, (size, site) in self._live.items():
            if address in kept:
                continue
            if not leaks:
                self.stats.unfreed += 1
            else:
                self.stats.leaks += 1
                self.stats.leaked_bytes += size
                self._fault(
                    f"leak: the buffer of {_site(self.sites, site)} ({size} B) is "
                    "neither freed nor returned"
                )
        return self.stats

    def release(self) -> None:
        """Drop the blocks of the finished run (its statistics stay)."""
        self._live = {}
        self._freed = {}
        self._buffers = []
        if self.quarantine:
            _core.quarantine_release()

    def owns(self, address: int) -> bool:
        """True if ``address`` is a live block handed out in this run."""
        return address in self._live

    # -- the hooks ---------------------------------------------------------

    def _fault(self, message: str) -> None:
        self.stats.faults[message] = self.stats.faults.get(message, 0) + 1

    def _allocate(self, size: int, alignment: int) -> int:
        try:
            align = max(self.alignment, alignment if alignment > 0 else 1)
            if self.quarantine:
                address = _core.quarantine_alloc(size, align)
                if not address:
                    return 0
            else:
                buf = ctypes.create_string_buffer(max(size, 1) + align)
                address = -(-ctypes.addressof(buf) // align) * align
                self._buffers.append(buf)
            if self.poison is not None and size:
                ctypes.memset(address, self.poison, size)
            self._live[address] = (size, self._site.value)
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
        try:
            self._release_block(address)
        except Exception:  # never let an exception unwind into JIT code
            pass

    def _release_block(self, address: Optional[int]) -> None:
        if not address:
            return
        site = self._site.value
        block = self._live.pop(address, None)
        if block is None:
            self.stats.invalid_frees += 1
            freed = self._freed.get(address)
            if freed is not None:
                self.stats.double_frees += 1
                self._fault(
                    f"double free: {_site(self.sites, site)} frees the buffer of "
                    f"{_site(self.sites, freed[0])}, which "
                    f"{_site(self.sites, freed[1])} freed already"
                )
            else:
                inside = next((a for a, (n, _) in self._live.items() if a < address < a + n), None)
                what = (
                    f"an address inside the buffer of {_site(self.sites, self._live[inside][1])}"
                    if inside is not None
                    else "memory the heap did not hand out (a stack buffer, an argument, a global?)"
                )
                self._fault(f"invalid free: {_site(self.sites, site)} frees {what}")
            return
        size, alloc_site = block
        self._freed[address] = (alloc_site, site)
        self.stats.frees += 1
        self._live_bytes -= size
        self._live_blocks -= -(-size // 64) * 64
        if self.quarantine:
            _core.quarantine_free(address, size, alloc_site, site)
        elif self.poison is not None and size:
            ctypes.memset(address, self.poison, size)
