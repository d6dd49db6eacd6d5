"""memplan-opt's start-up against mlir-opt's, measured in the same run.

Each tool reads an empty module and prints it, ``--runs`` times, the tools
interleaved so that both see the same load; the figure is the CPU time
(user + system) of the process, its median and minimum over the runs. The
MLIR Python bindings' own start-up (``python -c 'import mlir._mlir_libs'``,
which every memplan tool pays) is measured too, as the floor.

Measure an installed memplan, not an editable one: an editable install
checks whether its C++ needs rebuilding on every import. For example::

    pip wheel --no-deps . -w dist
    python -m venv /tmp/v && /tmp/v/bin/pip install dist/memplan-*.whl
    python bench/bench_startup.py --venv /tmp/v

Prints a Markdown table (docs/benchmarks.md, "Start-up").
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def cpu_ms(cmd: list[str]) -> float:
    """CPU milliseconds (user + system) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(
            f"bench_startup: {' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()[:500]}"
        )
    return 1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


def editable(python: str) -> bool:
    """Whether ``python`` imports memplan from an editable install."""
    code = (
        "import importlib.metadata as m, json; t = m.distribution('memplan').read_text('direct_url.json'); "
        "print(json.loads(t).get('dir_info', {}).get('editable', False) if t else False)"
    )
    out = subprocess.run([python, "-c", code], capture_output=True, text=True)
    return out.stdout.strip() == "True"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--venv",
        type=Path,
        default=Path(sys.prefix),
        help="the environment memplan is installed in (default: this one)",
    )
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    python = str(args.venv / "bin" / "python")
    opt = str(args.venv / "bin" / "memplan-opt")
    locate = (
        "import mlir._mlir_libs as m, os; "
        "print(os.path.join(os.path.dirname(os.path.dirname(m.__file__)), 'bin', 'mlir-opt'))"
    )
    mlir_opt = subprocess.run(
        [python, "-c", locate], capture_output=True, text=True, check=True
    ).stdout.strip()
    if editable(python):
        print(
            "warning: memplan is an editable install here: its import checks for a rebuild; "
            "measure a wheel install (see --help)",
            file=sys.stderr,
        )
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "empty.mlir")
        Path(empty).write_text("module {}\n")
        tools = {
            "mlir-opt": [mlir_opt, empty],
            "memplan-opt": [opt, empty],
            "python + MLIR bindings (import mlir._mlir_libs)": [
                python,
                "-c",
                "import mlir._mlir_libs",
            ],
        }
        for cmd in tools.values():  # warm the file cache
            cpu_ms(cmd)
        times: dict[str, list[float]] = {name: [] for name in tools}
        for _ in range(args.runs):
            for name, cmd in tools.items():
                times[name].append(cpu_ms(cmd))
    base = statistics.median(times["mlir-opt"])
    print(
        f"| process ({args.runs} runs, interleaved) | CPU ms, median | CPU ms, min | median / mlir-opt's |"
    )
    print("|---|---:|---:|---:|")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"| {name} | {median:.0f} | {min(values):.0f} | {median / base:.2f}x |")
    print(
        json.dumps({name: round(statistics.median(v), 1) for name, v in times.items()}),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
