"""memplan with torch-mlir: export a small torch model, plan its memory, run
it and compare with torch (the README's "Using memplan with torch-mlir").

    python examples/torch_mlir.py OUTDIR

Needs ``torch`` and ``torch-mlir`` (not memplan dependencies: ``pip install
torch`` (a CPU build) and ``pip install --no-deps torch-mlir``). torch-mlir
bundles MLIR Python bindings of its own, of another LLVM release: the export
runs in a child process and hands memplan the module as MLIR text
(``memplan.import_module`` takes the module object as well, where both
bindings load in one process). Writes OUTDIR/model.mlir (tensor level, as
exported), OUTDIR/planned.mlir (after memplan's memory pipeline), the input
x.npy and torch's output y.npy, then checks memplan's result against torch.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

#: Runs in a child: torch and torch-mlir only.
EXPORT = textwrap.dedent("""
    import sys
    import numpy as np
    import torch
    from torch_mlir import fx

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(16, 32)
            self.fc2 = torch.nn.Linear(32, 8)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x))).softmax(-1)

    torch.manual_seed(0)
    model = MLP().eval()
    x = torch.randn(4, 16)
    module = fx.export_and_import(model, x, output_type="linalg-on-tensors", func_name="main")
    out = sys.argv[1]
    open(f"{out}/model.mlir", "w").write(str(module))   # text: any MLIR release reads it
    np.save(f"{out}/x.npy", x.numpy())
    with torch.no_grad():
        np.save(f"{out}/y.npy", model(x).numpy())
""")


def main(out: Path) -> int:
    import numpy as np
    from mlir import ir

    import memplan
    from memplan.numerics import execute

    out.mkdir(parents=True, exist_ok=True)
    # 1. Export with torch-mlir, in its own process.
    subprocess.run([sys.executable, "-c", EXPORT, str(out)], check=True)
    # 2. Import the text and run memplan's memory pipeline.
    with ir.Context():
        module = memplan.import_module((out / "model.mlir").read_text())
        memplan.run_pipeline(module, "builtin.module(memplan-memory-pipeline)")
        (out / "planned.mlir").write_text(str(module))
    # 3. Run the planned program through the ExecutionEngine; compare with torch.
    x, expected = np.load(out / "x.npy"), np.load(out / "y.npy")
    run = execute((out / "planned.mlir").read_text(), "main", inputs=[x])
    got = run.outputs[0].data
    error = float(np.abs(got - expected).max())
    ok = got.shape == expected.shape and np.allclose(got, expected, rtol=1e-5, atol=1e-6)
    print(f"memplan: output {got.shape} {'matches' if ok else 'DIFFERS FROM'} torch "
          f"(max abs difference {error:.3g}); heap: {run.heap}")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
