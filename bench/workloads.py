"""Model-shaped workloads as linalg on tensors, for memory-planning benchmarks.

Each generator returns MLIR text with one public function taking the model
input and weights as tensor arguments and returning the output tensor:

* ``mlp``: a stack of matmul + bias + ReLU layers of varying widths;
* ``cnn``: NHWC convolutions in residual blocks (the block input stays live
  across the block, as in a ResNet);
* ``transformer``: pre-norm transformer blocks on one sequence: layer norm,
  Q/K/V projections, scaled dot-product attention with a softmax, output
  projection, residual adds and a two-layer ReLU MLP.

After upstream bufferization every intermediate becomes a ``memref.alloc``,
so these show how much a memory planner saves on realistic lifetimes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

F32 = "f32"


@dataclass
class _Builder:
    """Emits SSA lines with fresh names and remembers the function arguments."""

    args: list[tuple[str, str]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    counter: int = 0

    def arg(self, name: str, shape: tuple[int, ...]) -> str:
        self.args.append((name, tensor(shape)))
        return f"%{name}"

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"%{stem}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("  " + line)

    def empty(self, shape: tuple[int, ...]) -> str:
        v = self.fresh("e")
        self.emit(f"{v} = tensor.empty() : {tensor(shape)}")
        return v

    def zeros(self, shape: tuple[int, ...]) -> str:
        e = self.empty(shape)
        v = self.fresh("z")
        self.emit(
            f"{v} = linalg.fill ins(%zero : f32) outs({e} : {tensor(shape)}) -> {tensor(shape)}"
        )
        return v

    def matmul(self, a: str, b: str, m: int, k: int, n: int) -> str:
        acc = self.zeros((m, n))
        v = self.fresh("mm")
        self.emit(
            f"{v} = linalg.matmul ins({a}, {b} : {tensor((m, k))}, {tensor((k, n))}) "
            f"outs({acc} : {tensor((m, n))}) -> {tensor((m, n))}"
        )
        return v

    def generic(
        self,
        inputs: list[tuple[str, tuple[int, ...], str]],
        out_shape: tuple[int, ...],
        iterators: list[str],
        out_map: str,
        body: list[str],
        init: str | None = None,
    ) -> str:
        """A linalg.generic; ``body`` uses ``%in0..`` and ``%out`` and ends by
        defining ``%res``."""
        dst = init if init is not None else self.empty(out_shape)
        v = self.fresh("g")
        maps = ", ".join([m for _, _, m in inputs] + [out_map])
        ins = ", ".join(x for x, _, _ in inputs)
        in_types = ", ".join(tensor(s) for _, s, _ in inputs)
        iters = ", ".join(f'"{it}"' for it in iterators)
        block_args = ", ".join([f"%in{i}: f32" for i in range(len(inputs))] + ["%out: f32"])
        self.emit(
            f"{v} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iters}]}} "
            f"ins({ins} : {in_types}) outs({dst} : {tensor(out_shape)}) {{"
        )
        self.emit(f"^bb0({block_args}):")
        for line in body:
            self.emit("  " + line)
        self.emit("  linalg.yield %res : f32")
        self.emit(f"}} -> {tensor(out_shape)}")
        return v

    def function(self, name: str, result: str, result_shape: tuple[int, ...]) -> str:
        sig = ", ".join(f"%{n}: {t}" for n, t in self.args)
        head = [
            "#id2 = affine_map<(d0, d1) -> (d0, d1)>",
            "#row = affine_map<(d0, d1) -> (d1)>",
            "#col = affine_map<(d0, d1) -> (d0)>",
            "#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>",
            "#chan = affine_map<(d0, d1, d2, d3) -> (d3)>",
            f"func.func @{name}({sig}) -> {tensor(result_shape)} {{",
            "  %zero = arith.constant 0.0 : f32",
            "  %ninf = arith.constant -3.40282347E+38 : f32",
        ]
        return (
            "\n".join(head + self.lines + [f"  return {result} : {tensor(result_shape)}", "}"])
            + "\n"
        )


def tensor(shape: tuple[int, ...]) -> str:
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def _bias_relu(b: _Builder, x: str, bias: str, m: int, n: int, relu: bool = True) -> str:
    body = ["%s = arith.addf %in0, %in1 : f32"]
    body.append(
        "%res = arith.maximumf %s, %zero : f32" if relu else "%res = arith.addf %s, %zero : f32"
    )
    return b.generic(
        [(x, (m, n), "#id2"), (bias, (n,), "#row")], (m, n), ["parallel"] * 2, "#id2", body
    )


def _add(b: _Builder, x: str, y: str, shape: tuple[int, ...], rank_map: str) -> str:
    iters = ["parallel"] * len(shape)
    return b.generic(
        [(x, shape, rank_map), (y, shape, rank_map)],
        shape,
        iters,
        rank_map,
        ["%res = arith.addf %in0, %in1 : f32"],
    )


def mlp(batch: int = 16, widths: tuple[int, ...] = (64, 256, 512, 256, 128, 32)) -> str:
    """A ReLU MLP: ``len(widths) - 1`` layers of matmul + bias (+ ReLU)."""
    b = _Builder()
    x = b.arg("x", (batch, widths[0]))
    weights = [
        (b.arg(f"w{i}", (widths[i], widths[i + 1])), b.arg(f"b{i}", (widths[i + 1],)))
        for i in range(len(widths) - 1)
    ]
    h = x
    for i, (w, bias) in enumerate(weights):
        mm = b.matmul(h, w, batch, widths[i], widths[i + 1])
        h = _bias_relu(b, mm, bias, batch, widths[i + 1], relu=i + 2 < len(widths))
    return b.function("mlp", h, (batch, widths[-1]))


def cnn(size: int = 16, channels: int = 16, blocks: int = 3) -> str:
    """A ResNet-like stack: ``blocks`` residual blocks of two 3x3 convolutions."""
    b = _Builder()
    shape = (1, size, size, channels)
    x = b.arg("x", shape)
    params = [
        [
            (b.arg(f"k{i}_{j}", (3, 3, channels, channels)), b.arg(f"c{i}_{j}", (channels,)))
            for j in range(2)
        ]
        for i in range(blocks)
    ]
    # Padding keeps spatial size: pad once per conv with tensor.pad.
    h = x
    for block in params:
        inner = h
        for j, (kernel, bias) in enumerate(block):
            padded = b.fresh("pad")
            pshape = (1, size + 2, size + 2, channels)
            b.emit(
                f"{padded} = tensor.pad {inner} low[0, 1, 1, 0] high[0, 1, 1, 0] {{\n"
                f"  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n"
                f"    tensor.yield %zero : f32\n"
                f"  }} : {tensor(shape)} to {tensor(pshape)}"
            )
            acc = b.zeros(shape)
            conv = b.fresh("conv")
            b.emit(
                f"{conv} = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, "
                f"strides = dense<1> : tensor<2xi64>}} ins({padded}, {kernel} : {tensor(pshape)}, "
                f"{tensor((3, 3, channels, channels))}) outs({acc} : {tensor(shape)}) -> {tensor(shape)}"
            )
            body = ["%s = arith.addf %in0, %in1 : f32"]
            body.append(
                "%res = arith.maximumf %s, %zero : f32"
                if j == 0
                else "%res = arith.addf %s, %zero : f32"
            )
            inner = b.generic(
                [(conv, shape, "#id4"), (bias, (channels,), "#chan")],
                shape,
                ["parallel"] * 4,
                "#id4",
                body,
            )
        summed = _add(b, inner, h, shape, "#id4")
        h = b.generic(
            [(summed, shape, "#id4")],
            shape,
            ["parallel"] * 4,
            "#id4",
            ["%res = arith.maximumf %in0, %zero : f32"],
        )
    return b.function("cnn", h, shape)


def _layer_norm(b: _Builder, x: str, s: int, d: int) -> str:
    mean_acc = b.zeros((s,))
    total = b.generic(
        [(x, (s, d), "#id2")],
        (s,),
        ["parallel", "reduction"],
        "#col",
        ["%res = arith.addf %in0, %out : f32"],
        init=mean_acc,
    )
    inv_d = f"{1.0 / d:.8e}"
    centered = b.generic(
        [(x, (s, d), "#id2"), (total, (s,), "#col")],
        (s, d),
        ["parallel"] * 2,
        "#id2",
        [
            f"%c = arith.constant {inv_d} : f32",
            "%m = arith.mulf %in1, %c : f32",
            "%res = arith.subf %in0, %m : f32",
        ],
    )
    var_acc = b.zeros((s,))
    var = b.generic(
        [(centered, (s, d), "#id2")],
        (s,),
        ["parallel", "reduction"],
        "#col",
        ["%sq = arith.mulf %in0, %in0 : f32", "%res = arith.addf %sq, %out : f32"],
        init=var_acc,
    )
    return b.generic(
        [(centered, (s, d), "#id2"), (var, (s,), "#col")],
        (s, d),
        ["parallel"] * 2,
        "#id2",
        [
            f"%c = arith.constant {inv_d} : f32",
            "%eps = arith.constant 1.0e-5 : f32",
            "%v = arith.mulf %in1, %c : f32",
            "%ve = arith.addf %v, %eps : f32",
            "%r = math.rsqrt %ve : f32",
            "%res = arith.mulf %in0, %r : f32",
        ],
    )


def _softmax_rows(b: _Builder, x: str, s: int, t: int) -> str:
    init = b.empty((s,))
    ninit = b.fresh("mx")
    b.emit(
        f"{ninit} = linalg.fill ins(%ninf : f32) outs({init} : {tensor((s,))}) -> {tensor((s,))}"
    )
    mx = b.generic(
        [(x, (s, t), "#id2")],
        (s,),
        ["parallel", "reduction"],
        "#col",
        ["%res = arith.maximumf %in0, %out : f32"],
        init=ninit,
    )
    ex = b.generic(
        [(x, (s, t), "#id2"), (mx, (s,), "#col")],
        (s, t),
        ["parallel"] * 2,
        "#id2",
        ["%d = arith.subf %in0, %in1 : f32", "%res = math.exp %d : f32"],
    )
    sacc = b.zeros((s,))
    sm = b.generic(
        [(ex, (s, t), "#id2")],
        (s,),
        ["parallel", "reduction"],
        "#col",
        ["%res = arith.addf %in0, %out : f32"],
        init=sacc,
    )
    return b.generic(
        [(ex, (s, t), "#id2"), (sm, (s,), "#col")],
        (s, t),
        ["parallel"] * 2,
        "#id2",
        ["%res = arith.divf %in0, %in1 : f32"],
    )


def transformer(seq: int = 32, dim: int = 64, hidden: int = 128, layers: int = 2) -> str:
    """``layers`` pre-norm transformer blocks (single head) on a ``seq x dim`` input."""
    b = _Builder()
    x = b.arg("x", (seq, dim))
    params = []
    for i in range(layers):
        params.append(
            {
                "wq": b.arg(f"wq{i}", (dim, dim)),
                "wk": b.arg(f"wk{i}", (dim, dim)),
                "wv": b.arg(f"wv{i}", (dim, dim)),
                "wo": b.arg(f"wo{i}", (dim, dim)),
                "w1": b.arg(f"w1_{i}", (dim, hidden)),
                "b1": b.arg(f"b1_{i}", (hidden,)),
                "w2": b.arg(f"w2_{i}", (hidden, dim)),
                "b2": b.arg(f"b2_{i}", (dim,)),
            }
        )
    h = x
    scale = f"{1.0 / dim ** 0.5:.8e}"
    for p in params:
        n1 = _layer_norm(b, h, seq, dim)
        q = b.matmul(n1, p["wq"], seq, dim, dim)
        k = b.matmul(n1, p["wk"], seq, dim, dim)
        v = b.matmul(n1, p["wv"], seq, dim, dim)
        kt_init = b.empty((dim, seq))
        kt = b.fresh("kt")
        b.emit(
            f"{kt} = linalg.transpose ins({k} : {tensor((seq, dim))}) outs({kt_init} : {tensor((dim, seq))}) permutation = [1, 0]"
        )
        scores = b.matmul(q, kt, seq, dim, seq)
        scaled = b.generic(
            [(scores, (seq, seq), "#id2")],
            (seq, seq),
            ["parallel"] * 2,
            "#id2",
            [f"%c = arith.constant {scale} : f32", "%res = arith.mulf %in0, %c : f32"],
        )
        probs = _softmax_rows(b, scaled, seq, seq)
        att = b.matmul(probs, v, seq, seq, dim)
        proj = b.matmul(att, p["wo"], seq, dim, dim)
        h = _add(b, h, proj, (seq, dim), "#id2")
        n2 = _layer_norm(b, h, seq, dim)
        up = _bias_relu(b, b.matmul(n2, p["w1"], seq, dim, hidden), p["b1"], seq, hidden)
        down = _bias_relu(b, b.matmul(up, p["w2"], seq, hidden, dim), p["b2"], seq, dim, relu=False)
        h = _add(b, h, down, (seq, dim), "#id2")
    return b.function("transformer", h, (seq, dim))


#: Benchmark workloads by name: (generator, entry function).
WORKLOADS = {
    "mlp": (mlp, "mlp"),
    "cnn": (cnn, "cnn"),
    "transformer": (transformer, "transformer"),
}
