"""Seeded random generators of destination-style tensor programs.

:func:`random_program`: any well-typed program (reads of ``tensor.empty``
included), for differential testing of the in-place analysis against
upstream. :func:`numeric_program`: programs the numerics harness runs bit for
bit (every read initialized, every loop bounded by an input), with the
inputs that select each path: scf and cf control flow, view chains
(extract_slice / insert_slice / cast / expand_shape / collapse_shape), calls
and recursion, dynamic shapes, i1 / f16 / bf16 / odd-width integer elements.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Optional

T8 = "tensor<8xf32>"
T4 = "tensor<4xf32>"


class _Gen:
    def __init__(self, seed: int, n_ops: int, loops: bool, calls: bool, extra=()):
        self.extra = list(extra)
        self.r = random.Random(seed)
        self.n_ops = n_ops
        self.loops = loops
        self.calls = calls
        self.k = 0
        self.lines: list[str] = []

    def fresh(self) -> str:
        self.k += 1
        return f"%v{self.k}"

    def emit(self, ind: str, text: str) -> None:
        self.lines.append(ind + text)

    def body(self, vals8: list[str], vals4: list[str], n: int, ind: str, depth: int) -> None:
        r = self.r
        for _ in range(n):
            kind = r.choice(
                [
                    "empty",
                    "fill",
                    "generic",
                    "generic",
                    "extract",
                    "insert",
                    "insert_scalar",
                    "extract_scalar",
                    "select",
                    "if",
                    "for",
                    "call",
                    "cast",
                ]
                + self.extra
            )
            if kind == "empty":
                v = self.fresh()
                self.emit(ind, f"{v} = tensor.empty() : {T8}")
                vals8.append(v)
            elif kind == "fill":
                if r.random() < 0.5 and vals4:
                    d, t = r.choice(vals4), T4
                else:
                    d, t = r.choice(vals8), T8
                v = self.fresh()
                self.emit(ind, f"{v} = linalg.fill ins(%cst : f32) outs({d} : {t}) -> {t}")
                (vals4 if t == T4 else vals8).append(v)
            elif kind == "generic":
                a, b, d = r.choice(vals8), r.choice(vals8), r.choice(vals8)
                v = self.fresh()
                use_out = r.random() < 0.3
                self.emit(
                    ind,
                    f'{v} = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}}'
                    f" ins({a}, {b} : {T8}, {T8}) outs({d} : {T8}) {{",
                )
                self.emit(ind, "^bb0(%x: f32, %y: f32, %o: f32):")
                self.emit(ind, f"  %s = arith.addf %x, {'%o' if use_out else '%y'} : f32")
                self.emit(ind, "  linalg.yield %s : f32")
                self.emit(ind, f"}} -> {T8}")
                vals8.append(v)
            elif kind == "extract":
                s = r.choice(vals8)
                off = r.choice(["0", "4", "%i"])
                v = self.fresh()
                self.emit(ind, f"{v} = tensor.extract_slice {s}[{off}] [4] [1] : {T8} to {T4}")
                vals4.append(v)
            elif kind == "insert" and vals4:
                s, d = r.choice(vals4), r.choice(vals8)
                off = r.choice(["0", "4", "%i"])
                v = self.fresh()
                self.emit(
                    ind, f"{v} = tensor.insert_slice {s} into {d}[{off}] [4] [1] : {T4} into {T8}"
                )
                vals8.append(v)
            elif kind == "insert_scalar":
                d = r.choice(vals8)
                v = self.fresh()
                self.emit(ind, f"{v} = tensor.insert %cst into {d}[%i] : {T8}")
                vals8.append(v)
            elif kind == "extract_scalar":
                s = r.choice(vals8 + vals4)
                t = T4 if s in vals4 else T8
                v = self.fresh()
                self.emit(ind, f"{v}_s = tensor.extract {s}[%c0] : {t}")
            elif kind == "select":
                a, b = r.choice(vals8), r.choice(vals8)
                v = self.fresh()
                self.emit(ind, f"{v} = arith.select %c, {a}, {b} : {T8}")
                vals8.append(v)
            elif kind == "cast":
                a = r.choice(vals8)
                v = self.fresh()
                self.emit(ind, f"{v} = tensor.cast {a} : {T8} to tensor<?xf32>")
                w = self.fresh()
                self.emit(ind, f"{w} = tensor.cast {v} : tensor<?xf32> to {T8}")
                vals8.append(w)
            elif kind == "if" and depth < 2:
                v = self.fresh()
                self.emit(ind, f"{v} = scf.if %c -> ({T8}) {{")
                for _branch in range(2):
                    inner8, inner4 = list(vals8), list(vals4)
                    self.body(inner8, inner4, r.randint(0, 3), ind + "  ", depth + 1)
                    self.emit(
                        ind,
                        f"  scf.yield {r.choice(inner8[len(vals8) - 2:] if r.random() < 0.7 else inner8)} : {T8}",
                    )
                    if _branch == 0:
                        self.emit(ind, "} else {")
                self.emit(ind, "}")
                vals8.append(v)
            elif kind == "for" and self.loops and depth < 2:
                init = r.choice(vals8)
                v = self.fresh()
                it = self.fresh() + "_it"
                self.emit(
                    ind,
                    f"{v} = scf.for %iv{self.k} = %c0 to %c4 step %c1 iter_args({it} = {init}) -> ({T8}) {{",
                )
                inner8, inner4 = list(vals8) + [it, it, it], list(vals4)
                self.body(inner8, inner4, r.randint(1, 3), ind + "  ", depth + 1)
                # Mostly yield something derived from the iter_arg.
                y = inner8[-1] if r.random() < 0.8 else r.choice(inner8)
                self.emit(ind, f"  scf.yield {y} : {T8}")
                self.emit(ind, "}")
                vals8.append(v)
            elif kind == "while" and depth < 2:
                init = r.choice(vals8)
                v = self.fresh()
                a, b = self.fresh() + "_w", self.fresh() + "_w"
                self.emit(ind, f"{v} = scf.while ({a} = {init}) : ({T8}) -> {T8} {{")
                inner8, inner4 = list(vals8) + [a, a], list(vals4)
                self.body(inner8, inner4, r.randint(0, 2), ind + "  ", depth + 1)
                y = inner8[-1] if r.random() < 0.7 else r.choice(inner8)
                self.emit(ind, f"  scf.condition(%c) {y} : {T8}")
                self.emit(ind, "} do {")
                self.emit(ind, f"^bb0({b}: {T8}):")
                inner8, inner4 = list(vals8) + [b, b], list(vals4)
                self.body(inner8, inner4, r.randint(0, 2), ind + "  ", depth + 1)
                y = inner8[-1] if r.random() < 0.7 else r.choice(inner8)
                self.emit(ind, f"  scf.yield {y} : {T8}")
                self.emit(ind, "}")
                vals8.append(v)
            elif kind == "forall" and depth < 1:
                init = r.choice(vals8)
                v = self.fresh()
                o = self.fresh() + "_o"
                iv = self.fresh() + "_i"
                self.emit(
                    ind, f"{v} = scf.forall ({iv}) in (2) shared_outs({o} = {init}) -> ({T8}) {{"
                )
                inner8, inner4 = list(vals8) + [o, o], list(vals4)
                off = r.choice([iv, "%c0", iv])
                sl = self.fresh()
                self.emit(
                    ind,
                    f"  {sl} = tensor.extract_slice {r.choice([o, o, r.choice(vals8)])}[{off}] [4] [1] : {T8} to {T4}",
                )
                inner4.append(sl)
                self.body(inner8, inner4, r.randint(0, 2), ind + "  ", depth + 2)
                src = inner4[-1] if r.random() < 0.8 else r.choice(inner4)
                self.emit(ind, "  scf.forall.in_parallel {")
                self.emit(
                    ind,
                    f"    tensor.parallel_insert_slice {src} into {o}[{off}] [4] [1] : {T4} into {T8}",
                )
                self.emit(ind, "  }")
                self.emit(ind, "}")
                vals8.append(v)
            elif kind == "materialize":
                a, d = r.choice(vals8), r.choice(vals8)
                v = self.fresh()
                self.emit(
                    ind,
                    f"{v} = bufferization.materialize_in_destination {a} in {d} : ({T8}, {T8}) -> {T8}",
                )
                vals8.append(v)
            elif kind == "call" and self.calls:
                a, b = r.choice(vals8), r.choice(vals8)
                v = self.fresh()
                self.emit(
                    ind, f"{v}:2 = func.call @helper({a}, {b}) : ({T8}, {T8}) -> ({T8}, {T8})"
                )
                vals8.append(f"{v}#0")
                vals8.append(f"{v}#1")

    def program(self) -> str:
        r = self.r
        self.lines = ["#id = affine_map<(d0) -> (d0)>", "module {"]
        if self.calls:
            self.lines += [
                f"func.func @helper(%a: {T8}, %b: {T8}) -> ({T8}, {T8}) {{",
                "  %cst = arith.constant 2.0 : f32",
                "  %c0 = arith.constant 0 : index",
            ]
            kind = r.randint(0, 3)
            if kind == 0:
                self.lines += [
                    f"  %w = linalg.fill ins(%cst : f32) outs(%a : {T8}) -> {T8}",
                    f"  return %w, %b : {T8}, {T8}",
                ]
            elif kind == 1:
                self.lines += [
                    f"  %x = tensor.extract %b[%c0] : {T8}",
                    f"  return %b, %a : {T8}, {T8}",
                ]
            elif kind == 2:
                self.lines += [
                    f"  %e = tensor.empty() : {T8}",
                    f"  %w = linalg.fill ins(%cst : f32) outs(%e : {T8}) -> {T8}",
                    f"  return %w, %a : {T8}, {T8}",
                ]
            else:
                self.lines += [
                    f"  %w = tensor.insert %cst into %b[%c0] : {T8}",
                    f"  return %a, %w : {T8}, {T8}",
                ]
            self.lines.append("}")
        n_args = r.randint(1, 3)
        args = []
        for j in range(n_args):
            attr = " {bufferization.writable = false}" if r.random() < 0.3 else ""
            args.append(f"%a{j}: {T8}{attr}")
        self.lines.append(
            f"func.func @main({', '.join(args)}, %c: i1, %i: index) -> ({T8}, {T8}) {{"
        )
        ind = "  "
        self.emit(ind, "%cst = arith.constant 1.0 : f32")
        self.emit(ind, "%c0 = arith.constant 0 : index")
        self.emit(ind, "%c1 = arith.constant 1 : index")
        self.emit(ind, "%c4 = arith.constant 4 : index")
        vals8 = [f"%a{j}" for j in range(n_args)]
        if r.random() < 0.3:
            self.emit(ind, f"%k = arith.constant dense<3.0> : {T8}")
            vals8.append("%k")
        vals4: list[str] = []
        self.body(vals8, vals4, self.n_ops, ind, 0)
        outs = [r.choice(vals8[-4:]), r.choice(vals8)]
        self.emit(ind, f"return {outs[0]}, {outs[1]} : {T8}, {T8}")
        self.lines.append("}")
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"


def random_program(
    seed: int, n_ops: int = 12, loops: bool = True, calls: bool = True, extra: tuple = ()
) -> str:
    """A random, verifiable tensor program (two functions when ``calls``).
    ``extra`` adds op kinds: "while", "forall", "materialize"."""
    return _Gen(seed, n_ops, loops, calls, extra).program()


# --------------------------------------------------------------------------
# Runnable programs: what the numerics harness can check bit for bit.
# --------------------------------------------------------------------------

#: Element types of :func:`numeric_program` (one per program).
ELEMENTS = ("f32", "f16", "bf16", "f64", "i1", "i3", "i8", "i12", "i24", "i32", "i48", "i64")

#: Op kinds :func:`numeric_program` draws from (``Features`` turns groups off).
NUMERIC_KINDS = (
    "empty",
    "fill",
    "generic",
    "generic",
    "extract",
    "insert",
    "insert_scalar",
    "extract_fill",
    "select",
    "cast",
    "chain",
    "reshape",
    "if",
    "for",
    "while",
    "call",
    "rec",
    "dyn",
    "dynarg",
    "dynbuf",
    "cf",
)


@dataclass(frozen=True)
class Features:
    """What a runnable program may contain."""

    element: str = "f32"
    loops: bool = True  # scf.for / scf.while bounded by %n (zero trips when %n = 0)
    calls: bool = True  # a helper function
    recursion: bool = True  # a function calling itself %n deep
    cf: bool = True  # cf.cond_br diamonds in @main (block arguments)
    dynamic: bool = True  # tensor<?x..> values, a dynamic argument, buffers sized by %n
    views: bool = True  # casts, reshapes, slice chains


@dataclass
class NumericProgram:
    """A runnable tensor program with the inputs that select its paths."""

    text: str
    seed: int
    features: Features
    #: Argument numbers of the scalars: the branch condition, the slice
    #: offset, the trip count.
    cond: int = 0
    offset: int = 0
    trips: int = 0
    #: The slice offset this program runs with (0..4).
    offset_value: int = 0
    #: ``dims`` for the harness (the dynamic argument's size).
    dims: dict = field(default_factory=dict)

    def paths(self, trips: tuple = (0, 2)) -> list[dict]:
        """``values`` for the harness: each branch with each trip count
        (zero trips included), the offset fixed."""
        return [
            {self.cond: bool(c), self.offset: self.offset_value, self.trips: n}
            for n in trips
            for c in (False, True)
        ]


class _NumericGen(_Gen):
    """Programs whose every read is of initialized data and whose loops end.

    ``tensor.empty`` results are only written (``dests``) until an op that
    writes them whole makes them readable (``vals8``/``vals4``). Upstream's
    bufferization requires a loop to yield a value equivalent to its
    iteration argument: inside a loop body the argument, and every value
    that may alias it (``tainted``: views, selects, branch and call results
    of it), is only read, and the body ends by writing the argument whole
    (``carry``) and yielding that."""

    def __init__(self, seed: int, n_ops: int, features: Features):
        super().__init__(seed, n_ops, features.loops, features.calls)
        self.f = features
        e = features.element
        self.E = e
        self.T8, self.T4, self.TD = f"tensor<8x{e}>", f"tensor<4x{e}>", f"tensor<?x{e}>"
        self.T24 = f"tensor<2x4x{e}>"
        if e == "i1":
            self.cst, self.ops = "true", ("arith.xori", "arith.andi", "arith.ori")
        elif e.startswith("i"):
            self.cst, self.ops = "3", ("arith.addi", "arith.muli", "arith.xori", "arith.subi")
        else:
            self.cst, self.ops = "1.5", ("arith.addf", "arith.mulf", "arith.subf")
        self.uses_rec = False
        self.uses_helper = False
        self.tainted: set[str] = set()

    # -- pieces ------------------------------------------------------------

    def scalar_constant(self) -> str:
        """The attribute of ``%cst`` (``true`` takes no type)."""
        return self.cst if self.E == "i1" else f"{self.cst} : {self.E}"

    def taint(self, value: str, *sources: str) -> str:
        """``value`` may alias one of ``sources``: tainted if one is."""
        if any(s in self.tainted for s in sources):
            self.tainted.add(value)
        return value

    def writable(self, pool: list) -> list:
        return [v for v in pool if v not in self.tainted]

    def dest(self, ind: str, pool: list, t: str) -> str:
        """A value to write into: from ``pool`` (untainted), or a fresh
        ``tensor.empty``."""
        choices = self.writable(pool)
        if choices and self.r.random() < 0.85:
            return self.r.choice(choices)
        v = self.fresh()
        self.emit(ind, f"{v} = tensor.empty() : {t}")
        return v

    def payload(self, ind: str, a: str, b: str) -> None:
        op = self.r.choice(self.ops)
        self.emit(ind, f"^bb0(%x: {self.E}, %y: {self.E}, %o: {self.E}):")
        self.emit(ind, f"  %s = {op} {a}, {b} : {self.E}")
        self.emit(ind, f"  linalg.yield %s : {self.E}")

    def generic(self, ind: str, a: str, b: str, d: str, t: str, read_out: bool) -> str:
        v = self.fresh()
        self.emit(
            ind,
            f"{v} = linalg.generic {{indexing_maps = [#id, #id, #id], "
            f'iterator_types = ["parallel"]}} ins({a}, {b} : {t}, {t}) outs({d} : {t}) {{',
        )
        self.payload(ind, "%x", "%o" if read_out else "%y")
        self.emit(ind, f"}} -> {t}")
        return v

    def offset(self) -> str:
        return self.r.choice(["0", "4", "%i"])

    def view_chain(self, ind: str, src: str) -> tuple[str, str]:
        """2-4 view ops from a T8 value (casts, slices, reshapes, a slice
        written back): (value, its type T8 or T4)."""
        r = self.r
        v, t = src, self.T8
        for _ in range(r.randint(2, 4)):
            w = self.fresh()
            if t == self.T8:
                step = r.choice(["cast", "slice", "reshape", "reshape_row"])
            else:
                step = r.choice(["cast", "rewrite"])
            if step == "cast":
                self.emit(ind, f"{w} = tensor.cast {v} : {t} to {self.TD}")
                x = self.fresh()
                self.emit(ind, f"{x} = tensor.cast {w} : {self.TD} to {t}")
                v = x
            elif step == "slice":
                self.emit(
                    ind,
                    f"{w} = tensor.extract_slice {v}[{self.offset()}] [4] [1] : "
                    f"{t} to {self.T4}",
                )
                v, t = w, self.T4
            elif step in ("reshape", "reshape_row"):
                self.emit(
                    ind,
                    f"{w} = tensor.expand_shape {v} [[0, 1]] output_shape [2, 4] : "
                    f"{t} into {self.T24}",
                )
                x = self.fresh()
                if step == "reshape":
                    self.emit(
                        ind, f"{x} = tensor.collapse_shape {w} [[0, 1]] : {self.T24} into {t}"
                    )
                else:
                    self.emit(
                        ind,
                        f"{x} = tensor.extract_slice {w}[{r.choice(['0', '1'])}, 0] [1, 4]"
                        f" [1, 1] : {self.T24} to {self.T4}",
                    )
                    t = self.T4
                v = x
            else:  # two elements of the slice written over two others
                t2 = f"tensor<2x{self.E}>"
                self.emit(
                    ind,
                    f"{w} = tensor.extract_slice {v}[{r.choice(['0', '2'])}] [2] [1]"
                    f" : {t} to {t2}",
                )
                x = self.fresh()
                self.emit(
                    ind,
                    f"{x} = tensor.insert_slice {w} into {v}[{r.choice(['0', '2'])}]"
                    f" [2] [1] : {t2} into {t}",
                )
                v = x
        return v, t

    def scope(self, vals8, vals4, dests, n, ind, depth):
        """A nested body on copies of the visible values; returns its lists."""
        inner8, inner4, innerd = list(vals8), list(vals4), list(dests)
        self.nbody(inner8, inner4, innerd, n, ind, depth)
        return inner8, inner4, innerd

    def yielded(self, inner8: list, outer_len: int) -> str:
        fresh = inner8[outer_len:]
        return self.r.choice(fresh) if fresh and self.r.random() < 0.8 else self.r.choice(inner8)

    def carry(self, ind: str, inner8: list, arg: str) -> str:
        """The end of a loop body: ``arg`` written whole from the body's
        values (or left as it is), the value to yield."""
        if self.r.random() < 0.1:
            return arg
        return self.generic(
            ind, self.r.choice(inner8), self.r.choice(inner8), arg, self.T8, self.r.random() < 0.3
        )

    # -- the body ----------------------------------------------------------

    def nbody(self, vals8: list, vals4: list, dests: list, n: int, ind: str, depth: int) -> None:
        r, f = self.r, self.f
        kinds = [
            k
            for k in NUMERIC_KINDS
            if (f.loops or k not in ("for", "while"))
            and (f.calls or k != "call")
            and (f.recursion or k != "rec")
            and (f.cf or k != "cf")
            and (f.dynamic or k not in ("dyn", "dynarg", "dynbuf"))
            and (f.views or k not in ("cast", "chain", "reshape"))
        ]
        T8, T4 = self.T8, self.T4
        for _ in range(n):
            kind = r.choice(kinds)
            if kind == "empty":
                v = self.fresh()
                self.emit(ind, f"{v} = tensor.empty() : {T8}")
                dests.append(v)
            elif kind == "fill":
                if r.random() < 0.3 and self.writable(vals4):
                    d, t, out = r.choice(self.writable(vals4)), T4, vals4
                else:
                    d, t, out = self.dest(ind, vals8 + dests, T8), T8, vals8
                v = self.fresh()
                self.emit(ind, f"{v} = linalg.fill ins(%cst : {self.E}) outs({d} : {t}) -> {t}")
                out.append(v)
            elif kind == "generic":
                read_out = r.random() < 0.3
                if r.random() < 0.25 and self.writable(vals4):
                    a, b, d, t, out = (
                        r.choice(vals4),
                        r.choice(vals4),
                        r.choice(self.writable(vals4)),
                        T4,
                        vals4,
                    )
                else:
                    d = self.dest(ind, vals8 if read_out else vals8 + dests, T8)
                    a, b, t, out = r.choice(vals8), r.choice(vals8), T8, vals8
                    read_out = read_out and d in vals8
                out.append(self.generic(ind, a, b, d, t, read_out))
            elif kind == "extract":
                s = r.choice(vals8)
                v = self.fresh()
                self.emit(
                    ind, f"{v} = tensor.extract_slice {s}[{self.offset()}] [4] [1] : {T8} to {T4}"
                )
                vals4.append(self.taint(v, s))
            elif kind == "insert" and vals4 and self.writable(vals8):
                v = self.fresh()
                self.emit(
                    ind,
                    f"{v} = tensor.insert_slice {r.choice(vals4)} into "
                    f"{r.choice(self.writable(vals8))}[{self.offset()}] [4] [1] : {T4} into {T8}",
                )
                vals8.append(v)
            elif kind == "insert_scalar" and self.writable(vals8):
                v = self.fresh()
                self.emit(
                    ind,
                    f"{v} = tensor.insert %cst into {r.choice(self.writable(vals8))}[%i] : {T8}",
                )
                vals8.append(v)
            elif kind == "extract_fill":
                s = r.choice(vals8 + vals4)
                t = T4 if s in vals4 else T8
                x = self.fresh()
                self.emit(ind, f"{x}_s = tensor.extract {s}[{r.choice(['%c0', '%c1'])}] : {t}")
                d = self.dest(ind, vals8 + dests, T8)
                v = self.fresh()
                self.emit(ind, f"{v} = linalg.fill ins({x}_s : {self.E}) outs({d} : {T8}) -> {T8}")
                vals8.append(v)
            elif kind == "select":
                a, b = r.choice(vals8), r.choice(vals8)
                v = self.fresh()
                self.emit(ind, f"{v} = arith.select %c, {a}, {b} : {T8}")
                vals8.append(self.taint(v, a, b))
            elif kind in ("cast", "chain", "reshape") and self.writable(vals8):
                v, t = self.view_chain(ind, r.choice(self.writable(vals8)))
                (vals8 if t == T8 else vals4).append(v)
            elif kind == "if" and depth < 2:
                v = self.fresh()
                self.emit(ind, f"{v} = scf.if %c -> ({T8}) {{")
                for branch in range(2):
                    inner8, _, _ = self.scope(
                        vals8, vals4, dests, r.randint(0, 3), ind + "  ", depth + 1
                    )
                    y = self.yielded(inner8, len(vals8))
                    self.taint(v, y)
                    self.emit(ind, f"  scf.yield {y} : {T8}")
                    if branch == 0:
                        self.emit(ind, "} else {")
                self.emit(ind, "}")
                vals8.append(v)
            elif kind == "for" and depth < 2 and self.writable(vals8):
                v, iv, it = self.fresh(), self.fresh() + "_iv", self.fresh() + "_it"
                init = r.choice(self.writable(vals8))
                self.emit(
                    ind,
                    f"{v} = scf.for {iv} = %c0 to %n step %c1 iter_args({it} = {init}) "
                    f"-> ({T8}) {{",
                )
                self.tainted.add(it)
                inner8, _, _ = self.scope(
                    vals8 + [it, it], vals4, dests, r.randint(1, 3), ind + "  ", depth + 1
                )
                self.emit(ind, f"  scf.yield {self.carry(ind + '  ', inner8, it)} : {T8}")
                self.emit(ind, "}")
                vals8.append(v)
            elif kind == "while" and depth < 2 and self.writable(vals8):
                v, a, b = self.fresh(), self.fresh() + "_w", self.fresh() + "_w"
                k, k2 = self.fresh() + "_k", self.fresh() + "_k"
                init = r.choice(self.writable(vals8))
                self.emit(
                    ind,
                    f"{v}:2 = scf.while ({a} = {init}, {k} = %c0) : ({T8}, index)"
                    f" -> ({T8}, index) {{",
                )
                self.emit(ind, f"  {k}_go = arith.cmpi slt, {k}, %n : index")
                self.emit(ind, f"  scf.condition({k}_go) {a}, {k} : {T8}, index")
                self.emit(ind, "} do {")
                self.emit(ind, f"^bb0({b}: {T8}, {k2}: index):")
                self.tainted.add(b)
                inner8, _, _ = self.scope(
                    vals8 + [b, b], vals4, dests, r.randint(0, 2), ind + "  ", depth + 1
                )
                y = self.carry(ind + "  ", inner8, b)
                self.emit(ind, f"  {k2}_next = arith.addi {k2}, %c1 : index")
                self.emit(ind, f"  scf.yield {y}, {k2}_next : {T8}, index")
                self.emit(ind, "}")
                vals8.append(f"{v}#0")
            elif kind == "call":
                self.uses_helper = True
                a, b = r.choice(vals8), r.choice(vals8)
                v = self.fresh()
                self.emit(
                    ind, f"{v}:2 = func.call @helper({a}, {b}) : ({T8}, {T8}) -> ({T8}, {T8})"
                )
                vals8 += [self.taint(f"{v}#0", a, b), self.taint(f"{v}#1", a, b)]
            elif kind == "rec":
                self.uses_rec = True
                a = r.choice(vals8)
                v = self.fresh()
                self.emit(ind, f"{v} = func.call @rec({a}, %n) : ({T8}, index) -> {T8}")
                vals8.append(self.taint(v, a))
            elif kind == "dyn":
                s = r.choice(vals8)
                x, sz, e = self.fresh(), self.fresh(), self.fresh()
                self.emit(ind, f"{x} = tensor.cast {s} : {T8} to {self.TD}")
                self.emit(ind, f"{sz} = tensor.dim {x}, %c0 : {self.TD}")
                self.emit(ind, f"{e} = tensor.empty({sz}) : {self.TD}")
                g = self.generic(ind, x, x, e, self.TD, False)
                v = self.fresh()
                self.emit(ind, f"{v} = tensor.cast {g} : {self.TD} to {T8}")
                vals8.append(v)
            elif kind == "dynarg" and self.writable(vals8):
                sz, e = self.fresh(), self.fresh()
                self.emit(ind, f"{sz} = tensor.dim %d, %c0 : {self.TD}")
                self.emit(ind, f"{e} = tensor.empty({sz}) : {self.TD}")
                g = self.generic(ind, "%d", "%d", e, self.TD, False)
                x, v = self.fresh(), self.fresh()
                self.emit(ind, f"{x}_s = tensor.extract {g}[%c0] : {self.TD}")
                self.emit(
                    ind,
                    f"{v} = tensor.insert {x}_s into {r.choice(self.writable(vals8))}[%i]"
                    f" : {T8}",
                )
                vals8.append(v)
            elif kind == "dynbuf" and self.writable(vals8):
                m, e, fl = self.fresh(), self.fresh(), self.fresh()
                self.emit(ind, f"{m} = arith.addi %n, %c1 : index")
                self.emit(ind, f"{e} = tensor.empty({m}) : {self.TD}")
                self.emit(
                    ind,
                    f"{fl} = linalg.fill ins(%cst : {self.E}) outs({e} : {self.TD}) "
                    f"-> {self.TD}",
                )
                g = self.generic(ind, fl, fl, fl, self.TD, r.random() < 0.5)
                x, v = self.fresh(), self.fresh()
                self.emit(ind, f"{x}_s = tensor.extract {g}[%n] : {self.TD}")
                self.emit(
                    ind,
                    f"{v} = tensor.insert {x}_s into {r.choice(self.writable(vals8))}[%i]"
                    f" : {T8}",
                )
                vals8.append(v)
            elif kind == "cf" and depth == 0:
                # A diamond on %c: each side computes from what is visible,
                # the merge block gets one value; a side's values end there.
                merged = self.fresh() + "_m"
                t_bb, f_bb, m_bb = f"^t{self.k}", f"^f{self.k}", f"^m{self.k}"
                self.emit(ind, f"cf.cond_br %c, {t_bb}, {f_bb}")
                for label in (t_bb, f_bb):
                    self.lines.append(f"{label}:")
                    inner8, _, _ = self.scope(vals8, vals4, dests, r.randint(0, 3), ind, depth + 1)
                    y = self.yielded(inner8, len(vals8))
                    self.taint(merged, y)
                    self.emit(ind, f"cf.br {m_bb}({y} : {T8})")
                self.lines.append(f"{m_bb}({merged}: {T8}):")
                vals8.append(merged)

    def helpers(self) -> list[str]:
        T8, E, r = self.T8, self.E, self.r
        lines = []
        if self.uses_helper:
            lines += [
                f"func.func @helper(%a: {T8}, %b: {T8}) -> ({T8}, {T8}) {{",
                f"  %cst = arith.constant {self.scalar_constant()}",
                "  %c0 = arith.constant 0 : index",
            ]
            kind = r.randint(0, 3)
            if kind == 0:
                lines += [
                    f"  %w = linalg.fill ins(%cst : {E}) outs(%a : {T8}) -> {T8}",
                    f"  return %w, %b : {T8}, {T8}",
                ]
            elif kind == 1:
                lines += [
                    f"  %x = tensor.extract %b[%c0] : {T8}",
                    f"  %w = tensor.insert %x into %a[%c0] : {T8}",
                    f"  return %b, %w : {T8}, {T8}",
                ]
            elif kind == 2:
                lines += [
                    f"  %e = tensor.empty() : {T8}",
                    f"  %w = linalg.fill ins(%cst : {E}) outs(%e : {T8}) -> {T8}",
                    f"  return %w, %a : {T8}, {T8}",
                ]
            else:
                lines += [
                    f"  %w = tensor.insert %cst into %b[%c0] : {T8}",
                    f"  return %a, %w : {T8}, {T8}",
                ]
            lines.append("}")
        if self.uses_rec:
            body, self.lines = self.lines, []
            step = self.generic("    ", "%rx", "%rx", "%re", T8, False)
            generic, self.lines = self.lines, body
            lines += [
                f"func.func @rec(%rx: {T8}, %rk: index) -> {T8} {{",
                "  %c0 = arith.constant 0 : index",
                "  %c1 = arith.constant 1 : index",
                "  %z = arith.cmpi eq, %rk, %c0 : index",
                f"  %r = scf.if %z -> ({T8}) {{",
                f"    scf.yield %rx : {T8}",
                "  } else {",
                f"    %re = tensor.empty() : {T8}",
                *generic,
                "    %k1 = arith.subi %rk, %c1 : index",
                f"    %r2 = func.call @rec({step}, %k1) : ({T8}, index) -> {T8}",
                f"    scf.yield %r2 : {T8}",
                "  }",
                f"  return %r : {T8}",
                "}",
            ]
        return lines

    def numeric_program(self) -> NumericProgram:
        r, f = self.r, self.f
        n_args = r.randint(1, 3)
        args = [f"%a{j}: {self.T8}" for j in range(n_args)]
        if f.dynamic:
            args.append(f"%d: {self.TD}")
        base = len(args)
        args += ["%c: i1", "%i: index", "%n: index"]
        self.lines = []
        ind = "  "
        self.emit(ind, f"%cst = arith.constant {self.scalar_constant()}")
        for c in (0, 1):
            self.emit(ind, f"%c{c} = arith.constant {c} : index")
        vals8 = [f"%a{j}" for j in range(n_args)]
        if r.random() < 0.3:
            self.emit(ind, f"%k = arith.constant dense<{self.cst}> : {self.T8}")
            vals8.append("%k")
        self.nbody(vals8, [], [], self.n_ops, ind, 0)
        self.emit(ind, f"return {r.choice(vals8[-4:])}, {r.choice(vals8)} : {self.T8}, {self.T8}")
        body = self.lines
        text = (
            "\n".join(
                [
                    "#id = affine_map<(d0) -> (d0)>",
                    "module {",
                    *self.helpers(),
                    f"func.func @main({', '.join(args)}) -> ({self.T8}, {self.T8}) {{",
                    *body,
                    "}",
                    "}",
                ]
            )
            + "\n"
        )
        dims = {base - 1: 5} if f.dynamic else {}
        return NumericProgram(
            text,
            0,
            f,
            cond=base,
            offset=base + 1,
            trips=base + 2,
            offset_value=r.randint(0, 4),
            dims=dims,
        )


def numeric_program(
    seed: int, n_ops: int = 10, features: Optional[Features] = None
) -> NumericProgram:
    """A runnable tensor program (see :class:`_NumericGen`): ``@main(%a0..:
    tensor<8xE>, %d: tensor<?xE>, %c: i1, %i: index, %n: index) ->
    (tensor<8xE>, tensor<8xE>)``, its element type ``E`` from ``features``
    (default: drawn from :data:`ELEMENTS` by the seed), with scf and cf
    control flow on ``%c`` and ``%n``, view chains, calls, recursion
    ``%n`` deep and dynamic shapes."""
    if features is None:
        pick = random.Random(seed * 7919 + 17)
        features = Features(element=pick.choice(ELEMENTS))
    program = _NumericGen(seed, n_ops, features).numeric_program()
    program.seed = seed
    return program
