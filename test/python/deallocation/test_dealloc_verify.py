"""memplan.deallocation.verify: the checker of deallocated programs, from
Python (the lit cases in test/lit/deallocation/verify.mlir cover each kind
of violation through memplan-verify-deallocation)."""

import pytest
from mlir import ir

import memplan
from memplan.deallocation import KINDS, Violation, verify
from memplan.ir import parse_source
from memplan.ir.parse import location_prefix
from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION

DOUBLE_FREE = """
func.func @f(%c: i1) {
  %a = memref.alloc() : memref<16xf32>
  scf.if %c {
    memref.dealloc %a : memref<16xf32>
  }
  memref.dealloc %a : memref<16xf32>
  return
}
"""


def test_violations_are_located_records(ctx):
    module = parse_source(DOUBLE_FREE, "double.mlir")
    (issue,) = verify(module)
    assert isinstance(issue, Violation) and issue.kind == "double-free" and issue.kind in KINDS
    assert issue.is_error
    assert location_prefix(issue.location) == "double.mlir:7:3"
    notes = dict((location_prefix(loc), text) for loc, text in issue.notes)
    assert "allocated here" in notes["double.mlir:3:8"]
    assert "freed here" in notes["double.mlir:5:5"]
    # The path that frees twice: the scf.if's region.
    assert "on the path through 'scf.if'" in str(issue)
    # The function op alone is checked the same way.
    (func,) = module.regions[0].blocks[0].operations
    assert [v.kind for v in verify(func)] == ["double-free"]


def test_the_other_path_is_clean(ctx):
    # Freed on both paths, once each: nothing to report.
    module = parse_source(
        DOUBLE_FREE.replace(
            "  }\n  memref.dealloc",
            "  } else {\n" "    memref.dealloc %a : memref<16xf32>\n  }\n  //",
        ),
        "once.mlir",
    )
    assert verify(module) == []


def test_the_pass_fails_on_a_violation_and_not_on_a_clean_program(ctx):
    module = parse_source(DOUBLE_FREE, "double.mlir")
    with pytest.raises(ir.MLIRError, match="already freed on this path"):
        memplan.run_pipeline(module, "builtin.module(memplan-verify-deallocation)")
    clean = parse_source(
        """
func.func @g() -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  return %a : memref<4xf32>
}""",
        "clean.mlir",
    )
    (ran,) = memplan.run_pipeline(clean, "builtin.module(memplan-verify-deallocation)")
    assert ran.statistics["violations"][0] == 0 and ran.statistics["unproven"][0] == 0


# Tensor programs whose upstream deallocation (buffer-deallocation-pipeline,
# run-time ownership flags and pointer comparisons included) the checker
# proves: what upstream's pass does in place of memplan's.
UPSTREAM_PROVEN = [
    """
func.func @branches(%c: i1, %x: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.if %c -> tensor<8xf32> {
    %e = tensor.empty() : tensor<8xf32>
    %y = linalg.add ins(%x, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %y : tensor<8xf32>
  } else {
    scf.yield %x : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}""",
    """
func.func private @g(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.add ins(%x, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func @cf(%c: i1, %x: tensor<8xf32>) -> tensor<8xf32> {
  %a = call @g(%x) : (tensor<8xf32>) -> tensor<8xf32>
  cf.cond_br %c, ^bb1(%a : tensor<8xf32>), ^bb2(%x : tensor<8xf32>)
^bb1(%p: tensor<8xf32>):
  %b = call @g(%p) : (tensor<8xf32>) -> tensor<8xf32>
  cf.br ^bb2(%b : tensor<8xf32>)
^bb2(%q: tensor<8xf32>):
  return %q : tensor<8xf32>
}""",
]


@pytest.mark.parametrize("source", UPSTREAM_PROVEN)
def test_upstream_deallocation_is_proven(ctx, source):
    module = parse_source(source, "prog.mlir")
    memplan.run_pipeline(module, f"builtin.module({UPSTREAM_BUFFERIZATION})")
    assert [str(v) for v in verify(module)] == []


# The same at the memref level: a loop whose body allocates (ownership
# carried by an i1 iter_arg), through upstream's pipeline alone.
UPSTREAM_MEMREF_LOOP = """
func.func @loop(%x: memref<8xf32>, %n: index) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %x) -> memref<8xf32> {
    %y = memref.alloc() : memref<8xf32>
    linalg.add ins(%t, %x : memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
    scf.yield %y : memref<8xf32>
  }
  return %r : memref<8xf32>
}"""


def test_upstream_loop_deallocation_is_proven(ctx):
    module = parse_source(UPSTREAM_MEMREF_LOOP, "loop.mlir")
    memplan.run_pipeline(module, "builtin.module(buffer-deallocation-pipeline)")
    assert "scf.for" in str(module) and "i1" in str(module)  # the flag
    assert [str(v) for v in verify(module)] == []


def test_upstream_returning_one_buffer_twice_is_a_violation(ctx):
    # Upstream's deallocation returns an allocation and a view of it; the
    # caller owns (and frees) both.
    module = parse_source(
        """
func.func @shapes(%t: tensor<2x4xf32>, %f: f32, %i: index) -> (tensor<8xf32>, tensor<2x4xf32>) {
  %c = tensor.collapse_shape %t [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %w = tensor.insert %f into %c[%i] : tensor<8xf32>
  %e = tensor.expand_shape %w [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %x = tensor.extract %t[%i, %i] : tensor<2x4xf32>
  return %w, %e : tensor<8xf32>, tensor<2x4xf32>
}""",
        "twice.mlir",
    )
    memplan.run_pipeline(module, f"builtin.module({UPSTREAM_BUFFERIZATION})")
    assert [v.kind for v in verify(module)] == ["bad-return"]
