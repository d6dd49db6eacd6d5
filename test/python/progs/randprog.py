"""Seeded random generator of destination-style tensor programs, for
differential testing of the in-place analysis against upstream."""

from __future__ import annotations

import random

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
            kind = r.choice(["empty", "fill", "generic", "generic", "extract", "insert", "insert_scalar",
                             "extract_scalar", "select", "if", "for", "call", "cast"] + self.extra)
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
                self.emit(ind, f"{v} = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = [\"parallel\"]}}"
                               f" ins({a}, {b} : {T8}, {T8}) outs({d} : {T8}) {{")
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
                self.emit(ind, f"{v} = tensor.insert_slice {s} into {d}[{off}] [4] [1] : {T4} into {T8}")
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
                    self.emit(ind, f"  scf.yield {r.choice(inner8[len(vals8) - 2:] if r.random() < 0.7 else inner8)} : {T8}")
                    if _branch == 0:
                        self.emit(ind, "} else {")
                self.emit(ind, "}")
                vals8.append(v)
            elif kind == "for" and self.loops and depth < 2:
                init = r.choice(vals8)
                v = self.fresh()
                it = self.fresh() + "_it"
                self.emit(ind, f"{v} = scf.for %iv{self.k} = %c0 to %c4 step %c1 iter_args({it} = {init}) -> ({T8}) {{")
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
                self.emit(ind, f"{v} = scf.forall ({iv}) in (2) shared_outs({o} = {init}) -> ({T8}) {{")
                inner8, inner4 = list(vals8) + [o, o], list(vals4)
                off = r.choice([iv, "%c0", iv])
                sl = self.fresh()
                self.emit(ind, f"  {sl} = tensor.extract_slice {r.choice([o, o, r.choice(vals8)])}[{off}] [4] [1] : {T8} to {T4}")
                inner4.append(sl)
                self.body(inner8, inner4, r.randint(0, 2), ind + "  ", depth + 2)
                src = inner4[-1] if r.random() < 0.8 else r.choice(inner4)
                self.emit(ind, "  scf.forall.in_parallel {")
                self.emit(ind, f"    tensor.parallel_insert_slice {src} into {o}[{off}] [4] [1] : {T4} into {T8}")
                self.emit(ind, "  }")
                self.emit(ind, "}")
                vals8.append(v)
            elif kind == "materialize":
                a, d = r.choice(vals8), r.choice(vals8)
                v = self.fresh()
                self.emit(ind, f"{v} = bufferization.materialize_in_destination {a} in {d} : ({T8}, {T8}) -> {T8}")
                vals8.append(v)
            elif kind == "call" and self.calls:
                a, b = r.choice(vals8), r.choice(vals8)
                v = self.fresh()
                self.emit(ind, f"{v}:2 = func.call @helper({a}, {b}) : ({T8}, {T8}) -> ({T8}, {T8})")
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
                self.lines += [f"  %w = linalg.fill ins(%cst : f32) outs(%a : {T8}) -> {T8}",
                               f"  return %w, %b : {T8}, {T8}"]
            elif kind == 1:
                self.lines += [f"  %x = tensor.extract %b[%c0] : {T8}",
                               f"  return %b, %a : {T8}, {T8}"]
            elif kind == 2:
                self.lines += [f"  %e = tensor.empty() : {T8}",
                               f"  %w = linalg.fill ins(%cst : f32) outs(%e : {T8}) -> {T8}",
                               f"  return %w, %a : {T8}, {T8}"]
            else:
                self.lines += [f"  %w = tensor.insert %cst into %b[%c0] : {T8}",
                               f"  return %a, %w : {T8}, {T8}"]
            self.lines.append("}")
        n_args = r.randint(1, 3)
        args = []
        for j in range(n_args):
            attr = " {bufferization.writable = false}" if r.random() < 0.3 else ""
            args.append(f"%a{j}: {T8}{attr}")
        self.lines.append(f"func.func @main({', '.join(args)}, %c: i1, %i: index) -> ({T8}, {T8}) {{")
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


def random_program(seed: int, n_ops: int = 12, loops: bool = True, calls: bool = True,
                   extra: tuple = ()) -> str:
    """A random, verifiable tensor program (two functions when ``calls``).
    ``extra`` adds op kinds: "while", "forall", "materialize"."""
    return _Gen(seed, n_ops, loops, calls, extra).program()
