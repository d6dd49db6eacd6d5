"""GFLOP/s of the checker's matmul kernels, with and without register tiles.

Each shape is one ``linalg.matmul`` (or ``linalg.batch_matmul`` with a batch
size) on f32, run ``--reps`` times in an ``scf.for`` by one call, lowered by
:func:`memplan.numerics.lowering.lower` as memplan-check lowers a program
(outlined, tiled: :mod:`memplan.numerics.tiling`) and JIT-compiled at the
checker's level. Two lowerings per shape, measured in the same run, the
calls interleaved: with register tiles (:func:`~memplan.numerics.tiling.register_tile`)
and with the tiles left as loops (as before them). Prints the best of
``--runs`` calls as GFLOP/s of wall and of CPU time (user + system: the figure
that holds on a loaded machine) and whether the two outputs are the same
bit for bit (they must be).

The default shapes are gpt2_l48_h512_s128's (``../shared/workloads``):
its four matmuls (128 rows, hidden 512) and its two attention batch matmuls.

    python bench/bench_kernels.py [--shapes MxKxN | BxMxKxN ...] [--reps 10] [--runs 5]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from memplan.numerics import lowering, tiling
from memplan.numerics.inputs import make_arguments
from memplan.numerics.runner import Executable

GPT2 = ["128x512x1536", "128x512x512", "128x512x2048", "128x2048x512", "8x128x64x128"]


def source(shape: list[int], reps: int) -> str:
    """``@main`` running the matmul of ``shape`` ``reps`` times."""
    *batch, m, k, n = shape
    lead = "x".join(str(b) for b in batch) + "x" if batch else ""
    a, b, c = (f"memref<{lead}{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    op = "linalg.batch_matmul" if batch else "linalg.matmul"
    return f"""
func.func @main(%A: {a}, %B: {b}, %C: {c}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %reps = arith.constant {reps} : index
  scf.for %i = %c0 to %reps step %c1 {{
    {op} ins(%A, %B : {a}, {b}) outs(%C : {c})
  }}
  return
}}
"""


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def lowered(text: str, registers: bool) -> Executable:
    """The compiled program, with register tiles or without."""
    saved = tiling.register_tile
    if not registers:
        tiling.register_tile = lambda op: False
    try:
        exe = Executable(lowering.lower(text, "main"))
    finally:
        tiling.register_tile = saved
    exe.compile()
    return exe


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--shapes", nargs="*", default=GPT2)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print(
        "| shape | loops GFLOP/s (wall, CPU) | register tiles GFLOP/s (wall, CPU) " "| same bits |"
    )
    print("|---|---:|---:|---|")
    for text_shape in args.shapes:
        shape = [int(x) for x in text_shape.split("x")]
        text = source(shape, args.reps)
        programs = {r: lowered(text, r) for r in (False, True)}
        inputs = make_arguments(programs[True].program.signature, None, 0, None, None)
        best = {r: [float("inf"), float("inf")] for r in programs}
        outputs = {}
        for _ in range(args.runs):
            for r, exe in programs.items():
                wall, used = time.perf_counter(), cpu()
                run = exe.run(inputs, None)
                wall, used = time.perf_counter() - wall, cpu() - used
                best[r] = [min(best[r][0], wall), min(best[r][1], used)]
                outputs[r] = run.outputs[2].data
        flops = 2 * int(np.prod(shape)) * args.reps
        cells = [
            f"{flops / best[r][0] / 1e9:.1f}, {flops / max(best[r][1], 1e-9) / 1e9:.1f}"
            for r in (False, True)
        ]
        same = np.array_equal(outputs[False].view(np.uint8), outputs[True].view(np.uint8))
        print(f"| {text_shape} | {cells[0]} | {cells[1]} | {'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
