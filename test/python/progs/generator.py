"""A seeded generator of bufferized programs (memref level, as after
``one-shot-bufferize`` + ``buffer-deallocation-pipeline``).

``generate(seed)`` returns MLIR text of ``func.func @main(%x: memref<64xf32>,
%y: memref<?xf32>, %flag: i1, %out: memref<64xf32>) -> memref<16xf32>`` (and
a callee ``@helper``): a random sequence of
stages, each allocating a 1-D f32 buffer, filling it completely, and computing
its prefix from live buffers (elementwise linalg ops on subviews), with

* uses through aliases (subview, cast, expand_shape / collapse_shape),
* ``scf.for`` loops and ``scf.if`` branches that allocate and free their own
  temporaries and update buffers defined outside,
* ``scf.if`` results: each branch yields a fresh buffer, freed after the merge
  (branch groups),
* dynamically sized buffers (``memref.dim`` of ``%y``), stack buffers,
* buffers that escape (passed to ``func.call``, or returned), and
* deallocs right after the last use, or at the end of the block.

Every buffer is fully written before it is read, so runs are deterministic
and the poison check of :func:`memplan.numerics.compare` applies. Live
buffers are folded into ``%out`` before they die, so a wrong offset shows up
in the result.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Optional

SIZES = (16, 32, 48, 64)


@dataclass
class Buf:
    name: str
    size: Optional[int]  # None: dynamic (%dimy elements)
    kind: str = "alloc"  # alloc | alloca | arg

    @property
    def type(self) -> str:
        return f"memref<{self.size if self.size is not None else '?'}xf32>"


@dataclass
class Block:
    """Lines of one block; ``owned`` buffers are freed in it."""

    indent: str
    items: list[tuple[str, set[str]]] = field(default_factory=list)  # (text, buffers used)
    owned: list[Buf] = field(default_factory=list)


class Generator:
    def __init__(self, seed: int, stages: int = 10, max_depth: int = 2):
        self.rng = random.Random(seed)
        self.stages = stages
        self.max_depth = max_depth
        self.counter = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    # --- helpers ----------------------------------------------------------
    def prefix_view(self, blk: Block, buf: Buf, m: int, uses: set[str]) -> str:
        """A ``memref<mxf32, strided<[1]>>`` alias of the first m elements."""
        uses.add(buf.name)
        src = buf.name
        if buf.size is not None and buf.size % 2 == 0 and self.rng.random() < 0.25:
            # Alias through expand_shape + collapse_shape.
            half = buf.size // 2
            e = self.fresh("exp")
            c = self.fresh("col")
            blk.items.append(
                (
                    f"{e} = memref.expand_shape {src} [[0, 1]] output_shape [2, {half}]"
                    f" : {buf.type} into memref<2x{half}xf32>",
                    {buf.name},
                )
            )
            blk.items.append(
                (
                    f"{c} = memref.collapse_shape {e} [[0, 1]] : memref<2x{half}xf32>"
                    f" into {buf.type}",
                    {buf.name},
                )
            )
            src = c
        elif buf.size is not None and self.rng.random() < 0.2:
            c = self.fresh("cast")
            blk.items.append((f"{c} = memref.cast {src} : {buf.type} to memref<?xf32>", {buf.name}))
            v = self.fresh("pre")
            blk.items.append(
                (
                    f"{v} = memref.subview {c}[0] [{m}] [1] : memref<?xf32> to"
                    f" memref<{m}xf32, strided<[1]>>",
                    {buf.name},
                )
            )
            return v
        v = self.fresh("pre")
        blk.items.append(
            (
                f"{v} = memref.subview {src}[0] [{m}] [1] : {buf.type} to"
                f" memref<{m}xf32, strided<[1]>>",
                {buf.name},
            )
        )
        return v

    @staticmethod
    def cap(b: Buf) -> int:
        return b.size if b.size is not None else 7

    def compute(self, blk: Block, dst: Buf, sources: list[Buf], accumulate: bool = False) -> None:
        """dst[0:m] = op(sources...) (or dst += ... when accumulate)."""
        m = min([self.cap(dst)] + [self.cap(s) for s in sources] + [8 * self.rng.randint(1, 2)])
        uses: set[str] = {dst.name}
        ins = [self.prefix_view(blk, s, m, uses) for s in sources]
        out = self.prefix_view(blk, dst, m, uses)
        t = f"memref<{m}xf32, strided<[1]>>"
        if accumulate:
            ins = ins[:1] + [out]
        if len(ins) == 1:
            op = self.rng.choice(["linalg.negf", "linalg.abs", "linalg.copy"])
            line = f"{op} ins({ins[0]} : {t}) outs({out} : {t})"
        else:
            op = self.rng.choice(["linalg.add", "linalg.sub", "linalg.max", "linalg.min"])
            line = f"{op} ins({ins[0]}, {ins[1]} : {t}, {t}) outs({out} : {t})"
        blk.items.append((line, uses))

    def new_buffer(self, blk: Block, live: list[Buf]) -> Buf:
        r = self.rng.random()
        if r < 0.12:
            buf = Buf(self.fresh("dyn"), None)
            blk.items.append((f"{buf.name} = memref.alloc(%dimy) : {buf.type}", set()))
        elif r < 0.2:
            buf = Buf(self.fresh("stack"), self.rng.choice(SIZES), "alloca")
            blk.items.append((f"{buf.name} = memref.alloca() : {buf.type}", set()))
        else:
            buf = Buf(self.fresh("buf"), self.rng.choice(SIZES))
            align = " {alignment = 64 : i64}" if self.rng.random() < 0.5 else ""
            blk.items.append((f"{buf.name} = memref.alloc(){align} : {buf.type}", set()))
        fill = self.rng.choice(["%zero", "%half"])
        blk.items.append(
            (f"linalg.fill ins({fill} : f32) outs({buf.name} : {buf.type})", {buf.name})
        )
        if buf.kind == "alloc":
            blk.owned.append(buf)
        srcs = self.rng.sample(live, k=min(len(live), self.rng.choice([1, 2])))
        self.compute(blk, buf, srcs)
        return buf

    # --- structure ----------------------------------------------------------
    def body(
        self, blk: Block, live: list[Buf], depth: int, stages: int, targets: list[Buf]
    ) -> None:
        """Emit ``stages`` stages; ``targets`` are outer buffers a region may update."""
        local: list[Buf] = []
        for _ in range(stages):
            r = self.rng.random()
            pool = live + local
            if depth < self.max_depth and r < 0.15:
                self.loop(blk, pool, depth, targets + [b for b in local if b.kind != "arg"])
            elif depth < self.max_depth and r < 0.3:
                self.branch(blk, pool, depth, targets + [b for b in local if b.kind != "arg"])
            elif depth < self.max_depth and r < 0.4:
                local.append(self.merged(blk, pool, depth))
            else:
                buf = self.new_buffer(blk, pool)
                local.append(buf)
                if targets and self.rng.random() < 0.4:
                    self.compute(blk, self.rng.choice(targets), [buf], accumulate=True)
                if buf.kind == "alloc" and buf.size == 16 and self.rng.random() < 0.3:
                    # Escapes into a call: the callee doubles it in place.
                    blk.items.append(
                        (f"func.call @helper({buf.name}) : ({buf.type}) -> ()", {buf.name})
                    )
            # Fold a random local into an outer target now and then, and drop
            # buffers from the live set (their last use is then behind us).
            if local and self.rng.random() < 0.35:
                dead = local.pop(self.rng.randrange(len(local)))
                if targets:
                    self.compute(blk, targets[0], [dead], accumulate=True)
        if targets:
            for b in local[-2:]:
                self.compute(blk, targets[0], [b], accumulate=True)

    def region_block(self, indent: str) -> Block:
        return Block(indent)

    def loop(self, blk: Block, live: list[Buf], depth: int, targets: list[Buf]) -> None:
        inner = self.region_block(blk.indent + "  ")
        trip = self.rng.randint(1, 3)
        self.body(
            inner, live, depth + 1, self.rng.randint(1, 3), targets or [Buf("%out", 64, "arg")]
        )
        text = self.render_block(inner)
        used = {n for _, u in inner.items for n in u}
        blk.items.append(
            (
                f"scf.for %i{self.fresh('')[1:]} = %c0 to %c{trip} step %c1 {{\n{text}"
                f"{blk.indent}}}",
                used,
            )
        )

    def branch(self, blk: Block, live: list[Buf], depth: int, targets: list[Buf]) -> None:
        then = self.region_block(blk.indent + "  ")
        other = self.region_block(blk.indent + "  ")
        tg = targets or [Buf("%out", 64, "arg")]
        self.body(then, live, depth + 1, self.rng.randint(1, 3), tg)
        self.body(other, live, depth + 1, self.rng.randint(0, 2), tg)
        used = {n for b in (then, other) for _, u in b.items for n in u}
        blk.items.append(
            (
                f"scf.if %flag {{\n{self.render_block(then)}{blk.indent}}} else {{\n"
                f"{self.render_block(other)}{blk.indent}}}",
                used,
            )
        )

    def merged(self, blk: Block, live: list[Buf], depth: int) -> Buf:
        """``%m = scf.if %flag -> memref<S>`` with a fresh buffer yielded by each
        branch (a branch group); %m is freed in this block."""
        size = self.rng.choice(SIZES)
        result = Buf(self.fresh("m"), size)
        texts, used = [], set()
        for _ in range(2):
            inner = self.region_block(blk.indent + "  ")
            self.body(inner, live, depth + 1, self.rng.randint(0, 2), [Buf("%out", 64, "arg")])
            y = Buf(self.fresh("y"), size)
            inner.items.append((f"{y.name} = memref.alloc() : {y.type}", set()))
            inner.items.append(
                (f"linalg.fill ins(%half : f32) outs({y.name} : {y.type})", {y.name})
            )
            self.compute(inner, y, self.rng.sample(live, k=min(len(live), 2)))
            texts.append(
                self.render_block(inner) + f"{inner.indent}scf.yield {y.name} : {y.type}\n"
            )
            used |= {n for _, u in inner.items for n in u}
        blk.items.append(
            (
                f"{result.name} = scf.if %flag -> ({result.type}) {{\n{texts[0]}"
                f"{blk.indent}}} else {{\n{texts[1]}{blk.indent}}}",
                used - {result.name},
            )
        )
        blk.owned.append(result)
        return result

    def render_block(self, blk: Block) -> str:
        """Lines with each owned buffer's dealloc after its last use (or at the end)."""
        last: dict[str, int] = {}
        for i, (_, uses) in enumerate(blk.items):
            for n in uses:
                last[n] = i
        after: dict[int, list[Buf]] = {}
        at_end: list[Buf] = []
        for b in blk.owned:
            if self.rng.random() < 0.3:
                at_end.append(b)
            else:
                after.setdefault(last.get(b.name, 0), []).append(b)
        lines = []
        for i, (text, _) in enumerate(blk.items):
            lines.append(blk.indent + text)
            for b in after.get(i, []):
                lines.append(f"{blk.indent}memref.dealloc {b.name} : {b.type}")
        for b in at_end:
            lines.append(f"{blk.indent}memref.dealloc {b.name} : {b.type}")
        return "".join(line + "\n" for line in lines)

    def generate(self) -> str:
        top = Block("  ")
        args = [Buf("%x", 64, "arg"), Buf("%y", None, "arg")]
        out = Buf("%out", 64, "arg")
        self.body(top, args, 0, self.stages, [out])
        # The returned buffer escapes: it must stay a separate allocation.
        ret = Buf("%ret", 16)
        top.items.append((f"{ret.name} = memref.alloc() : {ret.type}", set()))
        top.items.append(
            (f"linalg.fill ins(%half : f32) outs({ret.name} : {ret.type})", {ret.name})
        )
        self.compute(top, ret, [out])
        helper = (
            "func.func @helper(%m: memref<16xf32>) {\n"
            "  linalg.add ins(%m, %m : memref<16xf32>, memref<16xf32>) outs(%m : memref<16xf32>)\n"
            "  return\n}\n"
        )
        header = helper + (
            "func.func @main(%x: memref<64xf32>, %y: memref<?xf32>, %flag: i1, %out: memref<64xf32>)"
            " -> memref<16xf32> {\n"
            "  %c0 = arith.constant 0 : index\n"
            "  %c1 = arith.constant 1 : index\n"
            "  %c2 = arith.constant 2 : index\n"
            "  %c3 = arith.constant 3 : index\n"
            "  %zero = arith.constant 0.0 : f32\n"
            "  %half = arith.constant 0.5 : f32\n"
            "  %dimy = memref.dim %y, %c0 : memref<?xf32>\n"
        )
        return header + self.render_block(top) + "  return %ret : memref<16xf32>\n}\n"


def generate(seed: int, stages: int = 10, max_depth: int = 2) -> str:
    """MLIR text of a random bufferized program (deterministic in ``seed``)."""
    return Generator(seed, stages, max_depth).generate()


__all__ = ["generate"]
