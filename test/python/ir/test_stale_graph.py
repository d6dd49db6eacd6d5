"""An edit applied through a graph (``memplan._core.apply_pool_edit``,
``apply_transient_edit``, ``apply_deallocation_plan``) leaves ids in it that
may name erased or rebuilt ops: a later edit whose ids it may have made stale
is refused with a ValueError, before anything changes, instead of following
them (a second plan of one function freed its buffers twice)."""

from __future__ import annotations

import numpy as np
import pytest

from memplan import _core
from memplan.ir import parse_source
from memplan.ir.graph import extract_graph

S = _core.EditStep

# @pooled: two 16-byte buffers, one after the other, already freed (a pool
# edit's input). @owned and @other: a buffer nobody frees (a deallocation
# plan's input).
UNFREED = """
func.func @{name}(%x: f32) -> f32 {{
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4xf32>
  memref.store %x, %a[%c0] : memref<4xf32>
  %y = memref.load %a[%c0] : memref<4xf32>
  return %y : f32
}}
"""
POOLED = """
func.func @pooled(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4xf32>
  memref.store %x, %a[%c0] : memref<4xf32>
  %y = memref.load %a[%c0] : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.store %y, %b[%c0] : memref<4xf32>
  %z = memref.load %b[%c0] : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return %z : f32
}
"""
PROGRAM = POOLED + UNFREED.format(name="owned") + UNFREED.format(name="other")


def _ops(graph: _core.Graph, name: str, function: int) -> list[int]:
    want = graph.name_id(name)
    end = graph.op_end[function]
    return [i for i in range(function, end + 1) if graph.op_name[i] == want]


def _by_order(graph: _core.Graph, name: str) -> int:
    want = graph.name_id("func.func")
    funcs = [i for i in range(len(graph.op_name)) if graph.op_name[i] == want]
    return funcs[["pooled", "owned", "other"].index(name)]


def _pool_edit(graph: _core.Graph) -> _core.PoolEdit:
    """@pooled's two buffers at offset 0 of one 16-byte pool."""
    func = _by_order(graph, "pooled")
    allocs = _ops(graph, "memref.alloc", func)
    deallocs = _ops(graph, "memref.dealloc", func)
    edit = _core.PoolEdit()
    edit.insert_before = allocs[0]
    edit.dealloc_after = deallocs[1] - 1
    edit.alignment = 64
    edit.steps = np.array([(S.CONSTANT, 0, 0, 0), (S.CONSTANT, 16, 0, 0), (S.POOL, -1, 1, 0)])
    edit.allocs = allocs
    edit.deallocs = deallocs
    edit.offset_step = [0, 0]
    return edit


def _plan(graph: _core.Graph, name: str) -> _core.DeallocationPlan:
    func = _by_order(graph, name)
    return next(p for p in _core.plan_deallocation(graph) if p.function == func)


def test_one_function_s_plan_is_applied_once():
    module = parse_source(PROGRAM)
    graph = extract_graph(module)
    plan = _plan(graph, "owned")
    _core.apply_deallocation_plan(graph, plan)
    text = str(module)
    assert text.count("memref.dealloc") == 3  # @pooled's two, @owned's new one
    with pytest.raises(ValueError, match="the graph is stale"):
        _core.apply_deallocation_plan(graph, plan)
    with pytest.raises(ValueError, match="the graph is stale"):
        _core.check_deallocation_plan(graph, plan)
    assert str(module) == text


def test_plans_of_other_functions_follow_each_other():
    module = parse_source(PROGRAM)
    graph = extract_graph(module)
    owned, other = _plan(graph, "owned"), _plan(graph, "other")
    _core.apply_deallocation_plan(graph, owned)
    _core.apply_deallocation_plan(graph, other)
    assert str(module).count("memref.dealloc") == 4
    assert module.verify()


def test_planning_needs_a_graph_no_edit_went_through():
    module = parse_source(PROGRAM)
    graph = extract_graph(module)
    _core.apply_deallocation_plan(graph, _plan(graph, "owned"))
    with pytest.raises(ValueError, match="the graph is stale"):
        _core.plan_deallocation(graph)


def test_pool_edits_follow_each_other_but_no_plan_follows_them():
    module = parse_source(PROGRAM)
    graph = extract_graph(module)
    plan = _plan(graph, "owned")
    _core.apply_pool_edit(graph, _pool_edit(graph))
    text = str(module)
    assert text.count("memref.view") == 2
    with pytest.raises(ValueError, match="the graph is stale"):
        _core.apply_deallocation_plan(graph, plan)
    edit = _core.TransientEdit()
    edit.alignment = 16
    with pytest.raises(ValueError, match="the graph is stale"):
        _core.apply_transient_edit(graph, edit)
    assert str(module) == text


def test_no_pool_edit_follows_a_plan():
    module = parse_source(PROGRAM)
    graph = extract_graph(module)
    edit = _pool_edit(graph)
    _core.apply_deallocation_plan(graph, _plan(graph, "owned"))
    text = str(module)
    with pytest.raises(ValueError, match="the graph is stale"):
        _core.apply_pool_edit(graph, edit)
    assert str(module) == text
    # A graph extracted again takes it.
    fresh = extract_graph(module)
    _core.apply_pool_edit(fresh, _pool_edit(fresh))
    assert str(module).count("memref.view") == 2


def test_a_transient_edit_is_the_graph_s_last():
    module = parse_source(PROGRAM)
    graph = extract_graph(module)
    edit = _core.TransientEdit()
    edit.alignment = 16
    _core.apply_transient_edit(graph, edit)  # changes nothing, but may
    text = str(module)
    with pytest.raises(ValueError, match="the graph is stale"):
        _core.apply_transient_edit(graph, edit)
    with pytest.raises(ValueError, match="the graph is stale"):
        _core.apply_pool_edit(graph, _pool_edit(graph))
    assert str(module) == text
