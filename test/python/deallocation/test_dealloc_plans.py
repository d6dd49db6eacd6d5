"""memplan-buffer-deallocation's plans as data (memplan.deallocation.plan,
apply and prepare; memplan._core.DeallocationPlan): what a plan says read
from Python, plan then apply giving the pass's output on the lit inputs,
proven by the deallocation checker and run bit for bit, and malformed plans
refused with the IR as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlir import ir
from test_dealloc_pipeline import FLAGGED

import memplan
from memplan import _core
from memplan import deallocation as D
from memplan.ir import extract_graph, parse_source
from memplan.numerics import compare_paths

LIT = Path(__file__).resolve().parents[2] / "lit" / "deallocation"
#: The pass with its defaults spelled out: nothing is dropped or copied
#: before it plans.
PASS = (
    "builtin.module(memplan-buffer-deallocation"
    "{drop-dead-values=false copy-where-loops-run=false})"
)
PASS_ALL = (
    "builtin.module(memplan-buffer-deallocation"
    "{drop-dead-values=true copy-where-loops-run=true})"
)

# Two merges whose incoming edges disagree (an scf.if yielding a new buffer
# or the argument, a block reached with a new buffer or the scf.if's value):
# each is DYNAMIC and flagged, and the returned one is copied only where its
# flag is not set.
BRANCHES = FLAGGED["branches"][0]  # test_dealloc_pipeline.py's, run there too

# A select of two owned buffers: the one it did not select is freed right
# after it (where the aligned pointers differ), the select after its load.
OWNED_SELECT = """
func.func @main(%c: i1, %x: memref<8xf32>, %i: index) -> f32 {
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  linalg.add ins(%x, %x : memref<8xf32>, memref<8xf32>) outs(%a : memref<8xf32>)
  linalg.mul ins(%x, %x : memref<8xf32>, memref<8xf32>) outs(%b : memref<8xf32>)
  %s = arith.select %c, %a, %b : memref<8xf32>
  %v = memref.load %s[%i] : memref<8xf32>
  return %v : f32
}
"""

# A buffer used on one edge of a branch only: freed on the other edge.
ONE_EDGE = """
func.func @main(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  linalg.add ins(%x, %x : memref<8xf32>, memref<8xf32>) outs(%a : memref<8xf32>)
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  cf.br ^bb2
^bb2:
  return
}
"""

# A returned select that may be the owned buffer freed at the return: the
# return hands it over as is where it is that buffer, and copies it and
# frees the buffer where it is not.
SELECT_RETURNED = """
func.func @main(%c: i1, %x: memref<8xf32>, %i: index) -> (memref<8xf32>, f32) {
  %a = memref.alloc() : memref<8xf32>
  linalg.add ins(%x, %x : memref<8xf32>, memref<8xf32>) outs(%a : memref<8xf32>)
  %s = arith.select %c, %x, %a : memref<8xf32>
  %v = memref.load %a[%i] : memref<8xf32>
  return %s, %v : memref<8xf32>, f32
}
"""


def describe(graph, value: int) -> str:
    """A value as the test names it: its op's name, or `argN@bbB` (block B of
    its region)."""
    op = graph.value_op[value]
    if op >= 0:
        return graph.names[graph.op_name[op]]
    block = graph.value_block[value]
    region = graph.block_region[block]
    blocks = list(graph.region_blocks[graph.region_block_begin[region] :])
    return f"arg{graph.value_index[value]}@bb{blocks.index(block)}"


def op_name(graph, op: int) -> str:
    return graph.names[graph.op_name[op]]


def only_plan(module) -> D.DeallocationPlan:
    (p,) = D.plan(module)
    return p


def test_branch_merges_are_dynamic_and_the_return_copy_conditional():
    with ir.Context():
        module = parse_source(BRANCHES, "branches.mlir")
        before = str(module)
        graph = extract_graph(module)
        p = only_plan(module)
        assert str(module) == before  # planning changes nothing
        assert p.left == "" and op_name(graph, p.function) == "func.func"
        owned = sorted((describe(graph, v), own.name) for v, own in zip(p.handles, p.ownership))
        # %x, %out: the caller's; %a, %b: allocated here; %r (the scf.if)
        # and %z (^bb3's argument): where the edges disagree.
        assert owned == [
            ("arg0@bb3", "DYNAMIC"),
            ("arg2@bb0", "NO"),
            ("arg3@bb0", "NO"),
            ("memref.alloc", "YES"),
            ("memref.alloc", "YES"),
            ("scf.if", "DYNAMIC"),
        ]
        dynamic = {v for v, own in zip(p.handles, p.ownership) if own == D.Ownership.DYNAMIC}
        assert set(p.flagged) == dynamic
        assert sorted(describe(graph, v) for v in p.flagged) == ["arg0@bb3", "scf.if"]
        # The flags handed over: the scf.if's two yields, and the two
        # branches into ^bb3 (^bb1 hands %b's ownership, ^bb2 %r's flag).
        assert sorted(op_name(graph, op) for op, _, _, _ in p.flag_lists) == [
            "cf.br",
            "cf.br",
            "scf.yield",
            "scf.yield",
        ]
        assert all(not entry for _, entry, _, _ in p.flag_lists)
        # One free: %r, where its flag says, after %b is computed from it.
        ((handle, place, at, _, unless_selected, unless_returned),) = p.frees
        assert describe(graph, p.handles[handle]) == "scf.if"
        assert (place, op_name(graph, at), unless_selected, unless_returned) == (
            D.FreePlace.AFTER,
            "linalg.add",
            -1,
            False,
        )
        # The return copies %z only where its flag is not set.
        ((ret, operand, handle, conditional, same_as, take_over),) = p.return_copies
        assert op_name(graph, ret) == "func.return" and operand == 0
        assert describe(graph, p.handles[handle]) == "arg0@bb3"
        assert (conditional, same_as, take_over) == (True, -1, ())
        assert p.select_flags == () and p.return_forwards == () and p.unawaited == ()


def test_owned_select_frees_what_it_did_not_select():
    with ir.Context():
        module = parse_source(OWNED_SELECT, "select.mlir")
        graph = extract_graph(module)
        p = only_plan(module)
        select = next(h for h, v in enumerate(p.handles) if describe(graph, v) == "arith.select")
        kinds = sorted(
            (describe(graph, p.handles[h]), place.name, op_name(graph, at), sel)
            for h, place, at, _, sel, _ in p.frees
        )
        assert kinds == [
            ("arith.select", "AFTER", "memref.load", -1),
            ("memref.alloc", "AFTER", "arith.select", select),
            ("memref.alloc", "AFTER", "arith.select", select),
        ]
        stats = D.apply(module, [p])
        assert (stats["frees"], stats["conditional_frees"]) == (3, 2)


def test_free_on_one_edge_and_handed_over_return():
    with ir.Context():
        module = parse_source(ONE_EDGE, "edge.mlir")
        graph = extract_graph(module)
        p = only_plan(module)
        places = sorted(
            (place.name, op_name(graph, at), succ) for _, place, at, succ, _, _ in p.frees
        )
        assert places == [("AFTER", "memref.copy", 0), ("ON_EDGE", "cf.cond_br", 1)]
        assert D.apply(module, [p])["split_edges"] == 1

        module = parse_source(SELECT_RETURNED, "returned.mlir")
        graph = extract_graph(module)
        p = only_plan(module)
        ((handle, place, at, _, _, unless_returned),) = p.frees
        assert (place, op_name(graph, at), unless_returned) == (
            D.FreePlace.BEFORE,
            "func.return",
            True,
        )
        ((ret, operand, copied, conditional, _, take_over),) = p.return_copies
        assert (at, operand, conditional, take_over) == (ret, 0, False, (handle,))
        assert describe(graph, p.handles[copied]) == "arith.select"
        assert D.apply(module, [p])["handed_over"] == 1


@pytest.mark.parametrize(
    "source, paths",
    [
        (BRANCHES, [{0: c, 1: d} for c in (True, False) for d in (True, False)]),
        (OWNED_SELECT, [{0: True, 2: 3}, {0: False, 2: 5}]),
        (ONE_EDGE, [{0: True}, {0: False}]),
        (SELECT_RETURNED, [{0: True, 2: 1}, {0: False, 2: 1}]),
    ],
)
def test_applied_plans_are_proven_and_run_bit_for_bit(source, paths):
    """Each path of each program, bit for bit with the program before."""
    with ir.Context():
        module = parse_source(source, "prog.mlir")
        D.apply(module, D.plan(module))
        issues = [str(v) for v in D.verify(module)]
        assert issues == [], "\n".join(issues)
        applied = str(module)
    for result in compare_paths(source, applied, "main", paths):
        assert result.ok, result
        # No invalid or double free, nothing left but what is returned.
        assert result.heap_after.clean, result.heap_after


def lit_cases() -> list[tuple[str, int]]:
    """Every split of the deallocation lit inputs the pass plans alone (the
    files of plans stated by attributes, of checker input, and of functions
    left to upstream excluded)."""
    cases = []
    for name in (
        "deallocation.mlir",
        "dead-aliases.mlir",
        "returned-merges.mlir",
        "copy-where-loops-run.mlir",
    ):
        for k, _ in enumerate((LIT / name).read_text().split("// -----")):
            cases.append((name, k))
    return cases


def lit_split(name: str, k: int) -> str:
    return (LIT / name).read_text().split("// -----")[k]


@pytest.mark.parametrize("name, k", lit_cases())
def test_plan_then_apply_is_the_pass(name, k):
    source = lit_split(name, k)
    with ir.Context():
        expected = parse_source(source, name)
        memplan.run_pipeline(expected, PASS)
        module = parse_source(source, name)
        prepared = parse_source(source, name)
        D.prepare(prepared)
        plans = D.plan(module)
        assert not any(p.left for p in plans)
        if str(prepared) == str(module):
            # Nothing to drop or forward first: the plan of the input is
            # the pass's.
            assert not any(p.return_forwards for p in plans)
            D.apply(module, plans)
            assert str(module) == str(expected)
        else:
            # The pass changes the input before it plans: so does prepare.
            D.apply(prepared, D.plan(prepared))
            assert str(prepared) == str(expected)
            module = prepared
        issues = [str(v) for v in D.verify(module)]
        assert issues == [], "\n".join(issues)


@pytest.mark.parametrize("name, k", lit_cases())
def test_prepare_with_options_then_apply_is_the_pass(name, k):
    source = lit_split(name, k)
    with ir.Context():
        expected = parse_source(source, name)
        memplan.run_pipeline(expected, PASS_ALL)
        module = parse_source(source, name)
        D.prepare(module, drop_dead_values=True, copy_where_loops_run=True)
        D.apply(module, D.plan(module))
        assert str(module) == str(expected)


def test_lit_inputs_cover_every_part_of_a_plan():
    """The lit splits above state every kind of free, flag and copy."""
    seen = set()
    for name, k in lit_cases():
        with ir.Context():
            module = parse_source(lit_split(name, k), name)
            D.prepare(module)
            for p in D.plan(module):
                seen |= {f[1] for f in p.frees}
                seen |= {"unless_selected" for f in p.frees if f[4] >= 0}
                seen |= {"unless_returned" for f in p.frees if f[5]}
                seen |= {"select_flags"} if p.select_flags else set()
                seen |= {"entry" for f in p.flag_lists if f[1]}
                seen |= {"successor" for f in p.flag_lists if f[2] >= 0}
                seen |= {"conditional" for c in p.return_copies if c[3]}
                seen |= {"same_as" for c in p.return_copies if c[4] >= 0}
                seen |= {"take_over" for c in p.return_copies if c[5]}
    assert seen == set(D.FreePlace.__members__.values()) | {
        "unless_selected",
        "unless_returned",
        "select_flags",
        "entry",
        "successor",
        "conditional",
        "same_as",
        "take_over",
    }


# --- malformed plans ---------------------------------------------------

# BRANCHES and a second function, whose ops are not the first's.
TWO_FUNCTIONS = (
    BRANCHES
    + """
func.func @other(%x: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %v = memref.load %a[%c0] : memref<8xf32>
  return %v : f32
}
"""
)


def first(graph, name: str, start: int = 0) -> int:
    """The first op named `name` from op `start` on."""
    return next(i for i in range(start, graph.num_ops) if op_name(graph, i) == name)


def handle_of(p, graph, kind: str) -> int:
    return next(h for h, v in enumerate(p.handles) if describe(graph, v) == kind)


def with_entry(entries: tuple, k: int, field: int, value) -> tuple:
    """`entries` with field `field` of entry `k` replaced."""
    entry = list(entries[k])
    entry[field] = value
    return entries[:k] + (tuple(entry),) + entries[k + 1 :]


# Each: (what is wrong, the edit of the plan (plan, graph) -> None, error).
BAD = {
    "function out of range": (lambda p, g: setattr(p, "function", g.num_ops), IndexError),
    "function not a function": (
        lambda p, g: setattr(p, "function", first(g, "scf.if")),
        TypeError,
    ),
    "left to upstream": (lambda p, g: setattr(p, "left", "a reason"), ValueError),
    "left_at out of range": (lambda p, g: setattr(p, "left_at", g.num_ops), IndexError),
    "return forwards": (
        lambda p, g: setattr(p, "return_forwards", [(first(g, "func.return"), 0, 2)]),
        ValueError,
    ),
    "ownership length": (
        lambda p, g: setattr(p, "ownership", p.ownership[:-1]),
        ValueError,
    ),
    "handle value out of range": (
        lambda p, g: setattr(p, "handles", p.handles[:-1] + (g.num_values,)),
        IndexError,
    ),
    "handle not a memref": (
        lambda p, g: setattr(p, "handles", (0,) + p.handles[1:]),  # %c: i1
        TypeError,
    ),
    "handle twice": (
        lambda p, g: setattr(p, "handles", p.handles[:-1] + (p.handles[0],)),
        ValueError,
    ),
    "handle of another function": (
        lambda p, g: setattr(
            p, "handles", p.handles[:-1] + (g.result_begin[first(g, "memref.alloc", 20)],)
        ),
        ValueError,
    ),
    "flagged twice": (
        lambda p, g: setattr(p, "flagged", p.flagged + p.flagged[:1]),
        ValueError,
    ),
    "flagged entry argument": (
        lambda p, g: setattr(p, "flagged", p.flagged + (2,)),  # %x
        TypeError,
    ),
    "dynamic handle without a flag": (lambda p, g: setattr(p, "flagged", []), ValueError),
    "flag list op out of range": (
        lambda p, g: setattr(p, "flag_lists", with_entry(p.flag_lists, 0, 0, g.num_ops)),
        IndexError,
    ),
    "flag list on an op of the wrong interface": (
        lambda p, g: setattr(
            p, "flag_lists", with_entry(p.flag_lists, 0, 0, first(g, "memref.copy"))
        ),
        TypeError,
    ),
    "flag list of another function": (
        lambda p, g: setattr(
            p, "flag_lists", with_entry(p.flag_lists, 0, 0, first(g, "func.return", 20))
        ),
        ValueError,
    ),
    "flag list of the wrong length": (
        lambda p, g: setattr(
            p,
            "flag_lists",
            with_entry(p.flag_lists, 0, 3, p.flag_lists[0][3] + ((-1, D.Ownership.NO),)),
        ),
        ValueError,
    ),
    "flag handle out of range": (
        lambda p, g: setattr(
            p, "flag_lists", with_entry(p.flag_lists, 0, 3, ((len(p.handles), D.Ownership.YES),))
        ),
        IndexError,
    ),
    "flag of a handle that has none": (
        lambda p, g: setattr(
            p,
            "flag_lists",
            with_entry(p.flag_lists, 0, 3, ((handle_of(p, g, "arg2@bb0"), D.Ownership.DYNAMIC),)),
        ),
        ValueError,
    ),
    "select flag out of range": (
        lambda p, g: setattr(p, "select_flags", [(len(p.handles), (0,))]),
        IndexError,
    ),
    "select flag taking nothing": (
        lambda p, g: setattr(p, "select_flags", [(0, ())]),
        ValueError,
    ),
    "free of no handle": (
        lambda p, g: setattr(p, "frees", with_entry(p.frees, 0, 0, len(p.handles))),
        IndexError,
    ),
    "free after an op out of range": (
        lambda p, g: setattr(p, "frees", with_entry(p.frees, 0, 2, g.num_ops)),
        IndexError,
    ),
    "free in another function": (
        lambda p, g: setattr(p, "frees", with_entry(p.frees, 0, 2, first(g, "memref.copy", 20))),
        ValueError,
    ),
    "free after a terminator": (
        lambda p, g: setattr(p, "frees", with_entry(p.frees, 0, 2, first(g, "cf.cond_br"))),
        ValueError,
    ),
    "free at the start of no block": (
        lambda p, g: setattr(
            p, "frees", with_entry(with_entry(p.frees, 0, 1, D.FreePlace.AT_START), 0, 2, -1)
        ),
        IndexError,
    ),
    "free on an edge of no branch": (
        lambda p, g: setattr(p, "frees", with_entry(p.frees, 0, 1, D.FreePlace.ON_EDGE)),
        TypeError,
    ),
    "free on no successor": (
        lambda p, g: setattr(
            p,
            "frees",
            with_entry(
                with_entry(
                    with_entry(p.frees, 0, 1, D.FreePlace.ON_EDGE), 0, 2, first(g, "cf.cond_br")
                ),
                0,
                3,
                2,
            ),
        ),
        TypeError,
    ),
    "free unless selected by no handle": (
        lambda p, g: setattr(p, "frees", with_entry(p.frees, 0, 4, len(p.handles))),
        IndexError,
    ),
    "free unless returned after an op": (
        lambda p, g: setattr(p, "frees", with_entry(p.frees, 0, 5, True)),
        ValueError,
    ),
    "free unless returned before no return": (
        lambda p, g: setattr(
            p, "frees", with_entry(with_entry(p.frees, 0, 1, D.FreePlace.BEFORE), 0, 5, True)
        ),
        ValueError,
    ),
    "copy at no return": (
        lambda p, g: setattr(
            p, "return_copies", with_entry(p.return_copies, 0, 0, first(g, "memref.copy"))
        ),
        TypeError,
    ),
    "copy of no memref operand": (
        lambda p, g: setattr(p, "return_copies", with_entry(p.return_copies, 0, 1, 1)),
        TypeError,
    ),
    "copy same as no memref operand": (
        lambda p, g: setattr(p, "return_copies", with_entry(p.return_copies, 0, 4, 3)),
        TypeError,
    ),
    "conditional copy of a static handle": (
        lambda p, g: setattr(
            p, "return_copies", with_entry(p.return_copies, 0, 2, handle_of(p, g, "arg2@bb0"))
        ),
        ValueError,
    ),
    "copy taking over no handle": (
        lambda p, g: setattr(
            p, "return_copies", with_entry(p.return_copies, 0, 5, (len(p.handles),))
        ),
        IndexError,
    ),
    "unawaited out of range": (
        lambda p, g: setattr(p, "unawaited", [(len(p.handles), first(g, "memref.copy"))]),
        IndexError,
    ),
}


@pytest.mark.parametrize("defect", sorted(BAD))
def test_malformed_plan_raises_and_changes_nothing(defect):
    edit, error = BAD[defect]
    with ir.Context():
        module = parse_source(TWO_FUNCTIONS, "two.mlir")
        before = str(module)
        graph = extract_graph(module)
        plans = D.plan(module)
        bad = plans[0]
        assert not bad.left and bad.flag_lists and bad.frees and bad.return_copies
        edit(bad, graph)
        with pytest.raises(error, match="deallocation plan: "):
            _core.check_deallocation_plan(graph, bad)
        with pytest.raises(error):
            _core.apply_deallocation_plan(graph, bad)
        assert str(module) == before
        if bad.left:
            # memplan.deallocation.apply skips the plans of functions left
            # to upstream.
            assert D.apply(module, [bad])["frees"] == 0
        else:
            # The good plan of the other function is checked, not applied,
            # before the bad one is found.
            with pytest.raises(error):
                D.apply(module, [plans[1], bad])
        assert str(module) == before


def test_fields_read_as_tuples_and_are_set_whole():
    with ir.Context():
        module = parse_source(BRANCHES, "branches.mlir")
        p = only_plan(module)
        for field in (
            "handles",
            "ownership",
            "flagged",
            "flag_lists",
            "select_flags",
            "frees",
            "return_copies",
            "return_forwards",
            "unawaited",
        ):
            value = getattr(p, field)
            assert isinstance(value, tuple), field
            assert all(isinstance(e, (tuple, int, D.Ownership)) for e in value), field
        assert isinstance(p.flag_lists[0][3], tuple) and isinstance(p.flag_lists[0][3][0], tuple)
        assert isinstance(p.return_copies[0][5], tuple)
        assert all(isinstance(own, D.Ownership) for own in p.ownership)
        with pytest.raises(AttributeError):
            p.handles.append(0)
        with pytest.raises(TypeError):
            p.frees[0] = p.frees[0]
        with pytest.raises(TypeError):
            p.flag_lists[0][3][0] = (-1, D.Ownership.NO)
        frees = p.frees
        p.frees = [list(f) for f in frees] + [frees[0]]
        assert p.frees == frees + frees[:1]
        p.frees = frees
        # A plan made from nothing, field by field, is the same plan.
        fresh = D.DeallocationPlan()
        for field in (
            "function",
            "handles",
            "ownership",
            "flagged",
            "flag_lists",
            "frees",
            "return_copies",
        ):
            setattr(fresh, field, getattr(p, field))
        expected = parse_source(BRANCHES, "branches.mlir")
        D.apply(expected, [p])
        D.apply(module, [fresh])
        assert str(module) == str(expected)
