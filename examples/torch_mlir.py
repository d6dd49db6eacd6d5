"""memplan with torch-mlir: export a torch model, plan its memory, run it and
compare with torch (the README's "Using memplan with torch-mlir").

    python examples/torch_mlir.py OUTDIR [--torch-python PYTHON]
                                         [--model FILE.py:FUNCTION] [--weights arguments]
                                         [--rtol R] [--atol A]

Run it with memplan's python. The export runs in a child process of
``--torch-python`` (default: this python), which needs ``torch`` and
``torch-mlir`` (not memplan dependencies: a CPU ``torch`` and ``pip install
torch-mlir``, in this environment or a separate one). torch-mlir bundles
MLIR Python bindings of another LLVM release: the child hands memplan the
module as MLIR text.

The model is a small MLP, or ``FUNCTION()`` of ``FILE.py`` (run in the
child), which returns ``(model, inputs)``. Its weights are ``dense_resource``
constants, or with ``--weights arguments`` function arguments after the
inputs (a large model's text stays small; their values are saved too).

Writes OUTDIR/model.mlir (tensor level, as exported), OUTDIR/planned.mlir
(after memplan's memory pipeline), the inputs (x.npy, then argN.npy for
the weights given as arguments) and torch's output y.npy, then runs the
planned program and compares it with torch within ``--rtol``/``--atol``
(default 1e-4 / 1e-5: eight models exported this way, GPT-2 and Llama
among them, were at most 8.7e-6 from torch).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap
from pathlib import Path

#: Runs in torch's python: torch, torch-mlir and numpy only.
EXPORT = textwrap.dedent("""
    import importlib.util, sys
    missing = [name for name in ("numpy", "torch", "torch_mlir")
               if importlib.util.find_spec(name) is None]
    if missing:
        print("missing: " + " ".join(missing), file=sys.stderr)
        sys.exit(3)
    import numpy as np
    import torch
    from torch_mlir import fx

    out, spec, weights = sys.argv[1:4]

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(16, 32)
            self.fc2 = torch.nn.Linear(32, 8)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x))).softmax(-1)

    if spec:
        path, _, function = spec.rpartition(":")
        loader = importlib.util.spec_from_file_location("model_file", path)
        models = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(models)
        model, inputs = getattr(models, function)()
    else:
        torch.manual_seed(0)
        model, inputs = MLP().eval(), (torch.randn(4, 16),)

    class WeightsAsArguments(torch.nn.Module):
        # The model with its parameters taken as arguments after the inputs.
        def __init__(self, model):
            super().__init__()
            self.model = model
            self.names = [name for name, _ in model.named_parameters()]

        def forward(self, *args):
            count = len(args) - len(self.names)
            params = dict(zip(self.names, args[count:]))
            return torch.func.functional_call(self.model, params, args[:count])

    arguments = tuple(inputs)
    exported = model
    if weights == "arguments":
        exported = WeightsAsArguments(model)
        arguments += tuple(p.detach() for _, p in model.named_parameters())
    with torch.no_grad():
        module = fx.export_and_import(exported, *arguments, output_type="linalg-on-tensors",
                                      func_name="main")
        expected = model(*inputs)
    open(f"{out}/model.mlir", "w").write(str(module))  # text: any MLIR release reads it
    for n, value in enumerate(arguments):
        np.save(f"{out}/x.npy" if n == 0 else f"{out}/arg{n}.npy", value.numpy())
    if isinstance(expected, (tuple, list)):
        expected = expected[0]
    np.save(f"{out}/y.npy", expected.numpy())
    print(len(arguments))
""")

INSTALL = "pip install torch torch-mlir: a CPU build of torch will do"


def export(out: Path, torch_python: str, model: str, weights: str) -> int:
    """Run the export in ``torch_python``; the number of arguments it saved,
    or -1 (after saying why) when it failed."""
    try:
        p = subprocess.run(
            [torch_python, "-c", EXPORT, str(out), model, weights], capture_output=True, text=True
        )
    except OSError as err:
        print(
            f"torch_mlir.py: cannot run the torch python '{torch_python}': {err.strerror}",
            file=sys.stderr,
        )
        return -1
    if p.returncode == 3 and p.stderr.startswith("missing: "):
        names = p.stderr.split(":", 1)[1].split()
        print(
            f"torch_mlir.py: {torch_python} cannot import {', '.join(names)}: install them there "
            f"({INSTALL}), or give a python that has them with --torch-python",
            file=sys.stderr,
        )
        return -1
    if p.returncode != 0:
        tail = "\n".join(p.stderr.strip().splitlines()[-15:])
        print(
            f"torch_mlir.py: the export in {torch_python} failed (exit {p.returncode}):\n{tail}",
            file=sys.stderr,
        )
        return -1
    return int(p.stdout.split()[-1])


def main(argv: list[str] | None = None) -> int:
    """Export, plan, run and compare; returns the exit status."""
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("out", type=Path, metavar="OUTDIR")
    ap.add_argument(
        "--torch-python",
        default=sys.executable,
        help="the python with torch and torch-mlir to export with (default: this one)",
    )
    ap.add_argument(
        "--model",
        default="",
        metavar="FILE.py:FUNCTION",
        help="the model: FUNCTION() returns (model, inputs) (default: a small MLP)",
    )
    ap.add_argument(
        "--weights",
        choices=("resources", "arguments"),
        default="resources",
        help="weights as dense_resource constants (default) or function arguments",
    )
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    args = ap.parse_args(argv)
    try:
        import numpy as np
        from mlir import ir

        import memplan
        from memplan.numerics import execute
    except ImportError as err:
        print(
            f"torch_mlir.py: memplan is not importable by {sys.executable} ({err}): run this "
            "script with memplan's python, and give torch's with --torch-python",
            file=sys.stderr,
        )
        return 1

    args.out.mkdir(parents=True, exist_ok=True)
    # 1. Export with torch-mlir, in torch's process.
    count = export(args.out, args.torch_python, args.model, args.weights)
    if count < 0:
        return 1
    # 2. Import the text and run memplan's memory pipeline.
    with ir.Context():
        module = memplan.import_module((args.out / "model.mlir").read_text())
        memplan.run_pipeline(module, "builtin.module(memplan-memory-pipeline)")
        (args.out / "planned.mlir").write_text(str(module))
    # 3. Run the planned program through the ExecutionEngine; compare with torch.
    inputs = [np.load(args.out / ("x.npy" if n == 0 else f"arg{n}.npy")) for n in range(count)]
    expected = np.load(args.out / "y.npy")
    run = execute((args.out / "planned.mlir").read_text(), "main", inputs=inputs)
    got = run.outputs[0].data
    ok = got.shape == expected.shape and np.allclose(got, expected, rtol=args.rtol, atol=args.atol)
    error = float(np.abs(got - expected).max()) if got.shape == expected.shape else float("inf")
    print(
        f"memplan: output {got.shape} {'matches' if ok else 'DIFFERS FROM'} torch "
        f"(max abs difference {error:.3g}; rtol {args.rtol:g}, atol {args.atol:g}); "
        f"heap: {run.heap}"
    )
    print(
        f"files in {args.out}/: model.mlir planned.mlir x.npy y.npy"
        + (f" arg1.npy..arg{count - 1}.npy" if count > 1 else "")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
