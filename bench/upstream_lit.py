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
others counted. A line on which mlir-opt crashes is ``oracle-crashes``;
``--compare-output`` compares memplan-opt's IR with mlir-opt's where mlir-opt
runs a line but fails its CHECK lines. ``--differential`` runs every chunk of every file under a
fixed list of option sets through both tools and compares the IR, the exit
code and the error lines (the inputs of upstream's tests, whatever their CHECK
lines say). Not a default test: CI has no llvm-project.
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
    script = 'set -o pipefail\nnot() { ! "$@"; }\n' + text + "\n"
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


def tool_part(command: str) -> str | None:
    """The RUN line's first command (the opt tool, before any pipe), with
    ``-o FILE`` and ``-verify-diagnostics`` dropped so the IR goes to stdout;
    None when the line does not start with mlir-opt."""
    first = command.split("|", 1)[0].strip()
    if first.startswith("not "):
        first = first[4:].strip()
    if not re.match(r"mlir-opt(?![\w-])", first):
        return None
    first = re.sub(r"\s-o\s+\S+", " ", first)
    return re.sub(r"\s--?verify-diagnostics(?![\w-])", " ", first)


def same_output(command: str, path: Path, tmp: str) -> str:
    """For a RUN line whose CHECK lines the installed mlir-opt fails (written
    for another LLVM): whether memplan-opt prints the same IR as mlir-opt.
    ``same``, ``differs``, or ``n/a`` (no tool part, or mlir-opt fails or
    crashes on the input itself)."""
    tool = tool_part(command)
    if tool is None:
        return "n/a"
    upstream = shell(for_upstream(tool), path, tmp)
    if upstream.returncode != 0 or not upstream.stdout.strip():
        return "n/a"
    mine = shell(for_memplan(tool), path, tmp)
    return "same" if mine.returncode == 0 and mine.stdout == upstream.stdout else "differs"


#: Option sets of ``--differential``: analysis (annotations) and rewrite mode.
DIFFERENTIAL_OPTIONS = [
    "bufferize-function-boundaries test-analysis-only",
    "bufferize-function-boundaries test-analysis-only print-conflicts",
    "bufferize-function-boundaries test-analysis-only dump-alias-sets",
    "test-analysis-only",
    "bufferize-function-boundaries test-analysis-only analysis-heuristic=top-down",
    "bufferize-function-boundaries test-analysis-only analysis-heuristic=bottom-up-from-terminators",
    "bufferize-function-boundaries test-analysis-only analysis-heuristic=fuzzer analysis-fuzzer-seed=7",
    "bufferize-function-boundaries",
    "bufferize-function-boundaries allow-return-allocs-from-loops",
    "allow-unknown-ops",
    "bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map",
    "allow-unknown-ops unknown-type-conversion=identity-layout-map allow-return-allocs-from-loops",
]


def _errors(stderr: str) -> list[str]:
    # mlir-opt 22 also reports unmet expected-error annotations without
    # -verify-diagnostics; memplan-opt does not: those lines are not compared.
    return [
        line for line in stderr.splitlines() if "error:" in line and "was not produced" not in line
    ]


def differential(files: list[Path], root: Path, tmp: str) -> int:
    """Both tools on every chunk under DIFFERENTIAL_OPTIONS; prints each
    difference and the totals. A difference where mlir-opt's own output varies
    between runs (print-conflicts names one of several conflicts in
    pointer-hash order) is counted apart."""
    runs = same = varies = 0
    for path in files:
        for number, text in enumerate(chunks(path), 1):
            source = Path(tmp) / "differential.mlir"
            source.write_text(text)
            parsed = subprocess.run(
                [MLIR_OPT, str(source), "-allow-unregistered-dialect"],
                capture_output=True,
                text=True,
                errors="replace",
            )
            if parsed.returncode != 0:
                continue  # written for another LLVM (or the test dialect): not an input here
            for options in DIFFERENTIAL_OPTIONS:

                def upstream() -> subprocess.CompletedProcess:
                    return subprocess.run(
                        [
                            MLIR_OPT,
                            str(source),
                            "-allow-unregistered-dialect",
                            f"-one-shot-bufferize={options}",
                        ],
                        capture_output=True,
                        text=True,
                        errors="replace",
                    )

                theirs = upstream()
                if theirs.returncode not in (0, 1) or "PLEASE submit a bug report" in theirs.stderr:
                    continue  # upstream crashes: nothing to compare with
                mine = subprocess.run(
                    MEMPLAN_OPT.split()
                    + [
                        str(source),
                        "-allow-unregistered-dialect",
                        f"-memplan-one-shot-bufferize={options}",
                    ],
                    capture_output=True,
                    text=True,
                    errors="replace",
                )
                runs += 1
                if (theirs.returncode, theirs.stdout, _errors(theirs.stderr)) == (
                    mine.returncode,
                    mine.stdout,
                    _errors(mine.stderr),
                ):
                    same += 1
                    continue
                if any(upstream().stdout != theirs.stdout for _ in range(4)):
                    varies += 1
                    status = "upstream varies"
                else:
                    status = "DIFFERS"
                print(
                    f"{path.relative_to(root)}#{number}  {options}  {status}  "
                    f"(exit {theirs.returncode} / {mine.returncode})"
                )
    print(
        f"\n{runs} runs ({len(files)} files x chunks x {len(DIFFERENTIAL_OPTIONS)} option sets, "
        f"chunks mlir-opt cannot parse and upstream crashes left out): {same} identical, {varies} differ where mlir-opt's own "
        f"output varies between runs, {runs - same - varies} differ"
    )
    return 0


def reason(result: subprocess.CompletedProcess) -> str:
    """The first telling line of a failure."""
    lines = [line for line in (result.stderr + result.stdout).splitlines() if line.strip()]
    for line in lines:
        if "error:" in line or "Traceback" in line or "Assertion" in line:
            return line.strip()[:160]
    if result.returncode < 0:
        return f"killed by signal {-result.returncode}"
    return lines[0].strip()[:160] if lines else f"exit code {result.returncode}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("directory", type=Path)
    p.add_argument("--filter", default="one-shot-bufferize", help="run RUN lines that mention this")
    p.add_argument(
        "--compare-output",
        action="store_true",
        help="where mlir-opt fails a line's CHECKs, compare memplan-opt's IR with mlir-opt's",
    )
    p.add_argument("--per-split", action="store_true", help="run each // ----- chunk on its own")
    p.add_argument(
        "--differential",
        action="store_true",
        help="compare both tools on every chunk under a fixed list of option sets",
    )
    args = p.parse_args(argv)
    root = args.directory
    files = sorted(root.rglob("*.mlir"))
    if args.differential:
        with tempfile.TemporaryDirectory() as tmp:
            return differential(files, root, tmp)
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
                        crashed = "PLEASE submit a bug report" in oracle.stderr
                        if empty:
                            rows.append((job, "no-checks", reason(oracle)))
                        elif crashed:
                            rows.append((job, "oracle-crashes", reason(oracle)))
                        elif args.compare_output:
                            rows.append(
                                (
                                    job,
                                    f"oracle-fails/{same_output(job.command, source, tmp)}",
                                    reason(oracle),
                                )
                            )
                        else:
                            rows.append((job, "oracle-fails", reason(oracle)))
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
    if args.compare_output:
        compared = [s for _, s, _ in rows if s in ("oracle-fails/same", "oracle-fails/differs")]
        print(
            f"{len(compared)} of the others run on mlir-opt (CHECK lines of another LLVM); "
            f"memplan-opt prints the same IR on {compared.count('oracle-fails/same')}, "
            f"different IR on {compared.count('oracle-fails/differs')}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
