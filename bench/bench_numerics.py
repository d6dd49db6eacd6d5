"""How long ``memplan-check`` takes on the real-model workloads.

For each workload of ``../shared/workloads`` (tensor level, entry ``@forward``):

* **reuse**: the upstream reference bufferization against the same plus
  ``memplan-buffer-reuse``;
* **transients**: the reference plus ``memplan-add-transient-storage``
  against the same plus ``memplan-transients`` (storage sized by the
  generated query);
* **full**: the tensor-level module against memplan's full bufferization
  (``memplan-one-shot-bufferize`` with the reference options, deallocation,
  optimize-allocation-liveness).

Each check is one ``memplan-check`` process (start-up, parse, lowering, JIT,
two poison runs per module and the comparison, all included), poison mode
on, default seed, memplan-check's default reference bufferization (or
``--reference upstream``).  Prints a Markdown table of wall-clock and CPU
seconds (user + system of the process: the figure that holds on a loaded
machine) and the verdict; a check over ``--budget`` seconds (default 30) is
marked.  Upstream has no such checker, so there is no upstream column.

``--jobs 1`` has memplan-check compile and run the two sides one after
the other instead of at once (its default, ``--jobs 2``).

``--exports DIR ...`` adds models exported by ``examples/torch_mlir.py
--weights arguments`` (GPT-2 124M and the unrolled GRU of
``bench/torch_models.py``): ``model.mlir`` against ``planned.mlir`` on the
exported inputs (``x.npy``, ``argN.npy``), checked against torch's
``y.npy`` at 1e-4/1e-5, with ``--export-budget`` (default 60 s). With
``-v`` each check's slowest phases (memplan-check ``-v``) are printed.

    python bench/bench_numerics.py [--workloads DIR] [--only NAME ...] [--opt-level N]
                                   [--exports DIR ...] [--reference upstream] [--jobs 1|2] [-v]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mlir import ir

import memplan
from memplan.ir import parse_source
from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION as REFERENCE

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shared_workloads import workload_dir  # noqa: E402

FULL = REFERENCE.replace("one-shot-bufferize{", "memplan-one-shot-bufferize{", 1)
DEFAULT_WORKLOADS = Path(workload_dir())


def run_pipeline(text: str, path: str, pipeline: str) -> str:
    with ir.Context():
        module = parse_source(text, path)
        memplan.run_pipeline(module, f"builtin.module({pipeline})")
        return module.get_asm(enable_debug_info=True)


def check(
    before: Path,
    after: Path,
    opt_level: int | None,
    timeout: float,
    entry: str = "forward",
    extra: tuple[str, ...] = (),
    cwd: Path | None = None,
    jobs: int = 2,
) -> tuple[float, float, str, list[str]]:
    """One memplan-check process: wall seconds, CPU seconds (its children's
    included: AFTER's process and the isolated runs), the verdict line and
    the phase lines."""
    cmd = [
        sys.executable,
        "-m",
        "memplan.cli.check",
        str(before),
        str(after),
        "--entry",
        entry,
        "-v",
        "--jobs",
        str(jobs),
        *extra,
    ]
    if opt_level is not None:
        cmd += ["--opt-level", str(opt_level)]
    start = time.perf_counter()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, float("nan"), f"timeout after {timeout:.0f} s", []
    elapsed = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = now.ru_utime - used.ru_utime + now.ru_stime - used.ru_stime
    lines = proc.stdout.strip().splitlines()
    first = (lines or proc.stderr.strip().splitlines() or ["?"])[0]
    if proc.returncode != 0:
        first = f"FAILED ({proc.returncode}): {first} {proc.stderr.strip()[:300]}"
    phases = []
    if "  times (s, wall clock;" in "\n".join(lines):
        start_at = next(i for i, line in enumerate(lines) if line.startswith("  times (s"))
        phases = [line.strip() for line in lines[start_at + 1 :]]
    return elapsed, cpu, first, phases


def slowest(phases: list[str], count: int = 4) -> str:
    """The ``count`` slowest of memplan-check's ``-v`` phase lines."""

    def seconds(line: str) -> float:
        return float(line.split(": ", 1)[1].split(" s", 1)[0])

    return "; ".join(sorted(phases, key=seconds, reverse=True)[:count])


def check_export(folder: Path, args: argparse.Namespace) -> None:
    """memplan-check on a folder written by examples/torch_mlir.py."""
    inputs = ["--input", "arg0=x.npy"]
    for npy in sorted(folder.glob("arg*.npy"), key=lambda p: int(p.stem[3:])):
        inputs += ["--input", f"{npy.stem}={npy.name}"]
    extra = (
        *inputs,
        "--expect",
        "y.npy",
        "--rtol",
        "1e-4",
        "--atol",
        "1e-5",
        "--reference",
        args.reference,
    )
    wall, cpu, verdict, phases = check(
        Path("model.mlir"),
        Path("planned.mlir"),
        args.opt_level,
        args.timeout,
        "main",
        extra,
        cwd=folder,
        jobs=args.jobs,
    )
    over = " **over budget**" if wall > args.export_budget else ""
    print(f"| {folder.name} | {wall:.1f}{over} | {cpu:.1f} | {verdict} |", flush=True)
    if args.verbose:
        print(f"|  | slowest phases: {slowest(phases)} | | |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--workloads", type=Path, default=DEFAULT_WORKLOADS)
    ap.add_argument("--only", nargs="*", default=None, help="workload names (file stems)")
    ap.add_argument("--opt-level", type=int, default=None, help="passed to memplan-check")
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument(
        "--exports",
        nargs="*",
        type=Path,
        default=[],
        help="folders written by examples/torch_mlir.py --weights arguments",
    )
    ap.add_argument("--export-budget", type=float, default=60.0)
    ap.add_argument("--reference", choices=("memplan", "upstream"), default="memplan")
    ap.add_argument(
        "--jobs",
        type=int,
        choices=(1, 2),
        default=2,
        help="memplan-check --jobs: 2 compiles and runs the two sides at once",
    )
    ap.add_argument("-v", "--verbose", action="store_true", help="print the slowest phases")
    args = ap.parse_args()
    if args.exports:
        print("| export | memplan-check (s) | CPU (s) | verdict |")
        print("|---|---:|---:|---|")
        for folder in args.exports:
            check_export(folder, args)
        if args.only is not None and not args.only:
            return
    if not args.workloads.is_dir():
        sys.exit(f"bench_numerics: no workloads at {args.workloads}")
    files = sorted(args.workloads.glob("*.mlir"))
    if args.only:
        files = [f for f in files if f.stem in args.only]
    print(
        "| workload | reuse check (s, CPU s) | transients check (s, CPU s) | "
        "full bufferization check (s, CPU s) | verdicts |"
    )
    print("|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for path in files:
            name = path.stem
            text = path.read_text()
            reference = run_pipeline(text, str(path), REFERENCE)
            storage = run_pipeline(
                reference, str(path), "memplan-add-transient-storage{func=forward}"
            )
            files_by_case = {
                "reuse": (reference, run_pipeline(reference, str(path), "memplan-buffer-reuse")),
                "transients": (storage, run_pipeline(storage, str(path), "memplan-transients")),
                "full": (None, run_pipeline(text, str(path), FULL)),
            }
            cells, verdicts = [], []
            for case, (before_text, after_text) in files_by_case.items():
                before = path if before_text is None else out / f"{name}.{case}.before.mlir"
                after = out / f"{name}.{case}.after.mlir"
                if before_text is not None:
                    before.write_text(before_text)
                after.write_text(after_text)
                seconds, cpu, verdict, phases = check(
                    before,
                    after,
                    args.opt_level,
                    args.timeout,
                    extra=("--reference", args.reference),
                    jobs=args.jobs,
                )
                over = " **over budget**" if seconds > args.budget else ""
                cells.append(f"{seconds:.1f} ({cpu:.1f}){over}")
                verdicts.append(
                    f"{case}: {verdict}" + (f" [{slowest(phases, 2)}]" if args.verbose else "")
                )
            print(f"| {name} | {' | '.join(cells)} | {'; '.join(verdicts)} |", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
