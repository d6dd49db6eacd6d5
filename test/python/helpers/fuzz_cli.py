"""Seeded fuzzer over memplan's command lines (``memplan report``,
``memplan explain``, ``memplan transients``, ``memplan-check``).

    python fuzz_cli.py SEED CASES WORKDIR

Each case is a random command line: random flags and values (numbers that
overflow, negative ones, names of arguments that do not exist, junk),
random inputs (the shipped examples, their bytecode, a Latin-1 copy,
truncated text and bytecode, random bytes, an empty file, a folder, a
missing file, JSON reports whole and cut) and special output paths (a
missing folder, an unknown image format, a folder where a file goes, a file
where a folder goes). The tools run in this process, as their console
scripts do; each case is printed (flushed) before it runs, so a crash names
it. A case fails when it raises (a traceback) or exits with a code other
than 0 or 1. The last line is ``fuzz: N cases, M failed``; each failure is
printed with its command line and traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import shlex
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).parents[3]
EXAMPLES = ROOT / "examples"
BRANCHES = ROOT / "test" / "lit" / "lifetimes" / "report-cli.mlir"
SHAPES = ROOT / "test" / "lit" / "transients" / "cli-shapes.mlir"

#: Values for flags: numbers at the edges, names, junk.
NUMBERS = [
    "0",
    "1",
    "7",
    "-1",
    "-7",
    "64",
    "3",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999999",
    "0x10",
    "1e400",
    "nan",
    "-inf",
    "1.5",
    "",
    " ",
    "x",
    "\u0663",
    "1_000",
]
ARGS = ["0", "1", "2", "3", "9", "arg0", "%arg1", "arg99", "%x", "*", "-1", "arg", ""]


def _inputs(work: Path) -> dict[str, Path]:
    """Input files of every kind, written once into ``work``."""
    from mlir import ir

    files: dict[str, Path] = {}
    texts = {
        "scale": (EXAMPLES / "scale.mlir").read_text(),
        "mlp": (EXAMPLES / "mlp.mlir").read_text(),
        "branches": BRANCHES.read_text(),
        "shapes": SHAPES.read_text(),
    }
    for name, text in texts.items():
        files[name] = work / f"{name}.mlir"
        files[name].write_text(text)
        files[f"{name}-latin1"] = work / f"{name}-latin1.mlir"
        files[f"{name}-latin1"].write_bytes(b"// \xe9t\xe9 \xff\n" + text.encode())
        with ir.Context():
            buffer = io.BytesIO()
            ir.Module.parse(text).operation.write_bytecode(buffer)
        files[f"{name}-bc"] = work / f"{name}.mlirbc"
        files[f"{name}-bc"].write_bytes(buffer.getvalue())
    rng = random.Random(1)
    for name in ("scale", "branches"):
        for kind, data in (
            ("text", files[name].read_bytes()),
            ("bc", files[f"{name}-bc"].read_bytes()),
        ):
            for n in range(3):
                cut = work / f"{name}-cut{n}.{kind}"
                cut.write_bytes(data[: rng.randrange(1, len(data))])
                files[cut.name] = cut
    files["random"] = work / "random.bin"
    files["random"].write_bytes(bytes(rng.randrange(256) for _ in range(300)))
    files["random-bc"] = work / "random.mlirbc"
    files["random-bc"].write_bytes(b"ML\xefR" + bytes(rng.randrange(256) for _ in range(200)))
    files["empty"] = work / "empty.mlir"
    files["empty"].write_bytes(b"")
    files["folder"] = work
    files["missing"] = work / "missing.mlir"
    report = work / "report.json"
    report.write_text(json.dumps({"version": 1, "functions": [{"name": "f"}]}))
    files["report-bad"] = report
    files["report-cut"] = work / "cut.json"
    files["report-cut"].write_text('{"version": 1, "functions": [')
    npy = work / "x.npy"
    import numpy as np

    np.save(npy, np.arange(100, dtype=np.float32))
    files["npy"] = npy
    files["npy-2d"] = work / "x2.npy"
    np.save(files["npy-2d"], np.zeros((2, 3), np.float64))
    files["npy-bad"] = work / "bad.npy"
    files["npy-bad"].write_bytes(b"\x93NUMPY garbage")
    return files


def _maybe(rng: random.Random, p: float = 0.5) -> bool:
    return rng.random() < p


def _dim(rng: random.Random) -> str:
    key = rng.choice(ARGS)
    if _maybe(rng):
        key += ":" + rng.choice(["0", "1", "5", "-1", "x"])
    return f"{key}={rng.choice(NUMBERS)}"


def _arg_options(rng: random.Random, files: dict, inputs: bool) -> list[str]:
    out: list[str] = []
    for _ in range(rng.randrange(3)):
        out += ["--dim", _dim(rng)]
    for _ in range(rng.randrange(2)):
        out += ["--value", f"{rng.choice(ARGS)}={rng.choice(NUMBERS)}"]
    if inputs:
        for _ in range(rng.randrange(2)):
            path = files[rng.choice(["npy", "npy-2d", "npy-bad", "missing", "folder"])]
            out += ["--input", f"{rng.choice(ARGS)}={path}"]
    return out


def _input(rng: random.Random, files: dict, likely: list[str]) -> str:
    return str(files[rng.choice(likely)] if _maybe(rng, 0.6) else files[rng.choice(sorted(files))])


def _plot_path(rng: random.Random, work: Path) -> str:
    return str(
        rng.choice(
            [
                work / "t.png",
                work / "t.svg",
                work / "t.xyz",
                work / "t",
                work / "no" / "t.png",
                work,
                work / "random.bin" / "t.png",
                work / "t.pdf",
            ]
        )
    )


def _case(rng: random.Random, files: dict, work: Path) -> tuple[str, list[str]]:
    tool = rng.choice(["report", "explain", "transients", "check"])
    if tool == "report":
        argv = [
            "report",
            _input(rng, files, ["branches", "branches-bc", "branches-latin1", "mlp", "report-bad"]),
        ]
        if _maybe(rng, 0.3):
            argv.append("--bufferize")
        if _maybe(rng, 0.3):
            argv.append("--json")
        if _maybe(rng, 0.3):
            argv += ["--function", rng.choice(["branches", "f", "nope", ""])]
        if _maybe(rng, 0.4):
            argv += ["--plot", _plot_path(rng, work)]
        if _maybe(rng, 0.2):
            argv += ["--algorithm", rng.choice(["best", "linear-scan", "nope", ""])]
        if _maybe(rng, 0.2):
            argv += ["--alignment", rng.choice(NUMBERS)]
        return "memplan", argv
    if tool == "explain":
        argv = ["explain", _input(rng, files, ["mlp", "mlp-bc", "mlp-latin1", "scale"])]
        for flag in (
            "--json",
            "--no-function-boundaries",
            "--allow-unknown-ops",
            "--allow-return-allocs-from-loops",
        ):
            if _maybe(rng, 0.2):
                argv.append(flag)
        if _maybe(rng, 0.2):
            argv += ["--heuristic", rng.choice(["bottom-up", "min-copy-bytes", "x"])]
        if _maybe(rng, 0.2):
            argv += ["--function", rng.choice(["mlp", "nope"])]
        return "memplan", argv
    if tool == "transients":
        argv = [
            "transients",
            _input(rng, files, ["scale", "scale-bc", "scale-latin1", "shapes", "mlp"]),
        ]
        if _maybe(rng, 0.9):
            argv += ["--func", rng.choice(["scale", "f", "mlp", "nope", "@scale"])]
        return "memplan", argv + _arg_options(rng, files, inputs=False)
    # memplan-check: JIT runs cost the most; most cases stop at a bad value.
    before = _input(rng, files, ["scale", "scale-bc", "scale-latin1"])
    after = _input(rng, files, ["scale", "scale-bc"])
    argv = [before, after]
    if _maybe(rng, 0.9):
        argv += ["--entry", rng.choice(["scale", "nope", "@scale"])]
    argv += _arg_options(rng, files, inputs=True)
    if _maybe(rng, 0.2):
        argv += ["--seed", rng.choice(NUMBERS)]
    if _maybe(rng, 0.2):
        argv += ["--opt-level", rng.choice(["0", "2", "4", "-1", "x"])]
    if _maybe(rng, 0.2):
        argv += [
            "--expect",
            rng.choice(["", "result0=", "arg0=", "nope="])
            + str(files[rng.choice(["npy", "npy-bad", "missing"])]),
        ]
    if _maybe(rng, 0.2):
        argv += [rng.choice(["--rtol", "--atol"]), rng.choice(NUMBERS)]
    if _maybe(rng, 0.2):
        argv += [
            "--save-outputs",
            str(rng.choice([work / "saved", files["random"], work / "a" / "b"])),
        ]
    return "memplan-check", argv


def _run(tool: str, argv: list[str]) -> int:
    """Run a tool in this process as its console script does; its exit code."""
    try:
        if tool == "memplan":
            from memplan.cli.main import run

            return int(run(argv))
        from memplan.cli.check import main

        return int(main(argv))
    except SystemExit as exit_:
        code = exit_.code
        return 0 if code is None else code if isinstance(code, int) else 1


def main() -> int:
    seed, cases, work = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    files = _inputs(work)
    rng = random.Random(seed)
    failures = []
    for n in range(cases):
        tool, argv = _case(rng, files, work)
        line = shlex.join([tool, *argv])
        print(f"case {n}: {line}", flush=True)
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = _run(tool, argv)
        except BaseException:  # noqa: BLE001 - every escape is a failure
            failures.append(f"{line}\n{traceback.format_exc()}")
            continue
        if code not in (0, 1) or "Traceback" in err.getvalue():
            failures.append(f"{line}\nexit {code}\n{err.getvalue()}")
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"fuzz: {cases} cases, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
