"""memplan-check fails on every heap fault and names its ops: an invalid
free (stack memory, an argument), a double free, a
leak, and an access to freed memory (the quarantine of an isolated run)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from memplan.numerics import compare
from memplan.numerics.heap import UseAfterFree

CHECK = os.path.join(os.path.dirname(sys.executable), "memplan-check")

#: The reference: the input copied into a returned buffer.
CLEAN = """
func.func @main(%a: memref<16xf32>) -> memref<16xf32> {
  %r = memref.alloc() : memref<16xf32>
  memref.copy %a, %r : memref<16xf32> to memref<16xf32>
  return %r : memref<16xf32>
}
"""


def program(body: str) -> str:
    """``@main`` with a temporary %m (line 2) copied into the returned %r
    (line 4), then ``body`` (from line 6 on)."""
    return (
        "func.func @main(%a: memref<16xf32>) -> memref<16xf32> {\n"
        "  %m = memref.alloc() : memref<16xf32>\n"
        "  memref.copy %a, %m : memref<16xf32> to memref<16xf32>\n"
        "  %r = memref.alloc() : memref<16xf32>\n"
        "  memref.copy %m, %r : memref<16xf32> to memref<16xf32>\n"
        + body
        + "  return %r : memref<16xf32>\n}\n"
    )


FREED = "  memref.dealloc %m : memref<16xf32>\n"

FAULTS = {
    # The second free of %m.
    "double": (
        program(FREED + FREED),
        "double free: memref.dealloc at <after>:7:3 frees the buffer of memref.alloc at "
        "<after>:2:8, which memref.dealloc at <after>:6:3 freed already",
    ),
    # %m is freed, and a second temporary is not.
    "leak": (
        program(
            FREED + "  %l = memref.alloc() : memref<16xf32>\n"
            "  memref.copy %a, %l : memref<16xf32> to memref<16xf32>\n"
        ),
        "leak: the buffer of memref.alloc at <after>:7:8 (64 B) is neither freed nor returned",
    ),
    # A free of the argument.
    "argument": (
        program(FREED + "  memref.dealloc %a : memref<16xf32>\n"),
        "invalid free: memref.dealloc at <after>:7:3 frees memory the heap did not hand "
        "out (a stack buffer, an argument, a global?)",
    ),
    # A free of stack memory.
    "stack": (
        program(
            FREED + "  %s = memref.alloca() : memref<4xf32>\n"
            "  memref.dealloc %s : memref<4xf32>\n"
        ),
        "invalid free: memref.dealloc at <after>:8:3 frees memory the heap did not hand "
        "out (a stack buffer, an argument, a global?)",
    ),
}


@pytest.mark.parametrize("isolate", [False, True])
@pytest.mark.parametrize("kind", ["double", "leak", "argument", "stack"])
def test_compare_fails_on_a_heap_fault_and_names_its_ops(kind, isolate):
    after, message = FAULTS[kind]
    result = compare(CLEAN, after, "main", isolate=isolate)
    assert result.mismatch is None and not result.uninitialized  # same values
    assert not result.ok
    assert result.heap_before.clean and not result.heap_after.clean
    assert list(result.heap_after.faults) == [message]
    text = str(result)
    assert text.startswith("HEAP FAULT") and f"  after: {message}" in text


def test_the_same_program_without_faults_is_clean():
    result = compare(CLEAN, program(FREED), "main", isolate=True)
    assert result.ok, str(result)
    assert result.heap_after.clean and result.heap_after.frees == 1
    assert result.heap_after.faults == {}


def test_a_fault_repeated_in_a_loop_is_counted_once_per_site():
    # The temporary of each iteration leaks: one line, three times.
    after = """
func.func @main(%a: memref<16xf32>) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = memref.alloc() : memref<16xf32>
  memref.copy %a, %r : memref<16xf32> to memref<16xf32>
  scf.for %i = %c0 to %c3 step %c1 {
    %t = memref.alloc() : memref<16xf32>
    memref.copy %a, %t : memref<16xf32> to memref<16xf32>
  }
  %u = memref.alloc() : memref<2xf32>
  memref.dealloc %u : memref<2xf32>
  return %r : memref<16xf32>
}
"""
    result = compare(CLEAN, after, "main")
    assert not result.ok
    assert result.heap_after.faults == {
        "leak: the buffer of memref.alloc at <after>:9:10 (64 B) is neither freed nor returned": 3
    }
    assert result.heap_after.leaks == 3 and result.heap_after.leaked_bytes == 192
    assert "neither freed nor returned (3 times)" in str(result)


def test_a_program_that_frees_nothing_is_not_checked_for_leaks():
    # Memref IR before deallocation: its blocks are live at the end by design.
    result = compare(CLEAN, program(""), "main")
    assert result.ok, str(result)
    assert result.heap_after.live_at_exit == 128 and result.heap_after.leaks == 0
    assert result.heap_after.unfreed == 1 and result.heap_before.unfreed == 0
    assert "1 never freed (the program frees nothing: not checked for leaks)" in str(result)


@pytest.mark.parametrize(
    "body, phase",
    [
        # The copy reads %m after its free.
        (
            "  memref.dealloc %m : memref<16xf32>\n  memref.copy %m, %r : memref<16xf32> to "
            "memref<16xf32>\n",
            "",
        ),
        # A store into %m after its free.
        (
            "  memref.dealloc %m : memref<16xf32>\n  %c0 = arith.constant 0 : index\n"
            "  %z = arith.constant 0.0 : f32\n  memref.store %z, %m[%c0] : memref<16xf32>\n",
            "",
        ),
    ],
)
def test_an_access_to_freed_memory_is_a_use_after_free(body, phase):
    # The quarantine of an isolated run: the freed block's pages are
    # inaccessible, whatever the access reads or writes.
    with pytest.raises(UseAfterFree) as err:
        compare(CLEAN, program(body), "main", isolate=True)
    assert str(err.value) == (
        "after: @main: use after free: an access to byte 0 of the buffer of memref.alloc at "
        "<after>:2:8, freed by memref.dealloc at <after>:6:3"
    )


def test_a_returned_buffer_that_was_freed_is_a_use_after_free():
    after = """
func.func @main(%a: memref<16xf32>) -> memref<16xf32> {
  %r = memref.alloc() : memref<16xf32>
  memref.copy %a, %r : memref<16xf32> to memref<16xf32>
  memref.dealloc %r : memref<16xf32>
  return %r : memref<16xf32>
}
"""
    with pytest.raises(UseAfterFree, match="while the harness read the returned buffers"):
        compare(CLEAN, after, "main", isolate=True)


def test_a_read_of_freed_memory_whose_value_is_not_used_is_found():
    # The loaded value goes to a stack buffer nobody reads: no output can
    # show it, the quarantine does.
    body = (
        "  memref.dealloc %m : memref<16xf32>\n  %c3 = arith.constant 3 : index\n"
        "  %x = memref.load %m[%c3] : memref<16xf32>\n"
        "  %s = memref.alloca() : memref<1xf32>\n  %c0 = arith.constant 0 : index\n"
        "  memref.store %x, %s[%c0] : memref<1xf32>\n"
    )
    with pytest.raises(UseAfterFree, match=r"byte 12 of the buffer of memref.alloc at <after>:2:8"):
        compare(CLEAN, program(body), "main", isolate=True, opt_level=0)


def run_check(tmp_path, after: str, *extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "before.mlir").write_text(CLEAN)
    (tmp_path / "after.mlir").write_text(after)
    return subprocess.run(
        [CHECK, "before.mlir", "after.mlir", "--entry", "main", *extra],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


@pytest.mark.parametrize("kind", ["double", "leak", "stack"])
def test_memplan_check_exits_1_and_names_the_op(tmp_path, kind):
    after, message = FAULTS[kind]
    run = run_check(tmp_path, after)
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.startswith("HEAP FAULT")
    assert message.replace("<after>", "after.mlir") in run.stdout


def test_memplan_check_exits_1_on_a_use_after_free(tmp_path):
    run = run_check(
        tmp_path, program(FREED + "  memref.copy %m, %r : memref<16xf32> to " "memref<16xf32>\n")
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert (
        "memplan-check: error: after: @main: use after free: an access to byte 0 of the "
        "buffer of memref.alloc at after.mlir:2:8, freed by memref.dealloc at "
        "after.mlir:6:3"
    ) in run.stderr


def test_expect_names_the_result_that_is_not_there(tmp_path):
    # Two unnamed files for one result: the second is result1.
    np.save(tmp_path / "x.npy", np.zeros(16, np.float32))
    np.save(tmp_path / "y.npy", np.zeros(16, np.float32))
    run = run_check(
        tmp_path, program(FREED), "--input", "arg0=x.npy", "--expect", "x.npy", "--expect", "y.npy"
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "expect x.npy: " not in run.stdout.split("result0 = x.npy")[0]
    assert "  expect y.npy: no output result1 (outputs: result0, arg0)" in run.stdout
