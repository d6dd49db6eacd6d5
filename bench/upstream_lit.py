"""Run upstream MLIR's One-Shot Bufferize lit tests against memplan-opt.

    python bench/upstream_lit.py DIR [--filter one-shot-bufferize]

DIR holds test files from llvm-project (e.g. mlir/test/Dialect/{Bufferization/
Transforms,Linalg,SCF,Tensor,Arith}/*one-shot*.mlir; not part of this
repository). Every RUN line that runs ``one-shot-bufferize`` is run twice,
unmodified but for the tool and the pass name:

1. with the installed ``mlir-opt`` (the oracle: only lines that pass there count);
2. with ``memplan-opt`` and the pass renamed ``memplan-one-shot-bufferize``.

Prints one row per RUN line (pass/fail and, for a failure, the first line of
the reason) and the totals. With ``--per-split`` a RUN line that has
``-split-input-file`` runs once per ``// -----`` chunk (each chunk written to
its own file with its own CHECK lines), so one chunk that the installed
mlir-opt cannot parse (an op of a newer LLVM, the test dialect) leaves the
others counted. Not a default test: CI has no llvm-project.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


def _tool(package: str, name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    spec = importlib.util.find_spec(package)
    root = list(spec.submodule_search_locations)[0] if spec else ""
    return os.path.join(root, "bin", name)


MLIR_OPT = _tool("mlir", "mlir-opt")
FILECHECK = _tool("llvm", "FileCheck")
MEMPLAN_OPT = shutil.which("memplan-opt") or f"{sys.executable} -m memplan.cli.opt"

#: The pass name as a word: not inside test-one-shot-module-bufferize and the like.
PASS = re.compile(r"(?<![\w-])one-shot-bufferize(?![\w-])")


@dataclass
class RunLine:
    path: Path
    line: int
    command: str
    #: 1-based ``// -----`` chunk this run covers; 0 for the whole file.
    split: int = 0

    def name(self, root: Path) -> str:
        """``Dir/file.mlir:LINE`` (and ``#SPLIT``) relative to ``root``."""
        text = f"{self.path.relative_to(root)}:{self.line}"
        return f"{text}#{self.split}" if self.split else text


SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)


def chunks(path: Path) -> list[str]:
    """The file's ``// -----`` chunks, as ``-split-input-file`` cuts them."""
    return SPLIT.split(path.read_text(errors="replace"))


def run_lines(path: Path, needle: str) -> list[RunLine]:
    """The file's RUN lines (continuations joined) that mention ``needle``."""
    out: list[RunLine] = []
    pending, start = "", 0
    for number, text in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = re.search(r"\bRUN:(.*)$", text)
        if not m:
            continue
        part = m.group(1).rstrip()
        if not pending:
            start = number
        if part.endswith("\\"):
            pending += part[:-1] + " "
            continue
        command = (pending + part).strip()
        pending = ""
        if needle in command and "mlir-opt" in command:
            out.append(RunLine(path, start, command))
    return out


def shell(command: str, path: Path, tmp: str) -> subprocess.CompletedProcess:
    """Run a RUN line the way lit would: substitutions, ``not``, pipes."""
    text = (
        command.replace("%s", str(path))
        .replace("%t", os.path.join(tmp, "t"))
        .replace("%S", str(path.parent))
        .replace("%p", str(path.parent))
    )
    text = re.sub(r"(?<![\w-])FileCheck(?![\w-])", FILECHECK, text)
    script = "set -o pipefail\nnot() { ! \"$@\"; }\n" + text + "\n"
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, errors="replace", timeout=300
    )


def for_upstream(command: str) -> str:
    """The RUN line with the installed mlir-opt."""
    return re.sub(r"(?<![\w-])mlir-opt(?![\w-])", MLIR_OPT, command)


def for_memplan(command: str) -> str:
    """The RUN line with memplan-opt and the pass name swapped (and ``-o /dev/null``
    written to a scratch file), nothing else."""
    command = re.sub(r"(?<![\w-])mlir-opt(?![\w-])", MEMPLAN_OPT, command)
    # A scratch file rather than the device: memplan-opt is never given -o /dev/null.
    command = re.sub(r"-o\s+/dev/null", "-o %t.out", command)
    return PASS.sub("memplan-one-shot-bufferize", command)


def reason(result: subprocess.CompletedProcess) -> str:
    """The first telling line of a failure."""
    lines = [l for l in (result.stderr + result.stdout).splitlines() if l.strip()]
    for l in lines:
        if "error:" in l or "Traceback" in l or "Assertion" in l:
            return l.strip()[:160]
    if result.returncode < 0:
        return f"killed by signal {-result.returncode}"
    return (lines[0].strip()[:160] if lines else f"exit code {result.returncode}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("directory", type=Path)
    p.add_argument("--filter", default="one-shot-bufferize", help="run RUN lines that mention this")
    p.add_argument("--per-split", action="store_true", help="run each // ----- chunk on its own")
    args = p.parse_args(argv)
    root = args.directory
    files = sorted(root.rglob("*.mlir"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            for run in run_lines(path, args.filter):
                jobs = [(run, path)]
                if args.per_split and "split-input-file" in run.command:
                    jobs = []
                    for number, text in enumerate(chunks(path), 1):
                        piece = Path(tmp) / f"split{number}" / path.name
                        piece.parent.mkdir(exist_ok=True)
                        piece.write_text(text)
                        jobs.append((RunLine(path, run.line, run.command, number), piece))
                for job, source in jobs:
                    oracle = shell(for_upstream(job.command), source, tmp)
                    if oracle.returncode != 0:
                        # A chunk without CHECK lines of the run's prefix tests nothing.
                        empty = job.split and "no check strings found" in oracle.stderr
                        rows.append((job, "no-checks" if empty else "oracle-fails", reason(oracle)))
                        continue
                    mine = shell(for_memplan(job.command), source, tmp)
                    ok = mine.returncode == 0
                    rows.append((job, "pass" if ok else "FAIL", "" if ok else reason(mine)))
    rows = [row for row in rows if row[1] != "no-checks"]
    width = max((len(r.name(root)) for r, _, _ in rows), default=10)
    for run, status, why in rows:
        print(f"{run.name(root):<{width}}  {status:<12}  {why}")
    counted = [s for _, s, _ in rows if s in ("pass", "FAIL")]
    unit = "RUN line x split runs" if args.per_split else "RUN lines"
    print(
        f"\n{len(files)} files, {len(rows)} {unit}; {len(counted)} pass with mlir-opt; "
        f"{counted.count('pass')} of those pass with memplan-opt, {counted.count('FAIL')} fail"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
