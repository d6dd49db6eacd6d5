"""One way to name arguments in every tool: ``--dim``, ``--value`` and
``--input`` take the function's own argument numbers, as ``N``, ``argN`` or
``%argN``; every value that does not fit is a one-line error naming it."""

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memplan.cli import arguments

BIN = os.path.dirname(sys.executable)
MEMPLAN = os.path.join(BIN, "memplan")
CHECK = os.path.join(BIN, "memplan-check")
LIT = Path(__file__).parents[2] / "lit" / "transients"

#: The storage argument first: the function's own numbers count it (the
#: size query, which has no storage argument, numbers the others from 0).
STORAGE_FIRST = """
func.func @f(%storage: memref<?xi8> {memplan.transients}, %x: memref<?x?xf32>, %k: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %q = arith.divui %m, %k : index
  %t = memref.alloc(%n, %q) : memref<?x?xf32>
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%t : memref<?x?xf32>)
  memref.dealloc %t : memref<?x?xf32>
  return
}
"""


def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300)


def error(proc: subprocess.CompletedProcess, *needles: str) -> str:
    """Exit 1, no traceback, one error line holding every needle."""
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    for needle in needles:
        assert needle in line, proc.stderr
    return line


@pytest.mark.parametrize("text, number", [("0", 0), ("arg3", 3), ("%arg12", 12), (" %arg1 ", 1)])
def test_argument_names(text, number):
    assert arguments.argument_number(text) == number


@pytest.mark.parametrize("text", ["", "x", "%x1", "arg", "-1", "arg-2", "1.5", "\u0661"])
def test_bad_argument_names(text):
    with pytest.raises(ValueError):
        arguments.argument_number(text)


def test_parse_dim_and_value():
    assert arguments.parse_dim("%arg1:0=5") == ((1, 0), 5)
    assert arguments.parse_dim("arg2=7") == (2, 7)
    assert arguments.parse_dim("*=3") == ("*", 3)
    assert arguments.parse_value("%arg2=0x10") == (2, 16)
    assert arguments.parse_value("arg0=-1.5") == (0, -1.5)
    assert arguments.parse_input("arg0=x.npy") == (0, "x.npy")
    for bad, needle in (
        ("0:0=-1", "negative"),
        ("0=9223372036854775808", "does not fit a 64-bit index"),
        ("0=x", "expected"),
        ("q:0=1", "expected"),
        ("0", "expected"),
    ):
        with pytest.raises(argparse.ArgumentTypeError, match=needle):
            arguments.parse_dim(bad)


def test_transients_takes_the_functions_own_numbers(tmp_path):
    path = tmp_path / "f.mlir"
    path.write_text(STORAGE_FIRST)
    # %x is %arg1 and %k is %arg2 (the storage is %arg0): 4 * 100 * (64 / 4).
    for dims in (
        ["--dim", "1:0=100", "--dim", "1:1=64", "--value", "2=4"],
        ["--dim", "%arg1:0=100", "--dim", "arg1:1=64", "--value", "%arg2=4"],
    ):
        p = run(MEMPLAN, "transients", path, "--func", "f", *dims)
        assert p.returncode == 0, p.stderr
        assert p.stdout == "@f: 6400 bytes of transient storage (for the given shapes)\n"
    error(
        run(MEMPLAN, "transients", path, "--func", "f", "--dim", "0:0=100"),
        "--dim 0:0=100: %arg0 is the transient storage",
    )
    error(
        run(MEMPLAN, "transients", path, "--func", "f", "--dim", "1=100"),
        "argument #2 (index) is a scalar: give --value 2=N",
    )


@pytest.mark.parametrize(
    "option, needle",
    [
        (["--dim", "5:0=3"], "--dim 5:0=3: no argument %arg5: @f has 4 arguments (%arg0 to %arg3)"),
        (["--value", "4=3"], "--value 4=3: no argument %arg4"),
        (["--dim", "1:2=3"], "--dim 1:2=3: %arg1 (memref<?x?xf32>) has no dimension 2 (rank 2)"),
        (["--dim", "3:1=3"], "--dim 3:1=3: %arg3 (memref<?xf32>) has no dimension 1 (rank 1)"),
        (["--dim", "2:0=3"], "--dim 2:0=3: %arg2 is index, not a shaped value"),
        (
            ["--value", "1=3"],
            "--value 1=3: %arg1 is memref<?x?xf32>: --value gives scalar arguments",
        ),
        (["--value", "2=1.5"], "--value 2=1.5: %arg2 is index: give an integer"),
        (["--value", "2=9223372036854775808"], "9223372036854775808 does not fit %arg2 (index"),
        (["--dim", "1:0=-4"], "invalid --dim '1:0=-4': size -4 is negative"),
        (
            ["--dim", "1:0=99999999999999999999999"],
            "size 99999999999999999999999 does not fit a 64-bit index",
        ),
        (["--dim", "arg:0=1"], "invalid --dim 'arg:0=1'"),
    ],
)
def test_transients_bad_values_name_the_value(tmp_path, option, needle):
    path = tmp_path / "f.mlir"
    path.write_text(STORAGE_FIRST)
    error(
        run(MEMPLAN, "transients", path, "--func", "f", "--dim", "1=64", "--value", "2=4", *option),
        needle,
    )


@pytest.mark.parametrize(
    "size, needle",
    [
        # 4 * 2^62 wraps to 0 in 64-bit index arithmetic: the function itself
        # would ask for 0 bytes.
        (1 << 62, "arith.muli overflows"),
        ((1 << 61) - 1, "arith.addi overflows"),  # 4 * size fits, + 63 (align up) does not
    ],
)
def test_transients_size_that_wraps_is_an_error(size, needle):
    line = error(
        run(MEMPLAN, "transients", LIT / "cli.mlir", "--func", "scale", "--dim", f"0:0={size}"),
        "the size of @scale does not fit a 64-bit index",
        needle,
    )
    assert "cli.mlir:" in line  # located at the op of the input


def test_transients_largest_size_that_fits():
    size = (1 << 61) - 17  # 4 * size + 63 < 2^63
    p = run(MEMPLAN, "transients", LIT / "cli.mlir", "--func", "scale", "--dim", f"0:0={size}")
    assert p.returncode == 0, p.stderr
    assert (
        p.stdout
        == f"@scale: {(4 * size + 63) // 64 * 64} bytes of transient storage (for the given shapes)\n"
    )


def test_check_takes_argument_names(tmp_path):
    text = """
    func.func @main(%x: memref<?xf32>, %s: f32) -> f32 {
      %c1 = arith.constant 1 : index
      %v = memref.load %x[%c1] : memref<?xf32>
      %p = arith.mulf %v, %s : f32
      return %p : f32
    }"""
    path = tmp_path / "s.mlir"
    path.write_text(text)
    x = tmp_path / "x.npy"
    np.save(x, np.array([0, 2, 4], np.float32))
    p = run(CHECK, path, path, "--entry", "main", "--input", f"arg0={x}", "--value", "%arg1=1.5")
    assert p.returncode == 0 and p.stdout.startswith("OK"), p.stdout + p.stderr
    error(
        run(CHECK, path, path, "--entry", "main", "--input", f"%arg2={x}"),
        f"--input 2={x}: no argument %arg2: @main has 2 arguments (%arg0 to %arg1)",
    )
    error(
        run(CHECK, path, path, "--entry", "main", "--input", f"1={x}"),
        "%arg1 is f32: --input gives the contents of tensors and memrefs",
    )
    error(
        run(CHECK, path, path, "--entry", "main", "--dim", "0:1=4"),
        "--dim 0:1=4: %arg0 (memref<?xf32>) has no dimension 1 (rank 1)",
    )
    error(run(CHECK, path, path, "--entry", "main", "--dim", "0=-4"), "size -4 is negative")
