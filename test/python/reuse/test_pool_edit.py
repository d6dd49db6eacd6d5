"""``memplan._core.apply_pool_edit``: a pool's edit given as data is applied
in one call (include/memplan/Reuse/PoolEdit.h), and a malformed edit is
an error that leaves the IR as it was."""

from __future__ import annotations

import re

import numpy as np
import pytest

from memplan import _core
from memplan.ir import parse_source
from memplan.ir.graph import extract_graph

S = _core.EditStep

# Two buffers, one with a dynamic size: %a (16 bytes) dies before %b is
# allocated.
PROGRAM = """
func.func @f(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4xf32>
  memref.store %x, %a[%c0] : memref<4xf32>
  %y = memref.load %a[%c0] : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  %b = memref.alloc(%n) : memref<?xf32>
  memref.store %y, %b[%c0] : memref<?xf32>
  %z = memref.load %b[%c0] : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  return %z : f32
}
"""


def _ops(graph: _core.Graph, name: str) -> list[int]:
    want = graph.name_id(name)
    return [i for i in range(len(graph.op_name)) if graph.op_name[i] == want]


def _i32(values: list) -> np.ndarray:
    return np.array(values, dtype=np.int32)


def _edit(
    graph: _core.Graph, program: list[tuple[int, int, int, int]], **changes
) -> _core.PoolEdit:
    """Both buffers at offset 0 of one pool of n * 4 bytes (a dynamic pool)."""
    allocs, deallocs = _ops(graph, "memref.alloc"), _ops(graph, "memref.dealloc")
    args = dict(
        insert_before=allocs[0],
        dealloc_after=deallocs[1] - 1,  # the last load
        alignment=64,
        hoist=_i32([]),
        size_operands=_i32([]).reshape(-1, 3),
        steps=_arr(program),
        allocs=_i32(allocs),
        deallocs=_i32(deallocs),
        offset_step=_i32([0, 0]),
        erase=_i32([]),
    )
    args.update(changes)
    edit = _core.PoolEdit()
    for field, value in args.items():
        setattr(edit, field, value)
    return edit


def _steps(graph: _core.Graph) -> list[tuple[int, int, int, int]]:
    b = _ops(graph, "memref.alloc")[1]
    n = int(graph.operands[graph.operand_begin[b]])  # %n, %b's size
    return [
        (S.CONSTANT, 0, 0, 0),  # 0: offset 0
        (S.VALUE, n, 0, 0),  # 1: %n
        (S.CONSTANT, 4, 0, 0),  # 2
        (S.MULI, 1, 2, 0),  # 3: n * 4 bytes
        (S.CONSTANT, 16, 0, 0),  # 4
        (S.MAXUI, 3, 4, 0),  # 5: at least %a's 16 bytes
        (S.POOL, -1, 5, 0),  # 6
    ]


def test_pool_edit_applies_in_one_call():
    module = parse_source(PROGRAM)
    graph = extract_graph(module)
    _core.apply_pool_edit(graph, _edit(graph, _steps(graph)))
    text = str(module)
    assert module.operation.verify()
    # The steps in order before the first member, one pool, one free.
    body = [line.strip() for line in text.splitlines()]
    first = next(i for i, line in enumerate(body) if "arith.constant 4 :" in line)
    assert "arith.muli" in body[first + 1] and "arith.constant 16" in body[first + 2]
    assert "arith.maxui" in body[first + 3]
    assert "memref.alloc(%" in body[first + 4] and "{alignment = 64 : i64}" in body[first + 4]
    assert text.count("memref.alloc") == 1
    assert text.count("memref.dealloc") == 1
    assert text.count("memref.view") == 2
    # %b's view keeps its dynamic size.
    assert "memref<?xi8> to memref<?xf32>" in text
    dealloc = next(i for i, line in enumerate(body) if "memref.dealloc" in line)
    assert body[dealloc + 1].startswith("return")


def test_pool_edit_select_takes_its_first_value_where_the_condition_holds():
    # The pool's bytes as max(n * 4, 16) through a comparison and a select
    # (how several layouts choose the smallest pool): 16 where n * 4 < 16,
    # else n * 4.
    module = parse_source(PROGRAM)
    graph = extract_graph(module)
    steps = _steps(graph)[:5] + [
        (S.CMPULT, 3, 4, 0),  # 5: n * 4 < 16
        (S.SELECT, 5, 4, 3),  # 6: 16 if so, else n * 4
        (S.POOL, -1, 6, 0),  # 7
    ]
    _core.apply_pool_edit(graph, _edit(graph, steps))
    text = str(module)
    assert module.operation.verify()
    name = r"(%[\w#]+)"
    product = re.search(name + r" = arith\.muli ", text).group(1)
    sixteen = re.search(name + r" = arith\.constant 16 : index", text).group(1)
    less = re.search(name + rf" = arith\.cmpi ult, {product}, {sixteen} : index", text).group(1)
    chosen = re.search(name + rf" = arith\.select {less}, {sixteen}, {product} : index", text)
    assert chosen, text
    assert re.search(rf"memref\.alloc\({chosen.group(1)}\)", text), text


def test_pool_edit_static_pool_and_erase():
    # A static pool: the members' deallocs and an extra op in `erase` go.
    static = PROGRAM.replace("(%n) : memref<?xf32>", "() : memref<8xf32>").replace(
        "memref<?xf32>", "memref<8xf32>"
    )
    module = parse_source(static)
    graph = extract_graph(module)
    steps = [(S.CONSTANT, 0, 0, 0), (S.POOL, 32, 0, 0)]
    _core.apply_pool_edit(graph, _edit(graph, steps))
    text = str(module)
    assert module.operation.verify()
    assert "memref.alloc() {alignment = 64 : i64} : memref<32xi8>" in text
    assert text.count("memref.dealloc") == 1 and text.count("memref.view") == 2


@pytest.mark.parametrize(
    "change, error",
    [
        # A step reading a later step.
        (lambda g, s: {"steps": _arr(s[:3] + [(S.MULI, 1, 4, 0)] + s[4:])}, IndexError),
        # An unknown step kind.
        (lambda g, s: {"steps": _arr(s + [(99, 0, 0, 0)])}, IndexError),
        # No pool, or two.
        (lambda g, s: {"steps": _arr(s[:-1])}, ValueError),
        (lambda g, s: {"steps": _arr(s + [s[-1]])}, ValueError),
        # A value id out of range.
        (lambda g, s: {"steps": _arr([(S.VALUE, 10**6, 0, 0)] + s[1:])}, IndexError),
        # An offset step out of range, an op out of range.
        (lambda g, s: {"offset_step": _i32([0, 99])}, IndexError),
        (lambda g, s: {"erase": _i32([10**6])}, IndexError),
        (lambda g, s: {"insert_before": -1}, IndexError),
        # A size operand index past the op's operands.
        (lambda g, s: {"size_operands": _i32([[_ops(g, "memref.alloc")[1], 5, 0]])}, IndexError),
        # Member arrays of different lengths.
        (lambda g, s: {"deallocs": _i32([-1])}, ValueError),
    ],
)
def test_malformed_pool_edit_leaves_the_ir(change, error):
    module = parse_source(PROGRAM)
    before = str(module)
    graph = extract_graph(module)
    steps = _steps(graph)
    with pytest.raises(error):
        _core.apply_pool_edit(graph, _edit(graph, steps, **change(graph, steps)))
    assert str(module) == before


def test_pool_edit_fields_are_typed_and_a_default_edit_is_rejected():
    # The fields are typed C++ members: a value of the wrong type or shape
    # is refused when set. A fresh edit anchors nowhere (insert_before -1):
    # applying it is an error, and the IR is left as it was.
    edit = _core.PoolEdit()
    for field, value in [
        ("alignment", "64"),
        ("allocs", "not ids"),
        ("allocs", [1.5]),
        ("steps", [(S.POOL, 32, 0)]),
        ("size_operands", [1, 2, 3]),
    ]:
        with pytest.raises(TypeError):
            setattr(edit, field, value)
    assert (edit.insert_before, edit.alignment, edit.steps, edit.allocs) == (-1, 0, (), ())
    module = parse_source(PROGRAM)
    before = str(module)
    with pytest.raises(IndexError, match="pool edit anchor out of range"):
        _core.apply_pool_edit(extract_graph(module), _core.PoolEdit())
    assert str(module) == before


def test_pool_edit_list_fields_read_back_as_tuples_that_cannot_change():
    # A list field reads back what was assigned (a list, tuples or an array)
    # as tuples: appending to what it returns, or setting an item, raises
    # instead of changing a copy the edit never sees.
    edit = _core.PoolEdit()
    edit.allocs = [3, 5]
    edit.offset_step = _i32([0, 1])
    edit.steps = [(S.CONSTANT, 0, 0, 0), (S.POOL, -1, 0, 0)]
    edit.size_operands = _i32([3, 0, 7]).reshape(-1, 3)
    assert edit.allocs == (3, 5)
    assert edit.offset_step == (0, 1)
    assert edit.steps == ((S.CONSTANT, 0, 0, 0), (S.POOL, -1, 0, 0))
    assert edit.size_operands == ((3, 0, 7),)
    with pytest.raises(AttributeError):
        edit.allocs.append(1)
    with pytest.raises(AttributeError):
        edit.erase.extend([1])
    with pytest.raises(TypeError):
        edit.steps[1][1] = 64
    with pytest.raises(TypeError):
        edit.size_operands[0] = (3, 0, 8)
    assert (edit.allocs, edit.erase, edit.steps[1]) == ((3, 5), (), (S.POOL, -1, 0, 0))


def _arr(steps: list) -> np.ndarray:
    return np.array(steps, dtype=np.int64).reshape(-1, 4)


def test_pool_steps_come_from_one_table():
    # The enum is made from EditSteps.def: every kind the rewrite uses.
    names = {name for name in dir(S) if name.isupper()}
    assert {
        "CONSTANT",
        "VALUE",
        "ADDI",
        "MULI",
        "DIVUI",
        "MAXUI",
        "CMPULT",
        "SELECT",
        "POOL",
    } <= names
