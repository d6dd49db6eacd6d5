"""The IR bridge: graph arrays agree with the IR they came from."""

import numpy as np
import pytest
from mlir import ir

from memplan.ir import extract_graph, function_ids, function_name, operation, parse_source
from memplan.ir.graph import entry_block

NESTED = """
func.func @f(%m: memref<8xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %m[%i] : memref<8xf32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  %cond = arith.cmpi slt, %n, %c1 : index
  %r = scf.if %cond -> f32 {
    scf.yield %s : f32
  } else {
    scf.yield %zero : f32
  }
  return %r : f32
}
func.func @g() {
  return
}
"""


def walk(op, out):
    out.append(op)
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                walk(child.operation, out)
    return out


def test_preorder_matches_python_walk(ctx):
    module = parse_source(NESTED, "nested.mlir")
    graph = extract_graph(module)
    ops = walk(module, [])
    assert graph.num_ops == len(ops)
    for i, op in enumerate(ops):
        assert graph.names[graph.op_name[i]] == op.name
        assert operation(graph, i) == op
        n_operands = graph.operand_begin[i + 1] - graph.operand_begin[i]
        assert n_operands == len(op.operands)
        assert graph.num_results[i] == len(op.results)


def test_operands_and_uses_are_consistent(ctx):
    graph = extract_graph(parse_source(NESTED, "nested.mlir"))
    # Every operand occurrence appears exactly once among the uses of its value.
    pairs = set()
    for op in range(graph.num_ops):
        for k, v in enumerate(
            graph.operands[graph.operand_begin[op] : graph.operand_begin[op + 1]]
        ):
            pairs.add((int(v), op, k))
    uses = set()
    for v in range(graph.num_values):
        for u in range(graph.use_begin[v], graph.use_begin[v + 1]):
            uses.add((v, int(graph.use_op[u]), int(graph.use_operand[u])))
    assert pairs == uses
    assert len(uses) == len(graph.operands)


def test_subtree_and_dominance(ctx):
    graph = extract_graph(parse_source(NESTED, "nested.mlir"))

    def name(i: int) -> str:
        return graph.names[graph.op_name[i]]

    loop = next(i for i in range(graph.num_ops) if name(i) == "scf.for")
    load = next(i for i in range(graph.num_ops) if name(i) == "memref.load")
    ret = next(i for i in range(graph.num_ops) if name(i) == "func.return")
    cond = next(i for i in range(graph.num_ops) if name(i) == "arith.cmpi")
    assert graph.is_ancestor(loop, load) and not graph.is_ancestor(load, loop)
    assert graph.op_end[loop] < cond
    assert graph.happens_before(load, cond) and not graph.happens_before(cond, load)
    assert not graph.happens_before(loop, load)  # the loop encloses the load
    assert graph.properly_dominates(loop, ret)
    c0 = function_ids(graph)[0] + 1
    assert name(c0) == "arith.constant" and graph.properly_dominates(c0, load)
    assert not graph.properly_dominates(load, ret)  # nested value does not escape
    assert graph.ancestor_in_block(graph.op_block[loop], load) == loop
    # Block argument %i dominates ops in the body only.
    body = graph.op_block[load]
    iv = graph.block_arg_begin[body]
    assert graph.value_dominates(iv, load) and not graph.value_dominates(iv, ret)


def test_regions_and_blocks(ctx):
    graph = extract_graph(parse_source(NESTED, "nested.mlir"))

    def name(i: int) -> str:
        return graph.names[graph.op_name[i]]

    if_op = next(i for i in range(graph.num_ops) if name(i) == "scf.if")
    first, last = graph.region_begin[if_op], graph.region_begin[if_op + 1]
    assert last - first == 2
    for r in range(first, last):
        assert graph.region_op[r] == if_op
        blocks = graph.region_blocks[graph.region_block_begin[r] : graph.region_block_begin[r + 1]]
        assert len(blocks) == 1 and graph.block_parent_op[blocks[0]] == if_op


def test_types_and_functions(ctx):
    module = parse_source(NESTED, "nested.mlir")
    graph = extract_graph(module)
    assert [function_name(graph, f) for f in function_ids(graph)] == ["f", "g"]
    arg = graph.block_arg_begin[graph.op_block[function_ids(graph)[0] + 1]]
    info = graph.types[graph.value_type[arg]]
    assert info.is_memref and info.shape == [8] and info.elem_bits == 32
    assert info.static_bytes == 32 and info.identity_layout and info.memory_space == 0
    assert "nested.mlir" in graph.location(function_ids(graph)[0])


def test_arrays_are_read_only_views(ctx):
    graph = extract_graph(parse_source(NESTED, "nested.mlir"))
    arr = graph.op_parent
    assert isinstance(arr, np.ndarray) and arr.dtype == np.int32
    with pytest.raises(ValueError):
        arr[0] = 5
    del graph
    assert arr[0] == -1  # the view keeps the graph alive


def test_extract_single_function(ctx):
    module = parse_source(NESTED, "nested.mlir")
    func = module.regions[0].blocks[0].operations[0]
    graph = extract_graph(func)
    assert graph.names[graph.op_name[0]] == "func.func"
    assert graph.op_parent[0] == -1


def test_graph_keeps_its_ir_alive(ctx):
    import gc

    text = "func.func @kept() {\n  return\n}"
    graph = extract_graph(parse_source(text, "kept.mlir"))  # no other reference
    gc.collect()
    others = [parse_source(text.replace("@kept", f"@other{i}"), "o.mlir") for i in range(20)]
    assert [function_name(graph, f) for f in function_ids(graph)] == ["kept"]
    assert operation(graph, 1).name == "func.func"
    del others


QUOTED = """
func.func private @"my-fn"(%a: i32) attributes {note = "a \\"quoted\\" string", big = 200 : ui8, neg = -3 : si8}
func.func @g() {
  %c = arith.constant 5 : i32
  %t = arith.constant true
  %w = arith.constant 36893488147419103232 : i128
  %a = memref.alloc() {alignment = 128 : i64} : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  func.call @"my-fn"(%c) : (i32) -> ()
  return
}
"""


def test_typed_attributes():
    """Attributes are read as typed MLIR attributes, not parsed from their
    printed form: quoted symbol names keep no quotes, integers of every
    signedness, i1, and integers wider than 64 bits (None) read exactly."""
    from memplan.ir.callgraph import build_call_graph
    from memplan.reuse.plan import alloc_alignment

    with ir.Context():
        module = parse_source(QUOTED)
        g = extract_graph(module)
        by_name = {}
        for op in range(g.num_ops):
            by_name.setdefault(g.names[g.op_name[op]], []).append(op)
        fn, caller = function_ids(g)
        assert function_name(g, fn) == "my-fn"
        assert g.str_attribute(fn, "note") == 'a "quoted" string'
        assert g.str_attribute(fn, "sym_visibility") == "private"
        call = by_name["func.call"][0]
        assert g.symbol_attribute(call, "callee") == "my-fn"
        assert g.str_attribute(call, "callee") is None  # a symbol ref, not a string
        c, t, w = by_name["arith.constant"]
        assert [g.int_attribute(x, "value") for x in (c, t, w)] == [5, -1, None]
        assert (g.int_attribute(fn, "big"), g.int_attribute(fn, "neg")) == (200, -3)
        alloc = by_name["memref.alloc"][0]
        assert alloc_alignment(g, alloc) == 128
        assert g.has_attribute(alloc, "alignment") and not g.has_attribute(alloc, "nope")
        assert g.int_attribute(alloc, "nope") is None
        cg = build_call_graph(g)
        assert cg.calls[caller] == [(call, "my-fn")]
        assert cg.order == ["my-fn", "g"]
        assert not cg.is_public(fn) and cg.is_public(caller)


ACROSS_BLOCKS = """
func.func @cfg(%c: i1) -> i32 {
  cf.br ^bb2
^bb1:  // textually first, but runs after ^bb2, which dominates it
  %x = arith.addi %y, %y : i32
  return %x : i32
^bb2:
  %y = arith.constant 2 : i32
  cf.br ^bb1
}
func.func @branches(%c: i1) {
  scf.if %c {
    %t = arith.constant 1 : i32
  } else {
    %e = arith.constant 2 : i32
  }
  return
}
func.func @diamond(%c: i1) {
  cf.cond_br %c, ^left, ^right
^left:
  %l = arith.constant 1 : i32
  cf.br ^join
^right:
  %r = arith.constant 2 : i32
  cf.br ^join
^join:
  %j = arith.constant 3 : i32
  return
}
"""


def test_order_and_dominance_across_blocks_and_regions():
    """happens_before / properly_dominates / value_dominates follow control
    flow (MLIR's DominanceInfo), not the textual pre-order: a block written
    before its dominator, the two branches of an scf.if, a CFG diamond."""
    with ir.Context():
        g = extract_graph(parse_source(ACROSS_BLOCKS))
        ops = {}
        for op in range(g.num_ops):
            ops.setdefault(g.names[g.op_name[op]], []).append(op)
        (x,) = ops["arith.addi"]
        y, t, e, left, r, j = ops["arith.constant"]
        # ^bb2 dominates ^bb1 although it comes later in the text.
        assert g.happens_before(y, x) and not g.happens_before(x, y)
        assert g.properly_dominates(y, x) and not g.properly_dominates(x, y)
        assert g.value_dominates(int(g.result_begin[y]), x)
        assert not g.value_dominates(int(g.result_begin[x]), y)
        # The two branches of an scf.if never run one after the other.
        assert not g.happens_before(t, e) and not g.happens_before(e, t)
        assert not g.properly_dominates(t, e)
        # A diamond: happens-before is upstream One-Shot's (a, or an op
        # enclosing it, properly dominates b): the branch before the join
        # does, the exclusive branches and a branch against the join do not.
        (cond_br,) = ops["cf.cond_br"]
        assert g.happens_before(cond_br, j) and g.happens_before(cond_br, left)
        assert not g.happens_before(left, r) and not g.happens_before(r, left)
        assert not g.happens_before(left, j) and not g.properly_dominates(left, j)
        # The entry-block argument of @cfg dominates every op of the function.
        cfg = int(g.op_parent[x])
        assert g.value_dominates(int(g.block_arg_begin[entry_block(g, cfg)]), x)


CALLS = """
func.func @c() {
  func.call @a() : () -> ()
  return
}
func.func @a() {
  func.call @b() : () -> ()
  return
}
func.func @b() {
  func.call @a() : () -> ()
  func.call @leaf() : () -> ()
  return
}
func.func @d() {
  func.call @d() : () -> ()
  return
}
func.func @leaf() {
  return
}
func.func private @decl()
"""


def test_call_graph_order_is_callee_first():
    """One call-graph order (MLIR's CallGraph, components in post-order):
    every callee before its callers, cycles and self calls reported."""
    from memplan.ir.callgraph import build_call_graph

    with ir.Context():
        cg = build_call_graph(extract_graph(parse_source(CALLS)))
        order = cg.order
        assert sorted(order) == ["a", "b", "c", "d", "decl", "leaf"]
        pos = {name: i for i, name in enumerate(order)}
        assert pos["leaf"] < pos["a"] and pos["leaf"] < pos["b"]
        assert pos["a"] < pos["c"] and pos["b"] < pos["c"]
        assert sorted(cg.recursive) == [["a", "b"], ["d"]]
