"""memplan-check and memplan.numerics hand every memref argument to the JIT
code 64-byte aligned, as MLIR's own allocations are: a ``vector.type_cast``
load of an argument is an aligned vector move (``vmovaps``), which faults on
numpy's 16-byte alignment (a crash that depends on addresses, so it looked
like a broken rewrite)."""

import os
import subprocess
import sys
import textwrap

import numpy as np

from memplan.numerics import execute
from memplan.numerics.inputs import ARGUMENT_ALIGNMENT, aligned_copy

CHECK = os.path.join(os.path.dirname(sys.executable), "memplan-check")

#: Loads and stores whole vectors of argument buffers.
VECTOR_CAST = """
func.func @main(%x: memref<64xf32>, %y: memref<64xf32>) {
  %vx = vector.type_cast %x : memref<64xf32> to memref<vector<64xf32>>
  %vy = vector.type_cast %y : memref<64xf32> to memref<vector<64xf32>>
  %v = memref.load %vx[] : memref<vector<64xf32>>
  %w = arith.addf %v, %v : vector<64xf32>
  memref.store %w, %vy[] : memref<vector<64xf32>>
  return
}
"""


def test_aligned_copy():
    for shape, dtype in (
        ((3,), np.float32),
        ((5, 7), np.float64),
        ((0,), np.int32),
        ((9,), np.bool_),
    ):
        a = np.arange(int(np.prod(shape))).astype(dtype).reshape(shape)
        b = aligned_copy(a)
        assert b.ctypes.data % ARGUMENT_ALIGNMENT == 0 and b.dtype == a.dtype
        np.testing.assert_array_equal(a, b)


def test_every_argument_is_64_byte_aligned():
    # The program returns the address of each argument's data.
    sizes = (1, 3, 5, 17, 100, 1000, 4096)
    args = ", ".join(f"%a{i}: memref<{n}xf32>" for i, n in enumerate(sizes))
    body = "\n".join(
        f"  %p{i} = memref.extract_aligned_pointer_as_index %a{i} : memref<{n}xf32> -> index"
        for i, n in enumerate(sizes)
    )
    results = ", ".join(f"%p{i}" for i in range(len(sizes)))
    types = ", ".join("index" for _ in sizes)
    text = f"func.func @main({args}) -> ({types}) {{\n{body}\n  return {results} : {types}\n}}"
    for seed in range(3):
        run = execute(text, "main", seed=seed)
        addresses = [int(o.data) for o in run.outputs[: len(sizes)]]
        assert all(a % 64 == 0 for a in addresses), [a % 64 for a in addresses]


def test_vector_cast_loads_of_arguments_run(tmp_path):
    # Before the fix this died of SIGSEGV (in a child: it would take pytest
    # down with it).
    path = tmp_path / "vec.mlir"
    path.write_text(VECTOR_CAST)
    script = textwrap.dedent(f"""
        import numpy as np
        from memplan.numerics import execute
        text = open({str(path)!r}).read()
        for seed in range(20):
            run = execute(text, "main", seed=seed)
            x, y = run.outputs[0].data, run.outputs[1].data
            assert np.array_equal(y, x + x)
        print("ok")
    """)
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout == "ok\n", (p.returncode, p.stderr)
    p = subprocess.run(
        [CHECK, str(path), str(path), "--entry", "main"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0 and p.stdout.startswith("OK"), (p.returncode, p.stdout, p.stderr)
