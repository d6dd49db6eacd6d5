"""Element sizes at LLVM's data-layout size: the model against the
ExecutionEngine, and pools / transient storage of odd-width memrefs checked
bit for bit (i1, i24, i48, f80, complex, vectors)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from mlir import ir

import memplan
from memplan import numerics
from memplan.ir import parse_source
from memplan.lifetimes.sizes import element_layout
from memplan.numerics import oracle
from memplan.numerics import transient_runs as runtime
from memplan.reuse.check import check_module

# Types whose size every LLVM layout agrees on, and integers above 64 bits,
# where layouts differ (LLVM's default aligns them to 4, x86-64 to 16): there
# the model takes the larger size.
EXACT = [
    "i1",
    "i7",
    "i8",
    "i24",
    "i48",
    "i64",
    "f16",
    "bf16",
    "f32",
    "f64",
    "f80",
    "f128",
    "index",
    "f8E4M3FN",
    "f4E2M1FN",
    "complex<f32>",
    "complex<f80>",
    "complex<i24>",
    "vector<3xf32>",
    "vector<4xi1>",
    "vector<17xi1>",
    "vector<2x3xf32>",
    "vector<2xf80>",
    "vector<3xi24>",
    "vector<f32>",
    "vector<2xindex>",
]
WIDE = ["i65", "i96", "i128", "i200"]


def _measured_stride(elem: str) -> int:
    """Bytes per element the lowered code allocates: (size of 7) - (size of 5), halved."""
    sizes = []
    for n in (5, 7):
        text = (
            f"func.func @f() {{\n  %a = memref.alloc() : memref<{n}x{elem}>\n"
            f"  memref.dealloc %a : memref<{n}x{elem}>\n  return\n}}"
        )
        with ir.Context():
            sizes.append(numerics.execute(ir.Module.parse(text), "f").heap.total_bytes)
    return (sizes[1] - sizes[0]) // 2


def _layout(elem: str) -> tuple:
    """element_layout of the parsed (typed) element type."""
    with ir.Context():
        return element_layout(ir.Type.parse(elem))


@pytest.mark.parametrize("elem", EXACT)
def test_element_size_matches_execution_engine(elem):
    size, reason = _layout(elem)
    assert reason is None
    assert size == _measured_stride(elem)


@pytest.mark.parametrize("elem", WIDE)
def test_wide_integer_size_covers_every_layout(elem):
    size, _ = _layout(elem)
    assert size >= _measured_stride(elem)
    assert size % 16 == 0  # x86-64 / AArch64: i128:128


@pytest.mark.parametrize("elem", ["tf32", "vector<[4]xf32>", "!llvm.ptr"])
def test_unmodeled_element_has_a_reason(elem):
    size, reason = _layout(elem)
    assert size is None and elem in reason


# Five buffers live together, each of an element type whose LLVM size is not
# ceil(bits / 8) or that was left out (i1): at 16-byte alignment a pool laid
# out with ceil(bits / 8) puts the next view inside the previous one. (The i1
# buffer is read and written by memref.copy: upstream finalize-memref-to-llvm
# asserts on memref.load/store of i1.)
ODD = """
func.func @main(%x: memref<20xf32>, %mask: memref<20xi1>, %out: memref<20xf32>, %mask_out: memref<20xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  %k = arith.constant 1000.0 : f32
  %z = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<20xi24>
  %b = memref.alloc() : memref<20xf80>
  %m = memref.alloc() : memref<20xi1>
  memref.copy %mask, %m : memref<20xi1> to memref<20xi1>
  %c = memref.alloc() : memref<20xi48>
  %v = memref.alloc() : memref<20xvector<3xf32>>
  scf.for %i = %c0 to %c20 step %c1 {
    %e = memref.load %x[%i] : memref<20xf32>
    %s = arith.mulf %e, %k : f32
    %ai = arith.fptosi %s : f32 to i24
    memref.store %ai, %a[%i] : memref<20xi24>
    %be = arith.extf %e : f32 to f80
    memref.store %be, %b[%i] : memref<20xf80>
    %ci = arith.fptosi %s : f32 to i48
    memref.store %ci, %c[%i] : memref<20xi48>
    %ve = vector.broadcast %e : f32 to vector<3xf32>
    memref.store %ve, %v[%i] : memref<20xvector<3xf32>>
  }
  scf.for %i = %c0 to %c20 step %c1 {
    %ai = memref.load %a[%i] : memref<20xi24>
    %af = arith.sitofp %ai : i24 to f32
    %be = memref.load %b[%i] : memref<20xf80>
    %bf = arith.truncf %be : f80 to f32
    %ci = memref.load %c[%i] : memref<20xi48>
    %cf = arith.sitofp %ci : i48 to f32
    %ve = memref.load %v[%i] : memref<20xvector<3xf32>>
    %vf = vector.extract %ve[2] : f32 from vector<3xf32>
    %s1 = arith.addf %af, %bf : f32
    %s2 = arith.addf %s1, %z : f32
    %s3 = arith.addf %s2, %cf : f32
    %s4 = arith.addf %s3, %vf : f32
    memref.store %s4, %out[%i] : memref<20xf32>
  }
  memref.copy %m, %mask_out : memref<20xi1> to memref<20xi1>
  memref.dealloc %a : memref<20xi24>
  memref.dealloc %b : memref<20xf80>
  memref.dealloc %m : memref<20xi1>
  memref.dealloc %c : memref<20xi48>
  memref.dealloc %v : memref<20xvector<3xf32>>
  return
}
"""


def test_reuse_pools_odd_widths_at_their_layout_size(ctx):
    before = parse_source(ODD, "odd.mlir")
    after = parse_source(ODD, "odd.mlir")
    memplan.run_pipeline(after, "builtin.module(memplan-buffer-reuse{alignment=16})")
    text = str(after)
    assert text.count("memref.alloc") == 1  # all five, i1 included, in one pool
    # 20 x (4 + 16 + 1 + 8 + 16) bytes, all but the top one rounded up to 16.
    pool = int(re.search(r"memref<(\d+)xi8>", text).group(1))
    assert 900 <= pool <= 900 + 4 * 15
    assert check_module(after).ok
    result = numerics.compare(before, after, "main", poison=True)
    assert result.ok, str(result)
    assert oracle.run(text, "main").ok


def test_transients_place_odd_widths_at_their_layout_size(ctx):
    text = ODD.replace(
        "%mask_out: memref<20xi1>)",
        "%mask_out: memref<20xi1>, %storage: memref<?xi8> {memplan.transients})",
    )
    before = parse_source(text, "odd.mlir")
    after = parse_source(text, "odd.mlir")
    memplan.run_pipeline(after, "builtin.module(memplan-transients{alignment=16})")
    assert str(after).count("memref.alloc") == 0
    x = np.linspace(-1, 1, 20, dtype=np.float32)
    mask = x > 0
    out, mask_out = np.zeros(20, dtype=np.float32), np.zeros(20, dtype=np.bool_)
    run = runtime.run(after, "main", x, mask, out, mask_out)
    assert 900 <= run.storage_bytes <= 900 + 5 * 15
    storage = np.zeros(run.storage_bytes, dtype=np.uint8)
    result = numerics.compare(
        before, after, "main", inputs=[x, mask, out, mask_out, storage], scratch=[4]
    )
    assert result.ok, str(result)
    assert oracle.run(str(after), "main", inputs=[x, mask, out, mask_out, storage], scratch=[4]).ok
