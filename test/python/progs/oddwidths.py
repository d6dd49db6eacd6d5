"""Seeded adversarial memref programs for the planners: odd element widths,
aliases, guards and zero-trip loops around size computations, escapes, calls.

``generate(seed)`` returns the text of a module whose public ``@main`` is::

    func.func @main(%x: memref<16xf32>, %m: memref<16xi1>, %d: index,
                    %trips: index, %out: memref<16xf32>, %mout: memref<16xi1>)
        -> memref<16xf32>

Each stage allocates a buffer of a random element type (i1 to i128, f16,
bf16, f32, f64, f80, index, vector<3xf32>), fills it from ``%x`` (i1 from
``%m``, by memref.copy: the LLVM lowering cannot load or store i1), and a
later stage reads it back into ``%out`` (or ``%mout``) and frees it, so
lifetimes of odd widths overlap. Some stages run under ``scf.if %d != 0``
with a dynamic size ``64 / %d`` (a guarded division), or in a loop of
``%trips`` iterations (possibly zero), read their buffer through a subview,
a cast or a collapse_shape, or pass it to a private helper (an escape). The
result is a fresh buffer (escapes by return).
"""

from __future__ import annotations

import random

ELEMENTS = (
    "i1",
    "i8",
    "i16",
    "i24",
    "i33",
    "i48",
    "i64",
    "i128",
    "f16",
    "bf16",
    "f32",
    "f64",
    "f80",
    "index",
    "vector<3xf32>",
)
"""Element types. Not i65..i127: the ExecutionEngine allocates them at 4-byte
alignment (the size is folded with LLVM's default layout when the module is
translated) but x86-64 code accesses them at 16: the input program itself
overruns its buffers (an upstream problem; memplan sizes them at 16)."""


def _to(elem: str, v: str, out: list[str], k: str) -> str:
    """Convert f32 ``v`` to ``elem``; returns the value name."""
    if elem.startswith("vector"):
        out.append(f"{k}t = vector.broadcast {v} : f32 to {elem}")
    elif elem == "index":
        out.append(f"{k}i = arith.fptosi {v} : f32 to i64")
        out.append(f"{k}t = arith.index_cast {k}i : i64 to index")
    elif elem.startswith("i"):
        out.append(f"{k}t = arith.fptosi {v} : f32 to {elem}")
    elif elem == "f32":
        return v
    elif elem in ("f16", "bf16"):
        out.append(f"{k}t = arith.truncf {v} : f32 to {elem}")
    else:
        out.append(f"{k}t = arith.extf {v} : f32 to {elem}")
    return f"{k}t"


def _from(elem: str, v: str, out: list[str], k: str) -> str:
    """Convert ``v`` of type ``elem`` back to f32."""
    if elem.startswith("vector"):
        out.append(f"{k}f = vector.extract {v}[1] : f32 from {elem}")
    elif elem == "index":
        out.append(f"{k}i = arith.index_cast {v} : index to i64")
        out.append(f"{k}f = arith.sitofp {k}i : i64 to f32")
    elif elem.startswith("i"):
        out.append(f"{k}f = arith.sitofp {v} : {elem} to f32")
    elif elem == "f32":
        return v
    elif elem in ("f16", "bf16"):
        out.append(f"{k}f = arith.extf {v} : {elem} to f32")
    else:
        out.append(f"{k}f = arith.truncf {v} : {elem} to f32")
    return f"{k}f"


def generate(seed: int, stages: int = 6) -> str:
    rng = random.Random(seed)
    body: list[str] = []
    helpers: dict[str, str] = {}
    emit = body.append
    emit("%c0 = arith.constant 0 : index")
    emit("%c1 = arith.constant 1 : index")
    emit("%c8 = arith.constant 8 : index")
    emit("%c16 = arith.constant 16 : index")
    emit("%c64 = arith.constant 64 : index")
    emit("%scale = arith.constant 37.0 : f32")
    emit("%dnz = arith.cmpi ne, %d, %c0 : index")
    pending: list[tuple[int, str, str, str]] = []  # (read at stage, buffer, type, elem)

    def fill(name: str, elem: str, mtype: str, count: str, ind: str) -> None:
        if elem == "i1":
            emit(f"{ind}memref.copy %m, {name} : memref<16xi1> to {mtype}")
            return
        emit(f"{ind}scf.for %i{name[1:]} = %c0 to {count} step %c1 {{")
        lines: list[str] = []
        emit(f"{ind}  %e{name[1:]} = memref.load %x[%i{name[1:]}] : memref<16xf32>")
        emit(f"{ind}  %s{name[1:]} = arith.mulf %e{name[1:]}, %scale : f32")
        v = _to(elem, f"%s{name[1:]}", lines, f"%w{name[1:]}")
        for line in lines:
            emit(f"{ind}  {line}")
        emit(f"{ind}  memref.store {v}, {name}[%i{name[1:]}] : {mtype}")
        emit(f"{ind}}}")

    def read(name: str, elem: str, mtype: str, count: str, ind: str, how: str) -> None:
        if elem == "i1":
            emit(f"{ind}memref.copy {name}, %mout : {mtype} to memref<16xi1>")
            return
        src, stype = name, mtype
        if how == "subview" and mtype == f"memref<16x{elem}>":
            src, stype = f"{name}_sv", f"memref<8x{elem}, strided<[1], offset: 8>>"
            emit(f"{ind}{src} = memref.subview {name}[8] [8] [1] : {mtype} to {stype}")
            count = "%c8"
        elif how == "cast" and mtype == f"memref<16x{elem}>":
            src, stype = f"{name}_cv", f"memref<?x{elem}>"
            emit(f"{ind}{src} = memref.cast {name} : {mtype} to {stype}")
        elif how == "call" and mtype == f"memref<16x{elem}>":
            helper = f"@read_{len(helpers)}"
            helpers[helper] = _helper(helper, elem)
            emit(f"{ind}func.call {helper}({name}, %out) : ({mtype}, memref<16xf32>) -> ()")
            return
        emit(f"{ind}scf.for %r{name[1:]} = %c0 to {count} step %c1 {{")
        lines: list[str] = []
        emit(f"{ind}  %l{name[1:]} = memref.load {src}[%r{name[1:]}] : {stype}")
        f = _from(elem, f"%l{name[1:]}", lines, f"%u{name[1:]}")
        for line in lines:
            emit(f"{ind}  {line}")
        emit(f"{ind}  %o{name[1:]} = memref.load %out[%r{name[1:]}] : memref<16xf32>")
        emit(f"{ind}  %a{name[1:]} = arith.addf %o{name[1:]}, {f} : f32")
        emit(f"{ind}  memref.store %a{name[1:]}, %out[%r{name[1:]}] : memref<16xf32>")
        emit(f"{ind}}}")

    for k in range(stages):
        for at, name, mtype, elem in [p for p in pending if p[0] == k]:
            read(name, elem, mtype, "%c16", "", rng.choice(("plain", "subview", "cast", "call")))
            emit(f"memref.dealloc {name} : {mtype}")
            pending.remove((at, name, mtype, elem))
        elem = rng.choice(ELEMENTS)
        kind = rng.choice(("plain", "plain", "guarded", "loop"))
        name = f"%b{k}"
        if kind == "guarded" and elem != "i1":
            # A dynamic size under a guard: 64 / %d only when %d != 0.
            mtype = f"memref<?x{elem}>"
            emit("scf.if %dnz {")
            emit(f"  %n{k} = arith.divui %c64, %d : index")
            emit(f"  %q{k} = arith.minui %n{k}, %c16 : index")
            emit(f"  {name} = memref.alloc(%q{k}) : {mtype}")
            fill(name, elem, mtype, f"%q{k}", "  ")
            read(name, elem, mtype, f"%q{k}", "  ", "plain")
            emit(f"  memref.dealloc {name} : {mtype}")
            emit("}")
            continue
        if kind == "loop":
            # Possibly zero iterations.
            mtype = f"memref<16x{elem}>"
            emit(f"scf.for %t{k} = %c0 to %trips step %c1 {{")
            emit(f"  {name} = memref.alloc() : {mtype}")
            fill(name, elem, mtype, "%c16", "  ")
            read(name, elem, mtype, "%c16", "  ", "plain")
            emit(f"  memref.dealloc {name} : {mtype}")
            emit("}")
            continue
        mtype = f"memref<16x{elem}>"
        emit(f"{name} = memref.alloc() : {mtype}")
        fill(name, elem, mtype, "%c16", "")
        pending.append((rng.randrange(k + 1, stages + 1), name, mtype, elem))
    for at, name, mtype, elem in sorted(pending):
        read(name, elem, mtype, "%c16", "", "plain")
        emit(f"memref.dealloc {name} : {mtype}")
    emit("%ret = memref.alloc() : memref<16xf32>")
    emit("memref.copy %out, %ret : memref<16xf32> to memref<16xf32>")
    emit("return %ret : memref<16xf32>")
    text = "\n".join(helpers.values())
    text += (
        "\nfunc.func @main(%x: memref<16xf32>, %m: memref<16xi1>, %d: index, %trips: index, "
        "%out: memref<16xf32>, %mout: memref<16xi1>) -> memref<16xf32> {\n"
    )
    text += "\n".join("  " + line for line in body) + "\n}\n"
    return text


def _helper(name: str, elem: str) -> str:
    lines: list[str] = []
    f = _from(elem, "%v", lines, "%h")
    conv = "\n".join("    " + line for line in lines)
    return (
        f"func.func private {name}(%b: memref<16x{elem}>, %out: memref<16xf32>) {{\n"
        "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
        "  %c16 = arith.constant 16 : index\n"
        "  scf.for %i = %c0 to %c16 step %c1 {\n"
        f"    %v = memref.load %b[%i] : memref<16x{elem}>\n{conv}\n"
        "    %o = memref.load %out[%i] : memref<16xf32>\n"
        f"    %a = arith.addf %o, {f} : f32\n"
        "    memref.store %a, %out[%i] : memref<16xf32>\n  }\n  return\n}\n"
    )
