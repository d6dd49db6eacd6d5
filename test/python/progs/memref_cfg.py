"""Random memref-level functions of unstructured control flow for the
deallocation: buffers allocated in blocks and forwarded to block arguments
by ``cf.br``, ``cf.cond_br`` and ``cf.switch``, whose successors may name one
block several times with other buffers on each edge, and blocks no branch
reaches (the generator branches forward only, so no loops)."""

from __future__ import annotations

import random

MEMREF = "memref<8xf32>"


def random_memref_cfg(seed: int) -> str:
    """A ``@main(%i: i32, %x, %out)``: ``%i`` picks every branch (``cf.switch``
    on it, ``cf.cond_br`` on its low bit); each return writes ``%out``."""
    rng = random.Random(seed)
    nblocks = rng.randint(2, 5)
    nargs = [0] + [rng.randint(0, 2) for _ in range(nblocks - 1)]
    lines = [f"func.func @main(%i: i32, %x: {MEMREF}, %out: {MEMREF}) {{"]
    n = 0
    for b in range(nblocks):
        if b:
            args = ", ".join(f"%b{b}_{k}: {MEMREF}" for k in range(nargs[b]))
            lines.append(f"^bb{b}({args}):" if args else f"^bb{b}:")
        values = ["%x"] + [f"%b{b}_{k}" for k in range(nargs[b])]
        for _ in range(rng.randint(0, 2)):
            n += 1
            lines.append(f"  %a{n} = memref.alloc() : {MEMREF}")
            op = rng.choice(["exp", "negf", "abs"])
            src = rng.choice(values)
            lines.append(f"  linalg.{op} ins({src} : {MEMREF}) outs(%a{n} : {MEMREF})")
            values.append(f"%a{n}")

        def target() -> str:
            t = rng.randrange(b + 1, nblocks)
            ops = [rng.choice(values) for _ in range(nargs[t])]
            if not ops:
                return f"^bb{t}"
            return f"^bb{t}({', '.join(ops)} : {', '.join([MEMREF] * len(ops))})"

        k = rng.random()
        if b == nblocks - 1 or k < 0.1:
            a, c = rng.choice(values), rng.choice(values)
            lines.append(f"  linalg.add ins({a}, {c} : {MEMREF}, {MEMREF}) outs(%out : {MEMREF})")
            lines.append("  return")
        elif k < 0.4:
            lines.append(f"  cf.br {target()}")
        elif k < 0.7:
            lines.append(f"  %c{b} = arith.trunci %i : i32 to i1")
            lines.append(f"  cf.cond_br %c{b}, {target()}, {target()}")
        else:
            cases = [f"default: {target()}"]
            cases += [f"{j}: {target()}" for j in range(rng.randint(1, 3))]
            lines.append("  cf.switch %i : i32, [\n    " + ",\n    ".join(cases) + "\n  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


#: The values of ``%i`` that together take every edge of every branch.
SELECTORS = (-1, 0, 1, 2, 3)
