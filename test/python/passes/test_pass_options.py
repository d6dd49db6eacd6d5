"""Pass options are parsed by type, in pipelines and from Python, and bad
values (and option combinations upstream crashes on) are located errors.
memplan's passes declare their options as MLIR pass options: memplan-opt's
``--help``, ``--list-passes`` and ``--dump-pass-pipeline`` show them as they
show upstream passes' options, and MLIR's parser reports bad ones."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import memplan.passes as passes
from memplan.passes import PassOptionError
from memplan.reuse import packing

INPUTS = Path(__file__).parents[1] / "inputs" / "opt"
MLIR_OPT = os.path.join(
    list(importlib.util.find_spec("mlir").submodule_search_locations)[0], "bin", "mlir-opt"
)


@pytest.mark.parametrize(
    "value,expected",
    [
        (True, True),
        (False, False),
        ("true", True),
        ("false", False),
        ("1", True),
        ("0", False),
        (1, True),
        (0, False),
        ("False", False),
    ],
)
def test_bool_options_accept_bools_and_their_text(value, expected):
    p = passes.one_shot_bufferize(test_analysis_only=value)
    assert p.options["test_analysis_only"] is expected


@pytest.mark.parametrize("value", ["yes", "", 2, 1.0, None, "tru"])
def test_bool_options_reject_anything_else(value):
    with pytest.raises(PassOptionError, match="test-analysis-only"):
        passes.one_shot_bufferize(test_analysis_only=value)


@pytest.mark.parametrize("value", [64.7, True, "64.0", "x", None])
def test_int_options_reject_non_integers(value):
    with pytest.raises(PassOptionError, match="buffer-alignment"):
        passes.one_shot_bufferize(buffer_alignment=value)


@pytest.mark.parametrize("value", [3, 0, -64, "-1", 96])
def test_memplan_alignments_must_be_positive_powers_of_two(value):
    with pytest.raises(PassOptionError, match="positive power of two"):
        passes.buffer_reuse(alignment=value)


@pytest.mark.parametrize("value", [0, 3, 96, 2**32, 2**64 - 1, "0"])
def test_buffer_alignment_takes_upstreams_values(value):
    """buffer-alignment mirrors upstream's uint64_t option: 0 (no alignment)
    and every other unsigned 64-bit value (upstream's alloc verifier judges
    the rest)."""
    assert passes.one_shot_bufferize(buffer_alignment=value).options["buffer_alignment"] == int(
        value
    )


@pytest.mark.parametrize("value", [-1, "-64", 2**64])
def test_buffer_alignment_rejects_what_upstream_rejects(value):
    with pytest.raises(PassOptionError, match="buffer-alignment.*unsigned 64-bit"):
        passes.one_shot_bufferize(buffer_alignment=value)


def test_buffer_alignment_zero_allocates_without_alignment():
    from mlir import ir

    import memplan

    with ir.Context():
        module = ir.Module.parse(
            "func.func @f(%f: f32) -> tensor<4xf32> {\n"
            "  %c0 = arith.constant 0 : index\n"
            "  %e = tensor.empty() : tensor<4xf32>\n"
            "  %0 = tensor.insert %f into %e[%c0] : tensor<4xf32>\n"
            "  return %0 : tensor<4xf32>\n}"
        )
        memplan.run_pipeline(
            module, "builtin.module(memplan-one-shot-bufferize{buffer-alignment=0})"
        )
        assert "memref.alloc() : memref<4xf32>" in str(module)


def test_alignment_in_a_pipeline_is_an_error_at_parse_time():
    from mlir import ir, passmanager

    with ir.Context():
        with pytest.raises(ValueError, match="positive power of two"):
            passmanager.PassManager.parse("builtin.module(memplan-buffer-reuse{alignment=3})")


def _opt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memplan.cli.opt", *args], capture_output=True, text=True
    )


def _mlir_opt(*args: str) -> subprocess.CompletedProcess:
    r = subprocess.run([MLIR_OPT, *args], capture_output=True, text=True)
    r.stderr = r.stderr.replace(MLIR_OPT, "memplan-opt").replace("mlir-opt", "memplan-opt")
    return r


def test_fuzzer_without_seed_is_diagnosed_not_an_abort():
    r = _opt(str(INPUTS / "bufz.mlir"), "-memplan-one-shot-bufferize=analysis-heuristic=fuzzer")
    assert r.returncode == 1, r.stderr
    assert "needs a non-zero analysis-fuzzer-seed" in r.stderr


def test_copy_before_write_on_a_defined_callee_is_diagnosed_not_a_crash():
    src = INPUTS / "call_writes_arg.mlir"
    r = _opt(
        str(src), "-memplan-one-shot-bufferize=bufferize-function-boundaries copy-before-write"
    )
    assert r.returncode == 1, r.stderr
    assert f"{src}:8:8: error: memplan-one-shot-bufferize: copy-before-write" in r.stderr


def test_help_lists_memplan_pass_options():
    out = _opt("--help").stdout
    block = out[out.index("--memplan-buffer-reuse ") :]
    block = block[: block.index("--memplan-emplace-transients")]
    lines = [line.strip() for line in block.splitlines()]
    assert lines[0].endswith(
        "-   Pack non-overlapping heap allocations into one memref.view pool per scope"
    )
    assert re.sub(r"\s+", " ", lines[1]) == "--algorithm=<value> - packing algorithm"
    assert lines[2:6] == ["=best", "=linear-scan", "=greedy-by-size", "=best-fit"]
    assert (
        re.sub(r"\s+", " ", lines[6])
        == "--alignment=<long> - byte alignment of the pool and of every offset"
    )
    assert re.sub(r"\s+", " ", lines[7]).startswith(
        "--capacity=<string> - bytes each memory space may use: N "
    )
    assert (
        re.sub(r"\s+", " ", lines[8])
        == "--remarks - emit a remark per pool and per allocation left alone"
    )
    # Pipeline aliases show theirs too.
    alias = out[out.index("--memplan-memory-pipeline ") :]
    assert "--promote-to-stack" in alias[: alias.index("--memplan-transients")]


def test_list_passes_shows_options_like_upstream():
    got = _opt("--list-passes").stdout
    want = _mlir_opt("--list-passes").stdout
    # Same layout as an upstream pass with an enum, an int and a bool option.
    upstream = want[want.index("  --one-shot-bufferize") :]
    assert re.search(r"\n {4}--function-boundary-type-conversion=<value> +- ", upstream)
    ours = got[got.index("  --memplan-buffer-reuse") :]
    assert re.search(r"\n {4}--algorithm=<value> +- packing algorithm\n +=best\n", ours)
    assert re.search(r"\n {4}--alignment=<long> +- byte alignment", ours)


def test_dump_pass_pipeline_prints_option_values(tmp_path: Path):
    out = str(tmp_path / "out.mlir")
    bufz = str(INPUTS / "bufz.mlir")
    r = _opt(
        bufz,
        "-o",
        out,
        "--dump-pass-pipeline",
        "--pass-pipeline=builtin.module(memplan-buffer-reuse{alignment=128})",
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr == (
        "Pass Manager with 1 passes:\nbuiltin.module(\n"
        "  memplan-buffer-reuse{algorithm=best alignment=128 capacity= remarks=false "
        f"search-budget={packing.DEFAULT_BUDGET}}}\n)\n\n"
    )
    # A pipeline alias expands to its passes with their values.
    r = _opt(
        bufz,
        "-o",
        out,
        "--dump-pass-pipeline",
        "--pass-pipeline=builtin.module(memplan-memory-pipeline{algorithm=linear-scan alignment=32})",
    )
    assert r.returncode == 0, r.stderr
    assert (
        "  memplan-buffer-reuse{algorithm=linear-scan alignment=32 capacity= remarks=false "
        f"search-budget={packing.DEFAULT_BUDGET}}}\n)"
    ) in r.stderr
    # Flag form.
    r = _opt(bufz, "-o", out, "--dump-pass-pipeline", "-memplan-test-print-graph=stream=stderr")
    assert "  memplan-test-print-graph{stream=stderr}\n" in r.stderr


def test_pass_option_errors_are_mlir_opt_errors():
    bufz = str(INPUTS / "bufz.mlir")

    def err(tool, pipeline):
        r = tool(bufz, f"--pass-pipeline=builtin.module({pipeline})")
        assert r.returncode == 1 and "Traceback" not in r.stderr
        return r.stderr

    # An unknown option: MLIR's parser, MLIR's words.
    assert err(_opt, "memplan-buffer-reuse{nope=1}") == err(
        _mlir_opt, "canonicalize{nope=1}"
    ).replace("canonicalize", "memplan-buffer-reuse")
    # A bad value: LLVM's line as for an upstream pass; where upstream's error
    # is empty (LLVM wrote the reason to stderr only), memplan's says why.
    upstream = (
        err(_mlir_opt, "one-shot-bufferize{function-boundary-type-conversion=nope}")
        .replace("function-boundary-type-conversion", "algorithm")
        .replace("one-shot-bufferize", "memplan-buffer-reuse")
    )
    assert "<unknown>:0: error: \n" in upstream
    assert err(_opt, "memplan-buffer-reuse{algorithm=nope}") == upstream.replace(
        "<unknown>:0: error: \n",
        "<unknown>:0: error: option 'algorithm' must be one of best, linear-scan, greedy-by-size, "
        "best-fit; got 'nope'\n",
    )
    assert err(_opt, "memplan-buffer-reuse{alignment=x}") == (
        "memplan-opt: for the --alignment option: 'x' value invalid for long argument!\n"
        "<unknown>:0: error: option 'alignment' expects int, got 'x'\n"
        "failed to add `memplan-buffer-reuse` with options `alignment=x`\n\n"
    )
    # What only memplan checks is still an error when the pipeline is parsed.
    assert err(_opt, "memplan-buffer-reuse{alignment=100}") == (
        "<unknown>:0: error: option 'alignment' must be a positive power of two, got 100\n"
        "failed to add `memplan-buffer-reuse` with options `alignment=100`\n\n"
    )
    assert "must be a positive power of two" in err(_opt, "memplan-memory-pipeline{alignment=3}")


def test_options_reach_the_pass(tmp_path: Path):
    # The value given on the command line is the one the Python pass runs with.
    src = tmp_path / "al.mlir"
    src.write_text(
        "func.func @f() {\n  %0 = memref.alloc() : memref<16xf32>\n"
        "  %1 = memref.alloc() : memref<8xf32>\n  memref.dealloc %0 : memref<16xf32>\n"
        "  memref.dealloc %1 : memref<8xf32>\n  return\n}\n"
    )
    out = tmp_path / "out.mlir"
    for alignment in ("64", "128"):
        r = _opt(str(src), "-o", str(out), f"-memplan-buffer-reuse=alignment={alignment}")
        assert r.returncode == 0, r.stderr
        text = out.read_text()
        assert "memref.alloc() {alignment = " + alignment + " : i64}" in text, text


def test_verbosity_level_filters_memplan_remarks(tmp_path: Path):
    src = tmp_path / "al.mlir"
    src.write_text(
        "func.func @f() -> memref<16xf32> {\n  %0 = memref.alloc() : memref<16xf32>\n"
        "  return %0 : memref<16xf32>\n}\n"
    )
    args = [
        str(src),
        "-o",
        str(tmp_path / "out.mlir"),
        "-memplan-buffer-liveness=remarks=true format=none",
    ]
    r = _opt(*args)
    assert r.returncode == 0 and "remark: not poolable: escapes-return" in r.stderr
    r = _opt(*args, "--mlir-diagnostic-verbosity-level=warnings")
    assert r.returncode == 0 and r.stderr == ""
