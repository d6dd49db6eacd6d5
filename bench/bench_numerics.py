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
on, default seed.  Prints a Markdown table of wall-clock seconds and the
verdict; a check over ``--budget`` seconds (default 60) is marked.  Upstream
has no such checker, so there is no upstream column.

    python bench/bench_numerics.py [--workloads DIR] [--only NAME ...] [--opt-level N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mlir import ir

import memplan
from memplan.ir import parse_source
from memplan.pipeline import UPSTREAM_BUFFERIZATION as REFERENCE

FULL = REFERENCE.replace("one-shot-bufferize{", "memplan-one-shot-bufferize{", 1)
DEFAULT_WORKLOADS = Path(__file__).resolve().parents[1] / ".." / "shared" / "workloads"


def run_pipeline(text: str, path: str, pipeline: str) -> str:
    with ir.Context():
        module = parse_source(text, path)
        memplan.run_pipeline(module, f"builtin.module({pipeline})")
        return module.get_asm(enable_debug_info=True)


def check(before: Path, after: Path, opt_level: int | None, timeout: float) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "memplan.cli.check", str(before), str(after), "--entry", "forward"]
    if opt_level is not None:
        cmd += ["--opt-level", str(opt_level)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, f"timeout after {timeout:.0f} s"
    elapsed = time.perf_counter() - start
    first = (proc.stdout.strip().splitlines() or proc.stderr.strip().splitlines() or ["?"])[0]
    if proc.returncode != 0:
        first = f"FAILED ({proc.returncode}): {first} {proc.stderr.strip()[:300]}"
    return elapsed, first


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", type=Path, default=DEFAULT_WORKLOADS)
    ap.add_argument("--only", nargs="*", default=None, help="workload names (file stems)")
    ap.add_argument("--opt-level", type=int, default=None, help="passed to memplan-check")
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args()
    if not args.workloads.is_dir():
        sys.exit(f"bench_numerics: no workloads at {args.workloads}")
    files = sorted(args.workloads.glob("*.mlir"))
    if args.only:
        files = [f for f in files if f.stem in args.only]
    print("| workload | reuse check (s) | transients check (s) | full bufferization check (s) | verdicts |")
    print("|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for path in files:
            name = path.stem
            text = path.read_text()
            reference = run_pipeline(text, str(path), REFERENCE)
            storage = run_pipeline(reference, str(path), "memplan-add-transient-storage{func=forward}")
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
                seconds, verdict = check(before, after, args.opt_level, args.timeout)
                over = " **over budget**" if seconds > args.budget else ""
                cells.append(f"{seconds:.1f}{over}")
                verdicts.append(f"{case}: {verdict}")
            print(f"| {name} | {' | '.join(cells)} | {'; '.join(verdicts)} |", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
