"""``memplan-test-print-graph``: print the graph the IR bridge extracts.

A test pass in the spirit of upstream's ``test-print-*`` passes: it shows, per
function, every op with its pre-order id, nesting, operands and results, and
every value with its definition, type and uses, so lit tests can pin down the
bridge's numbering. The IR is left unchanged.
"""

from __future__ import annotations

import sys
from typing import TextIO

from mlir import ir

from memplan.ir.graph import Graph, extract_graph, function_ids, function_name
from memplan.passes import PassContext


def format_function(graph: Graph, func: int) -> str:
    """Text dump of function op ``func``: ops and values local to it, ids graph-wide."""
    names = graph.names
    lines = [f"graph @{function_name(graph, func)}"]
    last = int(graph.op_end[func])
    op_name, op_parent, op_block = graph.op_name, graph.op_parent, graph.op_block
    operand_begin, operands = graph.operand_begin, graph.operands
    result_begin, num_results = graph.result_begin, graph.num_results
    for op in range(func, last + 1):
        args = ", ".join(
            f"%v{v}" if v >= 0 else "<outside>"
            for v in operands[operand_begin[op] : operand_begin[op + 1]]
        )
        results = ", ".join(
            f"%v{v}" for v in range(result_begin[op], result_begin[op] + num_results[op])
        )
        regions = graph.region_begin[op + 1] - graph.region_begin[op]
        lines.append(
            f"  op {op} {names[op_name[op]]} parent={op_parent[op]} block={op_block[op]}"
            f" depth={graph.op_depth[op]} end={graph.op_end[op]}"
            f" operands=({args}) results=({results}) regions={regions}"
        )
    first_value = _first_value(graph, func)
    end_value = _first_value(graph, last + 1) if last + 1 < graph.num_ops else graph.num_values
    types = graph.types
    for v in range(first_value, end_value):
        if graph.value_op[v] >= 0:
            origin = f"result {graph.value_index[v]} of op {graph.value_op[v]}"
        else:
            origin = f"arg {graph.value_index[v]} of block {graph.value_block[v]}"
        uses = ", ".join(
            f"op {graph.use_op[u]}#{graph.use_operand[u]}"
            for u in range(graph.use_begin[v], graph.use_begin[v + 1])
        )
        info = types[graph.value_type[v]]
        extra = ""
        if info.is_tensor or info.is_memref:
            extra = f" bytes={info.static_bytes}"
            if info.is_memref:
                extra += f" identity={int(info.identity_layout)} space={info.memory_space}"
        lines.append(f"  value %v{v} : {info.text} = {origin}{extra} uses=[{uses}]")
    return "\n".join(lines)


def _first_value(graph: Graph, op: int) -> int:
    """First value id created at or after op ``op`` in the walk."""
    block = graph.op_block[op]
    # Values are numbered in walk order: an op's results come first; a block's
    # arguments come right before its first op.
    if block >= 0 and graph.block_first_op[block] == op:
        return int(graph.block_arg_begin[block])
    return int(graph.result_begin[op])


def print_graph(module: ir.Operation, out: TextIO) -> None:
    """Extract ``module`` and print each function's graph to ``out``."""
    graph = extract_graph(module)
    for func in function_ids(graph):
        print(format_function(graph, func), file=out)


def run(module: ir.Operation, ctx: PassContext) -> None:
    out = sys.stdout if ctx.options["stream"] == "stdout" else sys.stderr
    print_graph(module, out)
    out.flush()
