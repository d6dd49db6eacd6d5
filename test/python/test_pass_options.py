"""Pass options are parsed by type, in pipelines and from Python, and bad
values (and option combinations upstream crashes on) are located errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import memplan.passes as passes
from memplan.passes import PassOptionError

INPUTS = Path(__file__).parent / "inputs" / "opt"


@pytest.mark.parametrize("value,expected", [
    (True, True), (False, False), ("true", True), ("false", False), ("1", True), ("0", False),
    (1, True), (0, False), ("False", False),
])
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
    assert passes.one_shot_bufferize(buffer_alignment=value).options["buffer_alignment"] == int(value)


@pytest.mark.parametrize("value", [-1, "-64", 2**64])
def test_buffer_alignment_rejects_what_upstream_rejects(value):
    with pytest.raises(PassOptionError, match="buffer-alignment.*unsigned 64-bit"):
        passes.one_shot_bufferize(buffer_alignment=value)


def test_buffer_alignment_zero_allocates_without_alignment():
    from mlir import ir

    import memplan

    with ir.Context():
        module = ir.Module.parse("func.func @f(%f: f32) -> tensor<4xf32> {\n"
                                 "  %c0 = arith.constant 0 : index\n"
                                 "  %e = tensor.empty() : tensor<4xf32>\n"
                                 "  %0 = tensor.insert %f into %e[%c0] : tensor<4xf32>\n"
                                 "  return %0 : tensor<4xf32>\n}")
        memplan.run_pipeline(module, "builtin.module(memplan-one-shot-bufferize{buffer-alignment=0})")
        assert "memref.alloc() : memref<4xf32>" in str(module)


def test_alignment_in_a_pipeline_is_an_error_at_parse_time():
    from mlir import ir, passmanager

    with ir.Context():
        with pytest.raises(ValueError, match="positive power of two"):
            passmanager.PassManager.parse("builtin.module(memplan-buffer-reuse{alignment=3})")


def _opt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memplan.cli.opt", *args],
                          capture_output=True, text=True)


def test_fuzzer_without_seed_is_diagnosed_not_an_abort():
    r = _opt(str(INPUTS / "bufz.mlir"), "-memplan-one-shot-bufferize=analysis-heuristic=fuzzer")
    assert r.returncode == 1, r.stderr
    assert "needs a non-zero analysis-fuzzer-seed" in r.stderr


def test_copy_before_write_on_a_defined_callee_is_diagnosed_not_a_crash():
    src = INPUTS / "call_writes_arg.mlir"
    r = _opt(str(src), "-memplan-one-shot-bufferize=bufferize-function-boundaries copy-before-write")
    assert r.returncode == 1, r.stderr
    assert f"{src}:8:8: error: memplan-one-shot-bufferize: copy-before-write" in r.stderr
