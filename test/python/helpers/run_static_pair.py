"""Run @static_pair of a file after memplan-transients with plain LLVM lowering
(no assert hooks), storage of the given size: a failed size assert aborts.

    python run_static_pair.py FILE STORAGE_BYTES
"""

import ctypes
import sys

import numpy as np
from mlir import execution_engine, ir, passmanager, runtime

import memplan
from memplan.ir import parse_source
from memplan.numerics.runner import runtime_libraries

SRC = open(sys.argv[1]).read()
size = int(sys.argv[2])
with ir.Context():
    m = parse_source(SRC, "case.mlir")
    memplan.run_pipeline(m, "builtin.module(memplan-transients)")
    for op in m.regions[0].blocks[0].operations:
        op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
    mod = ir.Module.parse(str(m))
    pm = passmanager.PassManager.parse(
        "builtin.module(expand-strided-metadata,convert-to-llvm,reconcile-unrealized-casts)"
    )
    pm.run(mod.operation)
    ee = execution_engine.ExecutionEngine(mod, shared_libs=runtime_libraries())
    x = np.ones(256, np.float32)
    out = np.zeros(256, np.float32)
    s = np.zeros(size, np.uint8)
    args = [
        ctypes.pointer(ctypes.pointer(runtime.get_ranked_memref_descriptor(a))) for a in (x, out, s)
    ]
    ee.invoke("static_pair", *args)
    print("returned", out[:3])
