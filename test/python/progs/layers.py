"""Layered tensor programs the way torch-mlir's importer emits them: one
``tensor.empty`` per shape, CSE'd and shared by the same op of every layer.

``shared_destination_layers(layers)`` returns ``func.func @main(%x, %w...)``
where each layer computes a bias-free MLP block (matmul, an elementwise
ReLU, a transposed weight as the importer makes it, a residual add), all
writing into the shared destinations. Upstream bufferization keeps one
buffer per shared destination live from the first layer to the last.
"""

from __future__ import annotations

ID2 = "affine_map<(d0, d1) -> (d0, d1)>"
TR2 = "affine_map<(d0, d1) -> (d1, d0)>"


def shared_destination_layers(layers: int = 3, rows: int = 8, width: int = 16) -> str:
    t = f"tensor<{rows}x{width}xf32>"
    w = f"tensor<{width}x{width}xf32>"
    args = ", ".join(f"%w{i}: {w}" for i in range(layers))
    lines = [
        f"func.func @main(%x: {t}, {args}) -> {t} {{",
        "  %zero = arith.constant 0.0 : f32",
        f"  %ew = tensor.empty() : {w}",
        f"  %et = tensor.empty() : {t}",
    ]
    prev = "%x"
    for i in range(layers):
        lines += [
            # The importer's transposed weight, written into the shared %ew.
            f'  %wt{i} = linalg.generic {{indexing_maps = [{TR2}, {ID2}], iterator_types = ["parallel", "parallel"]}}'
            f" ins(%w{i} : {w}) outs(%ew : {w}) {{",
            "  ^bb0(%in: f32, %out: f32):",
            "    linalg.yield %in : f32",
            f"  }} -> {w}",
            f"  %z{i} = linalg.fill ins(%zero : f32) outs(%et : {t}) -> {t}",
            f"  %m{i} = linalg.matmul ins({prev}, %wt{i} : {t}, {w}) outs(%z{i} : {t}) -> {t}",
            f'  %r{i} = linalg.generic {{indexing_maps = [{ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}'
            f" ins(%m{i} : {t}) outs(%et : {t}) {{",
            "  ^bb0(%in: f32, %out: f32):",
            "    %v = arith.maximumf %in, %zero : f32",
            "    linalg.yield %v : f32",
            f"  }} -> {t}",
            f"  %s{i} = linalg.add ins(%r{i}, {prev} : {t}, {t}) outs(%et : {t}) -> {t}",
        ]
        prev = f"%s{i}"
    lines += [f"  return {prev} : {t}", "}"]
    return "\n".join(lines) + "\n"


def shared_fill_layers(layers: int = 3, rows: int = 8, width: int = 16) -> str:
    """``func.func @main(%x, %w...)``: a matmul per layer accumulating into
    one zero fill the importer CSE'd (``linalg.fill`` of a ``tensor.empty``
    computed once, before the first layer), then a ReLU and a residual add:
    bufferization holds the fill, or a copy of it, from the first layer to
    the last."""
    t = f"tensor<{rows}x{width}xf32>"
    w = f"tensor<{width}x{width}xf32>"
    args = ", ".join(f"%w{i}: {w}" for i in range(layers))
    lines = [
        f"func.func @main(%x: {t}, {args}) -> {t} {{",
        "  %zero = arith.constant 0.0 : f32",
        f"  %ez = tensor.empty() : {t}",
        f"  %acc = linalg.fill ins(%zero : f32) outs(%ez : {t}) -> {t}",
    ]
    prev = "%x"
    for i in range(layers):
        lines += [
            f"  %m{i} = linalg.matmul ins({prev}, %w{i} : {t}, {w}) outs(%acc : {t}) -> {t}",
            f"  %er{i} = tensor.empty() : {t}",
            f'  %r{i} = linalg.generic {{indexing_maps = [{ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}'
            f" ins(%m{i} : {t}) outs(%er{i} : {t}) {{",
            "  ^bb0(%in: f32, %out: f32):",
            "    %v = arith.maximumf %in, %zero : f32",
            "    linalg.yield %v : f32",
            f"  }} -> {t}",
            f"  %es{i} = tensor.empty() : {t}",
            f"  %s{i} = linalg.add ins(%r{i}, {prev} : {t}, {t}) outs(%es{i} : {t}) -> {t}",
        ]
        prev = f"%s{i}"
    lines += [f"  return {prev} : {t}", "}"]
    return "\n".join(lines) + "\n"
