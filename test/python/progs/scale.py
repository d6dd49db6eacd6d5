"""Large single-function programs for timing the lifetime analysis and reuse."""

from __future__ import annotations

import random


def chain(n: int, seed: int = 0, window: int = 4) -> str:
    """``func @chain`` with ``n`` allocations: each is written from earlier
    live ones, and freed after its last use (at most ``window`` live at once)."""
    rng = random.Random(seed)
    sizes = [16, 32, 64, 128, 256]
    lines = ["func.func @chain(%x: memref<16xf32>, %out: memref<16xf32>) {"]
    live: list[tuple[str, int]] = [("%x", 16)]
    for i in range(n):
        size = rng.choice(sizes)
        name = f"%b{i}"
        lines.append(f"  {name} = memref.alloc() : memref<{size}xf32>")
        src, ssize = live[rng.randrange(len(live))]
        m = min(size, ssize)
        lines.append(
            f"  %s{i} = memref.subview {name}[0] [{m}] [1] : memref<{size}xf32> to memref<{m}xf32, strided<[1]>>"
        )
        lines.append(
            f"  %t{i} = memref.subview {src}[0] [{m}] [1] : memref<{ssize}xf32> to memref<{m}xf32, strided<[1]>>"
        )
        lines.append(
            f"  memref.copy %t{i}, %s{i} : memref<{m}xf32, strided<[1]>> to memref<{m}xf32, strided<[1]>>"
        )
        live.append((name, size))
        if len(live) > window:
            dead, dsize = live.pop(1 + rng.randrange(len(live) - 1))
            lines.append(f"  memref.dealloc {dead} : memref<{dsize}xf32>")
    for name, size in live[1:]:
        lines.append(f"  memref.dealloc {name} : memref<{size}xf32>")
    lines.append("  return\n}")
    return "\n".join(lines) + "\n"
