"""The ``capacity`` option: plans within N bytes are valid and bit-identical
(numerics, poison mode), plans that cannot fit fail with located errors, and
the option's values are checked (memplan.passes.capacity)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from mlir import ir, passmanager
from progs.litcases import lit_cases, parse_text, rewrite, run_reuse
from progs.packing_instances import family

import memplan
import memplan.passes
from memplan import numerics
from memplan.ir import parse_source
from memplan.ir.graph import extract_graph, function_ids
from memplan.lifetimes import LifetimeAnalysis
from memplan.numerics import oracle
from memplan.numerics import transient_runs as runtime
from memplan.passes import PassOptionError
from memplan.passes.capacity import Capacity, parse_capacity
from memplan.reuse import packing
from memplan.reuse.plan import PoolCapacityError, plan_function
from memplan.transients.plan import plan_module

REUSE_CASES = [
    c for c in lit_cases("reuse/capacity.mlir") if c.runnable and "expected-error" not in c.text
]


def _reuse(text: str, **options) -> tuple[str, dict[str, int]]:
    after, stats, check = run_reuse(text, **options)
    assert check.ok, check.violations
    return after, stats


def test_reuse_cases_found():
    assert [c.functions for c in REUSE_CASES] == [["fits"], ["dynamic"]]


@pytest.mark.parametrize("case", REUSE_CASES, ids=str)
def test_reuse_within_capacity_is_bit_identical(case):
    before = parse_text(case.text)
    after, stats = _reuse(case.text, capacity=512)
    assert stats["pools"] == 1 and stats["bytes-after"] <= 512
    for func in case.functions:
        result = numerics.compare(
            before, after, func, poison=True, values={1: 37} if func == "dynamic" else None
        )
        assert result.ok, (func, result.mismatch, result.uninitialized)
        assert oracle.run(after, func).ok, func


def test_transients_within_capacity_are_bit_identical():
    (case,) = [c for c in lit_cases("transients/capacity.mlir") if c.functions == ["fits"]]
    before = parse_text(case.text)
    after = rewrite(
        case.text, "builtin.module(memplan-transients{capacity=2048})", allow_unregistered=False
    )
    with ir.Context():
        index = runtime.storage_index(ir.Module.parse(after), "fits")
    x = np.random.default_rng(0).uniform(-1, 1, 256).astype(np.float32)
    out = np.zeros(256, dtype=np.float32)
    needed = runtime.required_bytes(after, "fits", [x, out])
    assert needed == 2048
    args = [x, out, np.zeros(needed, dtype=np.uint8)]
    result = numerics.compare(before, after, "fits", inputs=args, scratch=[index])
    assert result.ok, str(result)
    assert oracle.run(after, "fits", inputs=args, scratch=[index]).ok


def test_transient_storage_is_whole_alignment_units():
    # 2048 bytes of storage fit in 2048, not in 2047: the storage is laid out
    # in 64-byte units, so 2047 leaves 1984.
    (case,) = [c for c in lit_cases("transients/capacity.mlir") if c.functions == ["fits"]]
    with ir.Context(), ir.Location.unknown():
        graph = extract_graph(parse_source(case.text, "fits.mlir"))
        assert not plan_module(graph, capacity=2048).errors
        (error,) = plan_module(graph, capacity=2047).errors
        assert error.message.endswith(
            "need 2048 bytes, more than the capacity of 2047 bytes"
        ), error.message
        assert len(error.notes) == 2


# --- a hard instance as a program ------------------------------------------------


def _program(starts, ends, sizes) -> str:
    """A function whose buffers live over the given intervals: buffer i is
    allocated and filled at step starts[i], and at step ends[i] its first 64
    bytes are added into the output before it is freed (frees of a step come
    before its allocations, so intervals are half-open)."""
    steps = int(max(ends)) + 1
    lines = ["func.func @hard(%out: memref<64xi8>) {"]
    for i in range(len(sizes)):
        lines.append(f"  %c{i} = arith.constant {i % 113 + 1} : i8")
    for t in range(steps):
        for i in np.nonzero(ends == t)[0].tolist():
            ty = f"memref<{sizes[i]}xi8>"
            lines += [
                f"  %s{i} = memref.subview %b{i}[0] [64] [1] : {ty} to memref<64xi8, strided<[1]>>",
                f"  linalg.add ins(%s{i}, %out : memref<64xi8, strided<[1]>>, memref<64xi8>) "
                f"outs(%out : memref<64xi8>)",
                f"  memref.dealloc %b{i} : {ty}",
            ]
        for i in np.nonzero(starts == t)[0].tolist():
            ty = f"memref<{sizes[i]}xi8>"
            lines += [
                f"  %b{i} = memref.alloc() : {ty}",
                f"  linalg.fill ins(%c{i} : i8) outs(%b{i} : {ty})",
            ]
    lines += ["  return", "}"]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def hard():
    ins = family("cut-narrow", 60, 1)  # the heuristics alone miss its optimum
    return ins, _program(ins.starts, ins.ends, ins.sizes)


def test_budget_exhausted_is_the_smallest_pool_found(hard):
    ins, text = hard
    with ir.Context():
        module = parse_source(text, "hard.mlir")
        graph = extract_graph(module)
        (func,) = function_ids(graph)
        lt = LifetimeAnalysis(graph).function(func)
        assert packing.lower_bound(*lt.items(np.nonzero(lt.eligible)[0])[:3])[1] == ins.optimum
        with pytest.raises(PoolCapacityError) as err:
            plan_function(lt, capacity=ins.optimum, budget=0)
        e = err.value
        assert e.over is None and e.packing_error.result.pool_size > ins.optimum
        text = str(e.packing_error)
        assert text.startswith(
            f"no packing within {ins.optimum} bytes found: the smallest pool found is "
            f"{e.packing_error.result.pool_size} bytes"
        )
        assert text.endswith("the exact search did not run")
        with pytest.raises(PoolCapacityError) as err:
            plan_function(lt, capacity=ins.optimum, budget=1000)
        text = str(err.value.packing_error)
        assert "after 1" in text and text.endswith("of 1000 search steps")


def test_hard_instance_packed_at_its_optimum_is_bit_identical(hard):
    ins, text = hard
    after, stats = _reuse(text, capacity=ins.optimum)
    assert stats["pools"] == 1 and stats["bytes-after"] == ins.optimum
    out = np.zeros(64, dtype=np.int8)
    result = numerics.compare(text, after, "hard", inputs=[out], poison=True)
    assert result.ok, (result.mismatch, result.uninitialized)


# --- liveness ---------------------------------------------------------------------


def test_liveness_statistics_say_whether_functions_fit():
    (case,) = [c for c in lit_cases("lifetimes/capacity.mlir") if c.functions == ["fits"]]
    stats = {}
    for cap, fits in ((512, True), (511, False)):
        with ir.Context():
            module = parse_source(case.text, "fits.mlir")
            p = memplan.passes.buffer_liveness(format="none", capacity=cap)
            pm = passmanager.PassManager("builtin.module")
            p.add_to(pm)
            if fits:
                pm.run(module)
            else:
                with pytest.raises(
                    ir.MLIRError,
                    match=r"the buffers live at point \d+ \(memref.alloc\) need 512 bytes",
                ):
                    pm.run(module)
            stats[cap] = {k: v for k, (v, _) in p.statistics.items()}
    assert stats[512]["capacity-fits"] == 1 and "capacity-over" not in stats[512]
    assert stats[511]["capacity-over"] == 1 and "capacity-fits" not in stats[511]


# --- the option ---------------------------------------------------------------------


def test_parse_capacity():
    assert parse_capacity("") == Capacity() and not parse_capacity("")
    assert parse_capacity(4096) == Capacity(4096) == parse_capacity(" 4096 ")
    cap = parse_capacity("1048576,3:49152")
    assert (cap.of(0), cap.of(1), cap.of(3)) == (1048576, 1048576, 49152)
    only = parse_capacity("3:100")
    assert (only.of(0), only.of(3)) == (None, 100) and only
    for bad, words in (
        ("0", "positive"),
        ("-1", "positive"),
        ("1e3", "expects"),
        ("3:0", "positive"),
        ("1,2", "twice"),
        ("3:1,3:2", "twice"),
        ("a:1", "integer memory space"),
        (True, "expects"),
        (1.5, "expects"),
    ):
        with pytest.raises(ValueError, match=words):
            parse_capacity(bad)


def test_python_api_checks_the_option():
    assert memplan.passes.buffer_reuse(capacity=4096).options["capacity"] == "4096"
    with pytest.raises(
        PassOptionError, match="option 'capacity' must be a positive number of bytes, got '0'"
    ):
        memplan.passes.buffer_reuse(capacity=0)
    with pytest.raises(PassOptionError, match="got 'lots'"):
        memplan.passes.buffer_liveness(capacity="lots")


@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_bad_value_is_one_line_exit_1(tmp_path, value):
    src = tmp_path / "f.mlir"
    src.write_text("func.func @f() {\n  return\n}\n")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "memplan.cli.opt",
            str(src),
            f"--pass-pipeline=builtin.module(memplan-buffer-reuse{{capacity={value}}})",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr
    errors = [line for line in r.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and f"got '{value}'" in errors[0], r.stderr
