"""The deallocation plans are the same in every process: their flag lists
come in the order of the function's edges, not of the ops' addresses (which
change from run to run: before, 8 runs over the lit inputs gave 8 different
orders)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LIT = Path(__file__).resolve().parents[2] / "lit" / "deallocation"

# Prints every plan's flag lists and reason of each split of the files given.
SCRIPT = """
import sys
from mlir import ir
from memplan import _core
from memplan.ir import extract_graph, parse_source
for name in sys.argv[1:]:
    for chunk in open(name).read().split("// -----"):
        with ir.Context():
            try:
                module = parse_source(chunk)
            except Exception:
                continue
            for plan in _core.plan_deallocation(extract_graph(module)):
                print(plan.function, plan.flag_lists, plan.left)
"""


def test_flag_lists_come_in_one_order_in_every_process():
    files = [str(LIT / name) for name in ("deallocation.mlir", "returned-merges.mlir")]
    outputs = {
        subprocess.run(
            [sys.executable, "-c", SCRIPT, *files], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(4)
    }
    assert len(outputs) == 1
    (text,) = outputs
    assert text.count("Ownership.") > 20  # the inputs have flag lists
