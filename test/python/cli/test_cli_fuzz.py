"""A seeded fuzzer over memplan's command lines (helpers/fuzz_cli.py):
random flags and values, random bytes and truncated inputs, bytecode,
special output paths. Every run must end with exit code 0 or 1 and no
traceback; the fuzzer runs in a child so that a crash names its case.
MEMPLAN_FUZZ_CASES and MEMPLAN_FUZZ_SEED run it longer or elsewhere."""

import os
import subprocess
import sys
from pathlib import Path

FUZZER = Path(__file__).parents[1] / "helpers" / "fuzz_cli.py"


def test_cli_fuzz(tmp_path):
    seed = os.environ.get("MEMPLAN_FUZZ_SEED", "0")
    cases = os.environ.get("MEMPLAN_FUZZ_CASES", "200")
    p = subprocess.run(
        [sys.executable, str(FUZZER), seed, cases, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = p.stdout.splitlines()
    last_case = next((line for line in reversed(lines) if line.startswith("case ")), "")
    assert lines and lines[-1] == f"fuzz: {cases} cases, 0 failed", (
        f"exit {p.returncode}; last case: {last_case}\n"
        + "\n".join(line for line in lines if not line.startswith("case "))
        + p.stderr[-3000:]
    )
    assert p.returncode == 0
