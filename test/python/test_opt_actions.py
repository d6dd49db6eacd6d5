"""memplan-opt traces and counts MLIR actions as mlir-opt does
(``--log-actions-to``, ``--log-mlir-actions-filter``, ``--profile-actions-to``,
``--mlir-debug-counter``, ``--mlir-print-debug-counter``), with its own code
on MLIRContext's action handler. The output is compared with the installed
mlir-opt's, byte for byte once thread names, thread ids and times (which
differ run to run and process to process) are normalized."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from test_opt_parity import INPUTS, memplan_opt, mlir_opt, tool_workdir

THREAD = re.compile(rb"\[thread [^\]]*\]")
TID_TS = re.compile(rb'"tid": \d+, "ts": \d+')


def normalize(text: bytes) -> bytes:
    """Thread names, ids and times out of a log or profile."""
    return TID_TS.sub(b'"tid": T, "ts": T', THREAD.sub(b"[thread T]", text))


def both(args: list[str], tmp_path: Path, files: tuple[str, ...] = ()) -> list[tuple]:
    """Runs mlir-opt and memplan-opt in their own copies of the inputs;
    returns per tool (exit code, stdout, stderr, the named files' bytes)."""
    results = []
    for tool in (mlir_opt, memplan_opt):
        work = tool_workdir(tmp_path, tool)
        r = tool(args, work)
        outputs = tuple((work / name).read_bytes() if (work / name).exists() else None for name in files)
        results.append((r.returncode, r.stdout, r.stderr, outputs))
    return results


SINGLE_THREAD = ["--mlir-disable-threading"]
PIPELINE = ["-canonicalize", "-cse"]

LOG_CASES = {
    # Every action, to stdout before the IR.
    "log_to_stdout": ["bufz.mlir", "--log-actions-to=-", *PIPELINE, *SINGLE_THREAD],
    # To a file; the IR on stdout.
    "log_to_file": ["bufz.mlir", "--log-actions-to=log.txt", *PIPELINE, *SINGLE_THREAD],
    # Only the actions on IR at the given locations.
    "log_filter_line": ["bufz.mlir", "--log-actions-to=-", "--log-mlir-actions-filter=bufz.mlir:3", *PIPELINE, *SINGLE_THREAD],
    "log_filter_line_col": ["bufz.mlir", "--log-actions-to=-", "--log-mlir-actions-filter=bufz.mlir:3:8", *PIPELINE, *SINGLE_THREAD],
    "log_filter_column_no_match": ["bufz.mlir", "--log-actions-to=-", "--log-mlir-actions-filter=bufz.mlir:3:9", *PIPELINE, *SINGLE_THREAD],
    # Of several filters mlir-opt keeps the last one only (see below).
    "log_filters_last_matches": ["bufz.mlir", "--log-actions-to=-", "--log-mlir-actions-filter=other.mlir,bufz.mlir:3", *PIPELINE, *SINGLE_THREAD],
    "log_filter_file": ["bufz.mlir", "--log-actions-to=-", "--log-mlir-actions-filter=bufz.mlir", *PIPELINE, *SINGLE_THREAD],
    "log_filter_no_match": ["bufz.mlir", "--log-actions-to=-", "--log-mlir-actions-filter=nothere.mlir:1", *PIPELINE, *SINGLE_THREAD],
    "log_filter_empty": ["bufz.mlir", "--log-actions-to=-", "--log-mlir-actions-filter=", *PIPELINE],
    # Per chunk: the file is written again for each.
    "log_split": ["split.mlir", "--split-input-file", "--log-actions-to=-", "-canonicalize", *SINGLE_THREAD],
    # Patterns rewrite: apply-pattern actions nest in pass-execution ones.
    "log_patterns": ["bufz.mlir", "--log-actions-to=-", "-one-shot-bufferize=bufferize-function-boundaries", "-canonicalize", *SINGLE_THREAD],
    "log_unwritable": ["bufz.mlir", "--log-actions-to=/nonexistent/log.txt", "-canonicalize"],
    # Counters: skip the first pass run, then allow one.
    "counter": ["bufz.mlir", "--mlir-debug-counter=pass-execution-skip=1,pass-execution-count=1", "--mlir-print-debug-counter", *PIPELINE, *SINGLE_THREAD],
    "counter_print_only": ["bufz.mlir", "--mlir-print-debug-counter", "-canonicalize"],
    "counter_split": ["split.mlir", "--split-input-file", "--mlir-debug-counter=pass-execution-count=0", "--mlir-print-debug-counter", "-canonicalize"],
    "counter_negative_skip": ["bufz.mlir", "--mlir-debug-counter=pass-execution-skip=-1,apply-pattern-count=0", "--mlir-print-debug-counter", "-one-shot-bufferize=bufferize-function-boundaries", "-canonicalize"],
    "counter_with_log": ["bufz.mlir", "--log-actions-to=-", "--mlir-debug-counter=pass-execution-skip=1", *PIPELINE, *SINGLE_THREAD],
}


@pytest.mark.parametrize("name", sorted(LOG_CASES))
def test_actions_like_mlir_opt(name: str, tmp_path: Path):
    want, got = both(LOG_CASES[name], tmp_path, files=("log.txt",))
    assert (got[0], normalize(got[1]), normalize(got[2])) == (want[0], normalize(want[1]), normalize(want[2]))
    assert [normalize(f) if f else f for f in got[3]] == [normalize(f) if f else f for f in want[3]]


def test_every_filter_counts(tmp_path: Path):
    # mlir-opt keys its filters by pointers into strings it then moves: of
    # `bufz.mlir:3:8,other.mlir` it forgets the first and logs nothing.
    # memplan-opt logs the actions at any of the filters' locations.
    args = ["bufz.mlir", "--log-actions-to=-", "-canonicalize", *SINGLE_THREAD]
    want, got = both([*args, "--log-mlir-actions-filter=other.mlir,bufz.mlir:3:8"], tmp_path)
    assert [normalize(x) for x in got[1:3]] == [normalize(x) for x in want[1:3]] and got[0] == want[0] == 0
    assert b"completed `apply-pattern`" in got[1]
    r = memplan_opt([*args, "--log-mlir-actions-filter=bufz.mlir:3:8,other.mlir"], tmp_path / "memplan_opt")
    assert normalize(r.stdout) == normalize(got[1])
    assert b"begins" not in mlir_opt([*args, "--log-mlir-actions-filter=bufz.mlir:3:8,other.mlir"],
                                     tmp_path / "mlir_opt").stdout


def test_log_shows_actions(tmp_path: Path):
    # The comparison above must compare something: a log with pass runs.
    r = memplan_opt([str(INPUTS / "bufz.mlir"), "--log-actions-to=-", *PIPELINE, *SINGLE_THREAD], tmp_path)
    assert r.returncode == 0
    out = normalize(r.stdout).decode()
    assert out.startswith("[thread T] begins (no breakpoint) Action `pass-execution` running `Canonicalizer`")
    assert "[thread T] completed `pass-execution`\n" in out


PROFILE_CASES = {
    "profile_to_file": ["bufz.mlir", "--profile-actions-to=profile.json", *PIPELINE, *SINGLE_THREAD],
    "profile_and_log": ["bufz.mlir", "--profile-actions-to=profile.json", "--log-actions-to=log.txt", *PIPELINE, *SINGLE_THREAD],
    "profile_to_stdout": ["bufz.mlir", "--profile-actions-to=-", *PIPELINE, *SINGLE_THREAD],
}


@pytest.mark.parametrize("name", sorted(PROFILE_CASES))
def test_profile_like_mlir_opt(name: str, tmp_path: Path):
    want, got = both(PROFILE_CASES[name], tmp_path, files=("profile.json", "log.txt"))
    assert (got[0], normalize(got[1]), normalize(got[2])) == (want[0], normalize(want[1]), normalize(want[2]))
    assert [normalize(f) if f else f for f in got[3]] == [normalize(f) if f else f for f in want[3]]


def test_profile_is_a_trace(tmp_path: Path):
    # A Chrome trace: begin/end pairs per thread, times that do not go back.
    r = memplan_opt([str(INPUTS / "bufz.mlir"), "-o", str(tmp_path / "out.mlir"),
                     f"--profile-actions-to={tmp_path / 'p.json'}", *PIPELINE], tmp_path)
    assert r.returncode == 0
    events = json.loads((tmp_path / "p.json").read_text())
    assert {e["name"] for e in events} == {"pass-execution", "GreedyPatternRewriteIteration", "apply-pattern"}
    depth: dict[int, int] = {}
    for e in events:
        depth[e["tid"]] = depth.get(e["tid"], 0) + (1 if e["ph"] == "B" else -1)
        assert depth[e["tid"]] >= 0
    assert set(depth.values()) == {0}
    assert all(a["ts"] <= b["ts"] for a, b in zip(events, events[1:]) if a["tid"] == b["tid"])
    passes = [e for e in events if e["ph"] == "B" and e["name"] == "pass-execution"]
    assert len(passes) == 2 and "running `CSE`" in passes[1]["args"]["desc"]


def test_bad_counter_is_an_error(tmp_path: Path):
    # mlir-opt reports it and aborts (LLVM ERROR); memplan-opt reports it in
    # mlir-opt's words and exits with 1.
    bufz = str(INPUTS / "bufz.mlir")
    cases = {
        "pass-execution": "error: expected DebugCounter argument to have an `=` separating the counter name "
                          "and value, but the provided argument was: `pass-execution`\n",
        "pass-execution-skip=x": "error: expected DebugCounter counter value to be numeric, but got `x`\n",
        "pass-execution=1": "error: expected DebugCounter counter name to end with either `-skip` or `-count`, "
                            "but got`pass-execution`\n",
    }
    for value, message in cases.items():
        upstream = mlir_opt([bufz, f"--mlir-debug-counter={value}"], tmp_path)
        assert upstream.returncode < 0 or upstream.returncode >= 128
        assert upstream.stderr.decode().startswith(message)
        r = memplan_opt([bufz, f"--mlir-debug-counter={value}"], tmp_path)
        assert (r.returncode, r.stdout, r.stderr.decode()) == (1, b"", message)
