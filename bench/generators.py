"""Generators of benchmark inputs (MLIR text), shared by the bench scripts."""

from __future__ import annotations


def elementwise_chain(n: int, size: int = 64, shared_read: bool = False) -> str:
    """One function with ``n`` tensor ``linalg.generic`` ops in a chain.

    Each generic holds 3 ops (generic, addf, yield) plus a ``tensor.empty``,
    so the module has about ``4 n`` ops. With ``shared_read`` every op also
    reads the function argument, the shape that makes upstream One-Shot
    analysis super-linear.
    """
    lines = [
        "#id = affine_map<(d0) -> (d0)>",
        f"func.func @chain(%arg0: tensor<{size}xf32>) -> tensor<{size}xf32> {{",
    ]
    prev = "%arg0"
    t = f"tensor<{size}xf32>"
    for i in range(n):
        lines.append(f"  %e{i} = tensor.empty() : {t}")
        if shared_read:
            lines.append(
                f'  %v{i} = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}}'
                f" ins({prev}, %arg0 : {t}, {t}) outs(%e{i} : {t}) {{"
            )
            lines.append("  ^bb0(%a: f32, %b: f32, %o: f32):")
            lines.append("    %s = arith.addf %a, %b : f32")
        else:
            lines.append(
                f'  %v{i} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel"]}}'
                f" ins({prev} : {t}) outs(%e{i} : {t}) {{"
            )
            lines.append("  ^bb0(%a: f32, %o: f32):")
            lines.append("    %s = arith.addf %a, %a : f32")
        lines.append("    linalg.yield %s : f32")
        lines.append(f"  }} -> {t}")
        prev = f"%v{i}"
    lines.append(f"  return {prev} : {t}")
    lines.append("}")
    return "\n".join(lines) + "\n"
