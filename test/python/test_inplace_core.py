"""The C++ in-place core against the Python reference analysis.

With ``analysis-engine=cpp`` the pass fails where the core declines; every
input it takes must give byte-identical output to ``analysis-engine=python``
(the reference, itself checked against upstream in test_inplace.py). The
acceptance floor keeps the comparison from passing by declining everything.
"""

from __future__ import annotations

import glob
import os

import pytest
from mlir import ir

import memplan
from memplan.inplace import fast
from memplan.inplace.analysis import Options
from progs.randprog import random_program
from memplan.ir.parse import parse_source, split_input

LIT_INPLACE = os.path.join(os.path.dirname(__file__), "..", "lit", "inplace")

CORE_OPTION_SETS = [
    "bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops",
    "bufferize-function-boundaries test-analysis-only",
    "test-analysis-only allow-return-allocs-from-loops",
    "bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops analysis-heuristic=top-down",
    "bufferize-function-boundaries test-analysis-only allow-unknown-ops analysis-heuristic=fuzzer "
    "analysis-fuzzer-seed=11",
    "bufferize-function-boundaries test-analysis-only analysis-heuristic=bottom-up-from-terminators",
]


def run(text: str, options: str) -> tuple[int, str]:
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = parse_source(text, "<stdin>", ctx)
        try:
            memplan.run_pipeline(module, f"builtin.module(memplan-one-shot-bufferize{{{options}}})")
        except ir.MLIRError as err:
            return 1, str(err)
        return 0, str(module)


def compare(text: str, options: str) -> bool:
    """True if the core took the input (and then matched the reference)."""
    core = run(text, options + " analysis-engine=cpp")
    if core[0] != 0:
        assert "the C++ core does not handle this input" in core[1]
        return False
    assert core == run(text, options + " analysis-engine=python")
    return True


@pytest.mark.parametrize("chunk", range(4))
def test_core_matches_reference_on_random_programs(chunk):
    taken = total = 0
    for seed in range(chunk * 20, chunk * 20 + 20):
        extra = ("while", "forall", "materialize") if seed % 2 else ()
        text = random_program(5000 + seed, n_ops=12 + seed % 16, extra=extra)
        for options in CORE_OPTION_SETS:
            total += 1
            taken += compare(text, options)
    # The core declines only what the reference rejects too (RaW conflicts
    # that cannot be avoided, loops yielding non-equivalent values): random
    # programs hit those often.
    assert taken >= total // 3


def test_core_declines_only_inputs_the_reference_rejects():
    for seed in range(30):
        text = random_program(7000 + seed, n_ops=16, extra=("while", "forall") if seed % 2 else ())
        for options in CORE_OPTION_SETS[:3]:
            if run(text, options + " analysis-engine=cpp")[0] != 0:
                assert run(text, options + " analysis-engine=python")[0] != 0


def test_core_matches_reference_on_lit_corpus():
    taken = 0
    for path in sorted(glob.glob(os.path.join(LIT_INPLACE, "*.mlir"))):
        for chunk in split_input(open(path).read(), True):
            for options in CORE_OPTION_SETS[1:4] + CORE_OPTION_SETS[5:]:
                try:
                    taken += compare(chunk.text, options)
                except ir.MLIRError:
                    continue  # chunks that do not parse on their own
    assert taken >= 150




def _shared_read_chain(n: int) -> str:
    body = []
    prev = "%arg0"
    for i in range(n):
        body.append(f"  %e{i} = tensor.empty() : tensor<16xf32>")
        body.append(
            f"  %v{i} = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,"
            f" affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]}} ins({prev}, %arg0 : tensor<16xf32>,"
            f" tensor<16xf32>) outs({'%arg0' if i % 7 == 3 else f'%e{i}'} : tensor<16xf32>) {{")
        body.append("  ^bb0(%a: f32, %b: f32, %o: f32):")
        body.append("    %s = arith.addf %a, %b : f32")
        body.append("    linalg.yield %s : f32")
        body.append("  } -> tensor<16xf32>")
        prev = f"%v{i}"
    return ("func.func @chain(%arg0: tensor<16xf32>) -> tensor<16xf32> {\n" + "\n".join(body)
            + f"\n  return %v{n - 1} : tensor<16xf32>\n}}\n")


def test_core_api_on_a_long_chain_with_writes_into_the_shared_read():
    text = _shared_read_chain(60)
    with ir.Context():
        module = parse_source(text, "chain.mlir")
        fa = fast.analyze(module.operation, Options(bufferize_function_boundaries=True))
        assert fa.ok, fa.result.decline_reason
        assert [s for s in fa.result.scopes] == [1]
        # Writes into %arg0 while later generics still read it: out of place.
        assert 0 < fa.num_inplace() < int(fa.result.decided.sum())
    assert compare(text, "bufferize-function-boundaries test-analysis-only")


def test_core_rejects_options_it_leaves_to_the_reference():
    with ir.Context():
        module = parse_source("func.func @f() { return }", "f.mlir")
        with pytest.raises(ValueError, match="print-conflicts"):
            fast.analyze(module.operation, Options(print_conflicts=True))
    assert fast.unsupported_options(Options(analysis_heuristic="min-copy-bytes"))
    assert fast.unsupported_options(Options()) is None


REWRITE_OPTION_SETS = [
    "bufferize-function-boundaries",
    "bufferize-function-boundaries allow-return-allocs-from-loops",
    "allow-return-allocs-from-loops analysis-heuristic=top-down",
]


def test_core_rewrite_mode_matches_reference():
    """Rewrite mode with the core's decisions and copy plan gives the same
    memref IR as with the Python reference's (which equals upstream's, see
    test_inplace.py)."""
    taken = total = 0
    for seed in range(40):
        text = random_program(9000 + seed, n_ops=14, extra=("while", "forall") if seed % 3 == 0 else ())
        for options in REWRITE_OPTION_SETS:
            total += 1
            taken += compare(text, options)
    assert taken >= total // 3


def test_core_rewrite_mode_on_lit_corpus():
    taken = 0
    for path in sorted(glob.glob(os.path.join(LIT_INPLACE, "*.mlir"))):
        for chunk in split_input(open(path).read(), True):
            try:
                taken += compare(chunk.text, "bufferize-function-boundaries")
            except ir.MLIRError:
                continue
    assert taken >= 50


def _statistics(stderr: str) -> dict:
    stats = {}
    for line in stderr.splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[0] == "(S)":
            stats[parts[2]] = int(parts[1])
    return stats


def test_core_rewrite_mode_statistics(tmp_path):
    """Rewrite mode runs no upstream analysis: the statistics of the decided
    bufferization (allocations, operands in and out of place) and its output
    equal upstream's one-shot-bufferize."""
    import subprocess
    import sys

    src = tmp_path / "chain.mlir"
    src.write_text(_shared_read_chain(30))
    exe = os.path.join(os.path.dirname(sys.executable), "memplan-opt")
    p = subprocess.run([exe, str(src), "--mlir-pass-statistics", "--pass-pipeline="
                        "builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    ours = _statistics(p.stderr)
    assert ours["cpp-core"] == 1
    import importlib.util

    mlir_opt = os.path.join(list(importlib.util.find_spec("mlir").submodule_search_locations)[0], "bin", "mlir-opt")
    up = subprocess.run([mlir_opt, str(src), "--one-shot-bufferize=bufferize-function-boundaries",
                         "--mlir-pass-statistics"], capture_output=True, text=True)
    assert up.returncode == 0 and p.stdout == up.stdout
    theirs = _statistics(up.stderr)
    assert ours["num-tensor-out-of-place"] > 0
    for key in ("num-buffer-alloc", "num-tensor-in-place", "num-tensor-out-of-place"):
        assert ours[key] == theirs[key], key


def _stats_and_output(text: str, options: str) -> tuple[int, dict, str]:
    import subprocess
    import sys

    exe = os.path.join(os.path.dirname(sys.executable), "memplan-opt")
    p = subprocess.run([exe, "-", "--mlir-pass-statistics",
                        f"--pass-pipeline=builtin.module(memplan-one-shot-bufferize{{{options}}})"],
                       input=text, capture_output=True, text=True)
    stats = {}
    for line in p.stderr.splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[0] == "(S)":
            stats[parts[2]] = int(parts[1])
    return p.returncode, stats, p.stdout


def test_min_copy_bytes_reports_every_order_and_engines_agree():
    differing = 0
    for seed in range(24):
        text = random_program(3000 + seed, n_ops=16, loops=seed % 2 == 0)
        options = "bufferize-function-boundaries test-analysis-only analysis-heuristic=min-copy-bytes"
        rc, fast_stats, fast_out = _stats_and_output(text, options)
        rc_py, py_stats, py_out = _stats_and_output(text, options + " analysis-engine=python")
        assert rc == rc_py
        if rc != 0:
            continue
        assert fast_out == py_out
        fast_stats.pop("cpp-core", None)
        py_stats.pop("python-reference", None)
        assert fast_stats == py_stats
        costs = {k[len("copy-bytes-"):]: v for k, v in fast_stats.items() if k.startswith("copy-bytes-")}
        orders = ["bottom-up", "top-down", "bottom-up-from-terminators", "fuzzer-1", "fuzzer-2", "fuzzer-3"]
        chosen = orders[fast_stats["min-copy-bytes-choice"]]
        assert costs[chosen] == min(costs.values()) <= costs["bottom-up"]
        differing += len(set(costs.values())) > 1
    assert differing >= 1  # some program where the order matters
