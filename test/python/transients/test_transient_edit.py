"""``memplan._core.apply_transient_edit``: a module's transient rewrite given
as data is applied in one call (include/memplan/Transients/TransientEdit.h),
and a malformed edit is an error that leaves the IR as it was."""

from __future__ import annotations

import re

import numpy as np
import pytest

from memplan import _core
from memplan.ir import parse_source
from memplan.ir.graph import extract_graph

S = _core.EditStep
MESSAGE = "storage too small"
MARKER = "test.size"

# @f keeps %a (n floats) in its storage %s; @h passes @g a view of a storage
# argument it gets, sized by a clone of %d's slice.
PROGRAM = """
func.func @f(%n: index, %x: f32, %s: memref<?xi8>) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc(%n) : memref<?xf32>
  memref.store %x, %a[%c0] : memref<?xf32>
  %y = memref.load %a[%c0] : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return %y : f32
}
func.func private @g(%m: index) {
  return
}
func.func @h(%t: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %t, %c0 : memref<?xf32>
  call @g(%d) : (index) -> ()
  return
}
"""


def _ops(graph: _core.Graph, name: str) -> list[int]:
    want = graph.name_id(name)
    return [i for i in range(len(graph.op_name)) if graph.op_name[i] == want]


def _i32(values: list) -> np.ndarray:
    return np.array(values, dtype=np.int32)


def _arr(steps: list) -> np.ndarray:
    return np.array(steps, dtype=np.int64).reshape(-1, 4)


def _edit(graph: _core.Graph, **changes) -> _core.TransientEdit:
    f, g, h = _ops(graph, "func.func")
    alloc, dealloc = _ops(graph, "memref.alloc")[0], _ops(graph, "memref.dealloc")[0]
    n = int(graph.operands[graph.operand_begin[alloc]])
    c0, dim = _ops(graph, "arith.constant")[1], _ops(graph, "memref.dim")[0]
    t = int(graph.operands[graph.operand_begin[dim]])
    (call,) = _ops(graph, "func.call")
    steps = [
        (S.ENTRY_BEGIN, f, 0, 0),  # 0
        (S.ARGUMENT, f, 2, 0),  # 1: %s
        (S.VALUE, n, 0, 0),  # 2: %n
        (S.CONSTANT, 4, 0, 0),  # 3
        (S.MULI, 2, 3, 0),  # 4: n * 4 bytes, marked
        (S.CONSTANT, 0, 0, 0),  # 5
        (S.DIM, 1, 5, 0),  # 6: the storage's bytes
        (S.CMPULE, 4, 6, 0),  # 7
        (S.ASSERT, 7, 0, 0),  # 8
        (S.ENTRY_BEGIN, h, 0, 0),  # 9
        (S.ARGUMENT, h, 1, 0),  # 10: the argument the edit adds
        (S.VALUE, t, 0, 0),  # 11
        (S.CLONE, c0, 0, 0),  # 12: %c0 again
        (S.CLONE, dim, 0, 0),  # 13: %d again, reading steps 11 and 12
        (S.BEFORE, call, 0, 0),  # 14
        (S.VIEW, 10, 12, 13),  # 15: %d bytes at 0
    ]
    args = dict(
        new_arguments=_i32([g, h]),
        storage_marker="",
        steps=_arr(steps),
        clone_operands=np.array([11, 12], dtype=np.int64),
        alignment=64,
        message=MESSAGE,
        names=[],
        marked=np.array([4], dtype=np.int64),
        unmarked=np.array([], dtype=np.int64),
        marker=MARKER,
        allocs=_i32([alloc]),
        deallocs=_i32([dealloc]),
        buffer_step=_i32([1]),
        offset_step=_i32([5]),
        erase=_i32([]),
        calls=_i32([[call, 1, 15]]),
        symbols=_i32([]).reshape(-1, 2),
        symbol_attribute="",
    )
    args.update(changes)
    return _bound(args)


def _bound(fields: dict) -> _core.TransientEdit:
    """The edit with ``fields`` set."""
    edit = _core.TransientEdit()
    for field, value in fields.items():
        setattr(edit, field, value)
    return edit


def _replace(graph: _core.Graph, k: int, step: tuple) -> dict:
    steps = [tuple(s) for s in _edit(graph).steps]
    steps[k] = step
    return {"steps": _arr(steps)}


def test_transient_edit_applies_in_one_call():
    module = parse_source(PROGRAM)
    graph = extract_graph(module)
    _core.apply_transient_edit(graph, _edit(graph))
    text = str(module)
    assert module.operation.verify()
    body = [line.strip() for line in text.splitlines()]
    # @f: the size, marked, checked against the storage, then %a a view of it.
    size = next(i for i, line in enumerate(body) if "arith.muli" in line)
    assert MARKER in body[size]
    assert "memref.dim %arg2" in body[size + 2] and "arith.cmpi ule" in body[size + 3]
    assert f'cf.assert %{body[size + 3].split()[0][1:]}, "{MESSAGE}"' in body[size + 4]
    assert "memref.view %arg2[%c0][%arg0] : memref<?xi8> to memref<?xf32>" in text
    assert "memref.alloc" not in text and "memref.dealloc" not in text
    # @g and @h take storage; @h's call passes a view of its own, sized by
    # the cloned slice.
    assert "func.func private @g(%arg0: index, %arg1: memref<?xi8>)" in text
    assert "func.func @h(%arg0: memref<?xf32>, %arg1: memref<?xi8>)" in text
    view = next(line for line in body if "memref.view %arg1" in line)
    assert view.endswith(": memref<?xi8> to memref<?xi8>")
    assert re.search(r"call @g\(%dim\w*, %view\)", text), text
    assert text.count("memref.dim %arg0") == 2  # the slice and its clone


@pytest.mark.parametrize(
    "change, error",
    [
        # A step reading a later step, an unknown kind.
        (lambda g: _replace(g, 4, (S.MULI, 2, 9, 0)), IndexError),
        (lambda g: _replace(g, 3, (99, 0, 0, 0)), IndexError),
        # An op created before any step positions it.
        (lambda g: _replace(g, 0, (S.CONSTANT, 1, 0, 0)), ValueError),
        # The dimension of an index; a comparison asserted as a size.
        (lambda g: _replace(g, 6, (S.DIM, 5, 5, 0)), ValueError),
        (lambda g: _replace(g, 8, (S.ASSERT, 6, 0, 0)), ValueError),
        # An argument past the function's, one of a function it is not added to.
        (lambda g: _replace(g, 1, (S.ARGUMENT, _ops(g, "func.func")[0], 3, 0)), IndexError),
        (lambda g: {"new_arguments": _i32([_ops(g, "func.func")[1]])}, IndexError),
        # A clone of an op with effects, a result of a step that is no clone.
        (lambda g: _replace(g, 12, (S.CLONE, _ops(g, "memref.store")[0], 0, 0)), IndexError),
        (lambda g: _replace(g, 13, (S.RESULT, 11, 0, 0)), IndexError),
        # Clone operands past their list.
        (lambda g: {"clone_operands": np.array([11], dtype=np.int64)}, IndexError),
        # A member at a memref offset, a member that is no allocation.
        (lambda g: {"offset_step": _i32([1])}, ValueError),
        (lambda g: {"allocs": _i32([_ops(g, "memref.load")[0]])}, ValueError),
        # An op to erase with results.
        (lambda g: {"erase": _i32([_ops(g, "memref.dim")[0]])}, ValueError),
        # Storage for an op that is no call, an argument past the call's.
        (lambda g: {"calls": _i32([[_ops(g, "memref.dim")[0], 1, 15]])}, IndexError),
        (lambda g: {"calls": _i32([[_ops(g, "func.call")[0], 3, 15]])}, IndexError),
        # A storage argument for an op that is no function; a marked step out of range.
        (lambda g: {"new_arguments": _i32([_ops(g, "memref.dim")[0]])}, IndexError),
        (lambda g: {"marked": np.array([99], dtype=np.int64)}, IndexError),
        # Member arrays of different lengths.
        (lambda g: {"buffer_step": _i32([])}, ValueError),
        # A function step without a name, an argument of no function made,
        # an unmarked step out of range.
        (lambda g: _replace(g, 9, (S.FUNCTION, _ops(g, "func.func")[0], 0, -1)), IndexError),
        (lambda g: _replace(g, 10, (S.NEW_ARGUMENT, 0, 0, 0)), IndexError),
        (lambda g: {"unmarked": np.array([99], dtype=np.int64)}, IndexError),
        # A symbol naming no name; symbols without their attribute's name.
        (lambda g: {"symbols": _i32([[_ops(g, "func.func")[0], 0]])}, IndexError),
        (lambda g: {"names": ["q"], "symbols": _i32([[_ops(g, "func.func")[0], 0]])}, ValueError),
    ],
)
def test_malformed_transient_edit_leaves_the_ir(change, error):
    module = parse_source(PROGRAM)
    before = str(module)
    graph = extract_graph(module)
    with pytest.raises(error):
        _core.apply_transient_edit(graph, _edit(graph, **change(graph)))
    assert str(module) == before


def test_transient_edit_fields_are_typed_and_a_default_edit_is_rejected():
    # The fields are typed C++ members: a value of the wrong type or shape
    # is refused when set. A fresh edit has alignment 0, an error; with an
    # alignment and nothing else it changes nothing.
    edit = _core.TransientEdit()
    for field, value in [
        ("message", 3),
        ("names", "f_size"),
        ("new_arguments", ["f"]),
        ("calls", [(1, 2)]),
        ("steps", None),
    ]:
        with pytest.raises(TypeError):
            setattr(edit, field, value)
    module = parse_source(PROGRAM)
    before = str(module)
    graph = extract_graph(module)
    with pytest.raises(ValueError, match="transient edit alignment below 1"):
        _core.apply_transient_edit(graph, _core.TransientEdit())
    assert str(module) == before
    edit.alignment = 64
    _core.apply_transient_edit(graph, edit)
    assert str(module) == before


def test_transient_edit_list_fields_read_back_as_tuples_that_cannot_change():
    # A list field reads back what was assigned (a list, tuples or an array)
    # as tuples: appending to what it returns, or setting an item, raises
    # instead of changing a copy the edit never sees.
    edit = _core.TransientEdit()
    edit.allocs = [3, 5]
    edit.marked = np.array([0, 2], dtype=np.int64)
    edit.names = ["f_size"]
    edit.calls = [(4, 1, 2)]
    assert edit.allocs == (3, 5)
    assert edit.marked == (0, 2)
    assert edit.names == ("f_size",)
    assert edit.calls == ((4, 1, 2),)
    with pytest.raises(AttributeError):
        edit.allocs.append(1)
    with pytest.raises(AttributeError):
        edit.names.append("g_size")
    with pytest.raises(TypeError):
        edit.calls[0][2] = 3
    with pytest.raises(TypeError):
        edit.marked[0] = 1
    assert (edit.allocs, edit.names, edit.calls) == ((3, 5), ("f_size",), ((4, 1, 2),))


# @f's size, n * 4 bytes, marked at its entry: the query takes @f's
# arguments but the storage %s.
QUERY_PROGRAM = """
func.func @f(%n: index, %s: memref<?xi8>, %x: f32) {
  %c4 = arith.constant 4 : index
  %b = arith.muli %n, %c4 {test.size} : index
  return
}
"""


def _query_edit(graph: _core.Graph, **changes) -> _core.TransientEdit:
    (f,) = _ops(graph, "func.func")
    (c4,) = _ops(graph, "arith.constant")
    (muli,) = _ops(graph, "arith.muli")
    steps = [
        (S.FUNCTION, f, 0, 1),  # 0: @f_size(index, f32) -> index after @f
        (S.NEW_ARGUMENT, 0, 0, 0),  # 1: its %n
        (S.CLONE, c4, 0, 0),  # 2
        (S.CLONE, muli, 0, 0),  # 3: reading steps 1 and 2
        (S.RETURN, 3, 0, 0),  # 4
        (S.VALUE, int(graph.result_begin[muli]), 0, 0),  # 5: @f's own size
    ]
    args = dict(
        new_arguments=_i32([]),
        storage_marker="",
        steps=_arr(steps),
        clone_operands=np.array([1, 2], dtype=np.int64),
        alignment=64,
        message=MESSAGE,
        names=["f_size"],
        marked=np.array([], dtype=np.int64),
        unmarked=np.array([3, 5], dtype=np.int64),
        marker=MARKER,
        allocs=_i32([]),
        deallocs=_i32([]),
        buffer_step=_i32([]),
        offset_step=_i32([]),
        erase=_i32([]),
        calls=_i32([]).reshape(-1, 3),
        symbols=_i32([[f, 0]]),
        symbol_attribute="test.query",
    )
    args.update(changes)
    return _bound(args)


def test_transient_edit_makes_a_query_function():
    module = parse_source(QUERY_PROGRAM)
    graph = extract_graph(module)
    _core.apply_transient_edit(graph, _query_edit(graph))
    assert module.operation.verify()
    text = str(module)
    # A public function right after @f, which names it; the size cloned
    # from @f's first argument, unmarked in both.
    assert (
        "func.func @f(%arg0: index, %arg1: memref<?xi8>, %arg2: f32) attributes {test.query = @f_size}"
        in text
    )
    query = text[text.index("func.func @f_size") :]
    assert query.startswith("func.func @f_size(%arg0: index, %arg1: f32) -> index {")
    assert "arith.muli %arg0, %c4" in query and "return %" in query
    assert MARKER not in text


@pytest.mark.parametrize(
    "change, error",
    [
        # A left-out argument past the function's, a name out of range.
        (lambda g: _replace_query(g, {0: (S.FUNCTION, _func(g), 0, 3)}), IndexError),
        (lambda g: _replace_query(g, {0: (S.FUNCTION, _func(g), 1, 1)}), IndexError),
        # An argument past the query's (which does not take %s); an f32
        # returned.
        (lambda g: _replace_query(g, {1: (S.NEW_ARGUMENT, 2, 0, 0)}), IndexError),
        (
            lambda g: _replace_query(g, {1: (S.NEW_ARGUMENT, 1, 0, 0), 4: (S.RETURN, 1, 0, 0)}),
            ValueError,
        ),
    ],
)
def test_malformed_query_edit_leaves_the_ir(change, error):
    module = parse_source(QUERY_PROGRAM)
    before = str(module)
    graph = extract_graph(module)
    with pytest.raises(error):
        _core.apply_transient_edit(graph, _query_edit(graph, **change(graph)))
    assert str(module) == before


def _func(graph: _core.Graph) -> int:
    return _ops(graph, "func.func")[0]


def _replace_query(graph: _core.Graph, changes: dict[int, tuple]) -> dict:
    steps = [tuple(s) for s in _query_edit(graph).steps]
    for k, step in changes.items():
        steps[k] = step
    return {"steps": _arr(steps)}


@pytest.mark.parametrize(
    "program, change, message",
    [
        # The query reads @f's own constant instead of a clone of it: @f's
        # value inside the function the edit makes.
        (
            QUERY_PROGRAM,
            lambda g: _query_edit(
                g,
                **_replace_query(
                    g, {2: (S.VALUE, int(g.result_begin[_ops(g, "arith.constant")[0]]), 0, 0)}
                ),
            ),
            "edit step reading a value of another function",
        ),
        # @h's view made of @f's storage argument.
        (
            PROGRAM,
            lambda g: _edit(g, **_replace(g, 15, (S.VIEW, 1, 12, 13))),
            "edit step reading a value of another function",
        ),
        # @f's member placed at an offset made in @h.
        (
            PROGRAM,
            lambda g: _edit(g, offset_step=_i32([12])),
            "a member's buffer or offset step is in another function",
        ),
        # @h's call handed @f's storage.
        (
            PROGRAM,
            lambda g: _edit(g, calls=_i32([[_ops(g, "func.call")[0], 1, 1]])),
            "a call's storage step is in another function",
        ),
    ],
)
def test_edit_reading_another_functions_value_leaves_the_ir(program, change, message):
    module = parse_source(program)
    before = str(module)
    graph = extract_graph(module)
    with pytest.raises(ValueError, match=re.escape(message)):
        _core.apply_transient_edit(graph, change(graph))
    assert str(module) == before
