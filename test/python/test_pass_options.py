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
def test_alignments_must_be_positive_powers_of_two(value):
    with pytest.raises(PassOptionError, match="positive power of two"):
        passes.one_shot_bufferize(buffer_alignment=value)
    with pytest.raises(PassOptionError, match="positive power of two"):
        passes.buffer_reuse(alignment=value)


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
