"""A seeded fuzzer with a fixed number of cases for memplan-opt: valid inputs mutated
(truncation, byte flips, spliced lines), wrong option values and random
pipelines mixing memplan's and upstream's passes. Whatever the input,
memplan-opt answers with diagnostics: no Python traceback, no signal, exit
code 0, 1 or 2."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import memplan.passes as registry

ROOT = Path(__file__).parents[3]
SEEDS = [
    ROOT / "examples" / "mlp.mlir",
    Path(__file__).parents[1] / "inputs" / "opt" / "bufz.mlir",
    Path(__file__).parents[1] / "inputs" / "opt" / "call_writes_arg.mlir",
]
#: Upstream passes that do not crash on any input we know of (upstream's own
#: crashes are upstream's; memplan's handling of its passes is under test).
UPSTREAM = [
    "canonicalize",
    "cse",
    "symbol-dce",
    "one-shot-bufferize{bufferize-function-boundaries}",
    "func.func(optimize-allocation-liveness)",
    "buffer-deallocation-pipeline",
]
BAD_VALUES = ["", "x", "-1", "0", "3", "1.5", "true", '""', "{", "}", "=", "99999999999999999999"]
#: Cases per run: fixed, so that every machine tries the same inputs.
CASES = 48


def _memplan_pass(rng: random.Random) -> str:
    info = rng.choice(registry.registered_passes())
    if not info.options or rng.random() < 0.3:
        return info.argument
    opt = rng.choice(info.options)
    if rng.random() < 0.5:
        value = rng.choice(BAD_VALUES)
    elif opt.choices:
        value = rng.choice(opt.choices)
    else:
        value = opt.format(opt.default)
    return f"{info.argument}{{{opt.name}={value}}}"


def _pipeline(rng: random.Random) -> list[str]:
    elements = [
        _memplan_pass(rng) if rng.random() < 0.6 else rng.choice(UPSTREAM)
        for _ in range(rng.randint(1, 4))
    ]
    if rng.random() < 0.5:
        return [f"--pass-pipeline=builtin.module({','.join(elements)})"]
    # Flag form: -pass or -pass=options.
    flags = []
    for e in elements:
        name, _, rest = e.partition("{")
        flags.append(f"-{name}={rest[:-1]}" if rest else f"-{name}")
    return flags


def _mutate(rng: random.Random, data: bytes) -> bytes:
    kind = rng.randrange(4)
    if kind == 0:  # truncation
        return data[: rng.randrange(len(data) + 1)]
    if kind == 1:  # byte flips
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 2:  # a line duplicated elsewhere
        lines = data.split(b"\n")
        lines.insert(rng.randrange(len(lines)), rng.choice(lines))
        return b"\n".join(lines)
    return data  # valid input, random pipeline


def test_fuzz_memplan_opt(tmp_path: Path):
    rng = random.Random(20261124)
    seeds = [p.read_bytes() for p in SEEDS]
    for _ in range(CASES):
        data = _mutate(rng, rng.choice(seeds))
        src = tmp_path / "in.mlir"
        src.write_bytes(data)
        args = [str(src), *_pipeline(rng)]
        if rng.random() < 0.3:
            args.append("--split-input-file")
        out = tmp_path / "out.mlir"
        r = subprocess.run(
            [sys.executable, "-m", "memplan.cli.opt", *args, "-o", str(out)],
            capture_output=True,
            timeout=120,
        )
        case = f"{args} on {data[:200]!r}"
        assert b"Traceback" not in r.stderr, case + "\n" + r.stderr.decode(errors="replace")
        assert r.returncode in (0, 1, 2), (
            f"exit {r.returncode}: {case}\n" + r.stderr.decode(errors="replace")[-2000:]
        )
