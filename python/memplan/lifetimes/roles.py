"""What each op does with a buffer operand: the role table of the lifetime kernel.

The C++ kernel (``lib/lifetimes.cpp``) reads one role word per interned op
name. The low byte says how a buffer flows through the op (alias, access,
escape, region-carried flow); two flag bits say whether the op's regions may
use outer buffers and whether they run sequentially (so allocations inside
may be hoisted into the enclosing pool). Any op not listed has unknown memory
effects: a buffer it uses is ``unknown-user``, and an allocation nested in its
regions is ``unknown-region``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

# Role codes; keep in sync with LifetimeRole in include/memplan/lifetimes.h.
OTHER, ALLOC, ALLOCA, DEALLOC, ALIAS, ACCESS, STORE, RETURN, CALL = range(9)
YIELD, CONDITION, FOR, WHILE, REGION, FUNC, PARALLEL = range(9, 16)
CAPTURE_OK = 1 << 8
SEQUENTIAL = 1 << 9

#: Ops whose shaped results alias their buffer operand.
ALIAS_OPS: frozenset[str] = frozenset(
    {
        "memref.subview",
        "memref.view",
        "memref.cast",
        "memref.reinterpret_cast",
        "memref.expand_shape",
        "memref.collapse_shape",
        "memref.transpose",
        "memref.memory_space_cast",
        "memref.extract_strided_metadata",
        "memref.assume_alignment",
        "memref.reshape",
        "bufferization.to_tensor",
        "bufferization.to_buffer",
        "arith.select",
    }
)

#: Ops that read or write through a buffer operand without keeping it.
ACCESS_OPS: frozenset[str] = frozenset(
    {
        "memref.load",
        "memref.copy",
        "memref.dim",
        "memref.rank",
        "memref.atomic_rmw",
        "memref.prefetch",
        "bufferization.clone",
        "vector.transfer_read",
        "vector.transfer_write",
        "vector.load",
        "vector.store",
        "vector.maskedload",
        "vector.maskedstore",
        "vector.gather",
        "vector.scatter",
        "vector.expandload",
        "vector.compressstore",
        "affine.load",
        "affine.vector_load",
        "affine.vector_store",
        "affine.prefetch",
    }
)

#: Ops that store their operand 0 into the memory of another operand.
STORE_OPS: frozenset[str] = frozenset({"memref.store", "affine.store"})

#: Region ops whose regions run one after another (hoisting out is safe).
SEQUENTIAL_REGION_OPS: dict[str, int] = {
    "scf.for": FOR,
    "scf.while": WHILE,
    "scf.if": REGION,
    "scf.execute_region": REGION,
    "scf.index_switch": REGION,
    "affine.for": REGION,
    "affine.if": REGION,
    "memref.alloca_scope": REGION,
}

#: Region ops whose body instances may run at the same time: pool scopes.
PARALLEL_OPS: frozenset[str] = frozenset({"scf.parallel", "scf.forall", "affine.parallel"})


def role_of(name: str) -> int:
    """The role word of the op name ``name``."""
    if name == "memref.alloc":
        return ALLOC
    if name == "memref.alloca":
        return ALLOCA
    if name == "memref.dealloc":
        return DEALLOC
    if name in ALIAS_OPS:
        return ALIAS
    if name in ACCESS_OPS:
        return ACCESS
    if name == "memref.generic_atomic_rmw":
        return ACCESS | CAPTURE_OK
    if name in STORE_OPS:
        return STORE
    if name == "func.return":
        return RETURN
    if name in ("func.call", "func.call_indirect"):
        return CALL
    if name == "scf.yield":
        return YIELD
    if name == "scf.condition":
        return CONDITION
    if name in SEQUENTIAL_REGION_OPS:
        return SEQUENTIAL_REGION_OPS[name] | CAPTURE_OK | SEQUENTIAL
    if name in PARALLEL_OPS:
        return PARALLEL | CAPTURE_OK
    if name == "func.func":
        return FUNC
    if name.startswith("linalg.") and name not in ("linalg.yield", "linalg.index"):
        # Structured ops read ins and write outs; their bodies compute scalars.
        return ACCESS | CAPTURE_OK
    return OTHER


def role_table(names: Sequence[str]) -> np.ndarray:
    """Role words for an interned name table (``graph.names``)."""
    return np.fromiter((role_of(n) for n in names), dtype=np.int32, count=len(names))


__all__ = ["role_of", "role_table", "ALIAS_OPS", "ACCESS_OPS", "STORE_OPS", "PARALLEL_OPS",
           "SEQUENTIAL_REGION_OPS"]
