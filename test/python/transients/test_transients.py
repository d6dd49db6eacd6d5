"""External transient storage: plans, rewrites checked through the ExecutionEngine."""

from pathlib import Path

import numpy as np
import pytest
from mlir import ir

import memplan
from memplan import numerics
from memplan.ir import extract_graph, parse_source
from memplan.ir import sizeexpr as E
from memplan.numerics import oracle
from memplan.numerics import transient_runs as runtime
from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION as BUFFERIZE
from memplan.transients.emplace import ASSERT_MESSAGE
from memplan.transients.plan import plan_module

INPUTS = Path(__file__).parents[1] / "inputs" / "transients"
EXAMPLES = Path(__file__).parents[3] / "examples"


def storage_arg(module, fn="entry") -> int:
    return runtime.storage_index(ir.Module.parse(str(module)), fn)


def emplaced(text: str, name: str, prelude: str = ""):
    before = parse_source(text, name)
    if prelude:
        memplan.run_pipeline(before, f"builtin.module({prelude})")
    after = parse_source(str(before), name)
    memplan.run_pipeline(after, "builtin.module(memplan-transients)")
    return before, after


def check_program(before, after, fn, inputs, heap_after_allocs):
    """Outputs equal bit for bit with poisoned storage of the queried size;
    the transients make no heap allocation; one byte less trips the assert."""
    with_storage = runtime.run(after, fn, *inputs)
    assert not with_storage.failed_asserts
    index = runtime.storage_index(ir.Module.parse(str(after)), fn)
    storage = np.zeros(with_storage.storage_bytes, dtype=np.uint8)
    args = list(inputs[:index]) + [storage] + list(inputs[index:])
    result = numerics.compare(before, after, fn, inputs=args, scratch=[index])
    assert result.ok, str(result)
    assert result.heap_after.allocations == heap_after_allocs
    assert result.heap_before.allocations > heap_after_allocs
    small = runtime.run(after, fn, *inputs, storage_bytes=with_storage.storage_bytes - 1)
    assert any(ASSERT_MESSAGE in m for m in small.failed_asserts)
    return with_storage


def test_bufferized_mlp_example(ctx):
    text = (EXAMPLES / "mlp.mlir").read_text()
    before, after = emplaced(
        text, "mlp.mlir", f"{BUFFERIZE},memplan-add-transient-storage{{func=mlp}}"
    )
    rng = np.random.default_rng(0)
    inputs = [
        rng.uniform(-1, 1, (16, 64)).astype(np.float32),
        rng.uniform(-1, 1, (64, 128)).astype(np.float32),
        rng.uniform(-1, 1, (128,)).astype(np.float32),
        rng.uniform(-1, 1, (128, 32)).astype(np.float32),
    ]
    # Only the returned result stays on the heap.
    run = check_program(before, after, "mlp", inputs, heap_after_allocs=1)
    # Two 16x128 f32 intermediates live at once: 2 * 8192 bytes.
    assert run.storage_bytes == 16384
    assert "memplan.transient_size = 16384 : index" in str(after)


def test_control_flow_and_dynamic_sizes(ctx):
    before, after = emplaced((INPUTS / "control.mlir").read_text(), "control.mlir")
    for n, cond in [(9, True), (9, False), (1, True), (33, False)]:
        x = np.linspace(-2, 2, n).astype(np.float32)
        out = np.zeros(n, dtype=np.float32)
        run = check_program(before, after, "entry", [x, np.bool_(cond), out], heap_after_allocs=0)
        # acc, the branch buffer and the loop buffer bounded by n: each 4n
        # bytes rounded to 64, plus the 32-float buffer in the else branch.
        slot = -(-4 * n // 64) * 64
        assert run.storage_bytes == 128 + slot + slot


def test_calls_through_two_levels(ctx):
    before, after = emplaced((INPUTS / "calls.mlir").read_text(), "calls.mlir")
    x = np.arange(10, dtype=np.float32)
    out = np.zeros(10, dtype=np.float32)
    # %b is passed to a call, so it escapes and stays on the heap.
    check_program(before, after, "entry", [x, out], heap_after_allocs=1)


def test_plan_api(ctx):
    module = parse_source((INPUTS / "control.mlir").read_text(), "control.mlir")
    plan = plan_module(extract_graph(module))
    assert not plan.errors
    fp = plan.functions["entry"]
    assert fp.storage_index == 3
    kinds = sorted(isinstance(item.size, E.Const) for item in fp.items)
    assert kinds == [False, False, False, True]
    assert any(item.bound for item in fp.items)
    env = {leaf: 10 for leaf in E.leaves(fp.total)}
    assert E.evaluate(fp.total, env.__getitem__) == 128 + 64 + 64


def test_plan_reports_errors(ctx):
    module = parse_source(
        "func.func private @p(%s: memref<?xi8> {memplan.transients}) { return }", "e.mlir"
    )
    plan = plan_module(extract_graph(module))
    assert [d.message for d in plan.errors] == [
        "memplan.transients on private function @p: only public functions take caller storage"
    ]


def test_run_requires_storage_argument(ctx):
    with pytest.raises(ValueError, match="no memplan.transients storage"):
        runtime.storage_index(ir.Module.parse("func.func @f() { return }"), "f")


# --- every runnable lit case, checked through the ExecutionEngine -----------

from progs.litcases import lit_cases, nested_module, parse_text, rewrite  # noqa: E402

from memplan.numerics.signature import entry_signature  # noqa: E402

_STORAGE_FUNC = __import__("re").compile(
    r"^\s*func\.func\s+@(\w+)\(.*\{memplan\.transients\}", __import__("re").M
)


def _storage_cases():
    out = []
    for case in lit_cases(
        "transients/annotate.mlir",
        "transients/emplace.mlir",
        "transients/calls.mlir",
        "transients/guarded.mlir",
        "transients/signatures.mlir",
        "transients/branches.mlir",
    ):
        if not case.runnable:
            continue
        for fn in _STORAGE_FUNC.findall(case.text):
            out.append(pytest.param(case, fn, id=f"{case}:{fn}"))
    return out


def _inputs(module_text: str, fn: str, storage: int, rng) -> list:
    sig = entry_signature(ir.Module.parse(module_text), fn)
    values = []
    for i, spec in enumerate(sig.args):
        if i == storage:
            continue
        if spec.is_memref:
            shape = tuple(s if s is not None else 9 for s in spec.shape)
            values.append(rng.uniform(-1, 1, shape).astype(spec.dtype))
        elif spec.dtype == np.bool_:
            values.append(np.bool_(rng.integers(0, 2)))
        else:
            values.append(spec.dtype.type(rng.integers(1, 9)))
    return values


@pytest.mark.parametrize("case, fn", _storage_cases())
def test_lit_case_numerics(case, fn):
    with ir.Context():
        before = parse_text(case.text)
        after = rewrite(case.text, "builtin.module(memplan-transients)", allow_unregistered=False)
        index = runtime.storage_index(ir.Module.parse(after), fn)
        for seed in (0, 1):
            inputs = _inputs(after, fn, index, np.random.default_rng(seed))
            needed = runtime.required_bytes(after, fn, inputs)
            storage = np.zeros(needed, dtype=np.uint8)
            args = list(inputs[:index]) + [storage] + list(inputs[index:])
            result = numerics.compare(before, after, fn, inputs=args, scratch=[index])
            assert result.ok, f"{case} @{fn}: {result}"
            assert oracle.run(after, fn, inputs=args, scratch=[index]).ok
            assert result.heap_after.allocations <= result.heap_before.allocations
            if needed:
                small = runtime.run(after, fn, *inputs, storage_bytes=needed - 1)
                assert any(ASSERT_MESSAGE in m for m in small.failed_asserts)


@pytest.mark.parametrize("size, aborts", [(2048, False), (2047, True)])
def test_size_assert_aborts_in_plain_lowering(tmp_path, size, aborts):
    """Without memplan's assert hooks the cf.assert aborts the process when the
    storage is one byte short (so it runs in a subprocess)."""
    import subprocess
    import sys

    text = (Path(__file__).parents[2] / "lit" / "transients" / "emplace.mlir").read_text()
    chunk = text[text.index("\nfunc.func @static_pair") + 1 :]
    src = tmp_path / "static_pair.mlir"
    src.write_text(chunk[: chunk.index("\n}\n") + 3])
    script = Path(__file__).parents[1] / "helpers" / "run_static_pair.py"
    r = subprocess.run(
        [sys.executable, str(script), str(src), str(size)], capture_output=True, text=True
    )
    if aborts:
        assert r.returncode != 0
        assert ASSERT_MESSAGE in r.stdout + r.stderr
    else:
        assert r.returncode == 0, r.stderr
        assert "returned [1. 1. 1.]" in r.stdout


@pytest.mark.parametrize("d", [0, 3])
def test_guarded_size_is_not_hoisted_out_of_its_guard(d):
    """With %d = 0 the guard skips the division: the rewritten function and
    its size query must not divide either (they used to die of SIGFPE)."""
    case = next(c for c in lit_cases("transients/guarded.mlir") if "@guarded_divui(" in c.text)
    with ir.Context():
        before = parse_text(case.text)
        after = rewrite(case.text, "builtin.module(memplan-transients)", allow_unregistered=False)
        out = np.arange(64, dtype=np.float32)
        needed = runtime.required_bytes(after, "guarded_divui", [np.int64(d), out])
        assert needed == 256  # 64 f32: the quotient's bound
        storage = np.zeros(needed, dtype=np.uint8)
        result = numerics.compare(
            before, after, "guarded_divui", inputs=[np.int64(d), out, storage], scratch=[2]
        )
        assert result.ok, str(result)


MOE = Path(__file__).parents[4] / "shared" / "workloads" / "moe_scf_if.mlir"


@pytest.mark.skipif(not MOE.exists(), reason="needs ../shared/workloads/moe_scf_if.mlir")
def test_transients_never_larger_than_one_pool_of_the_same_buffers(ctx):
    """One planner: the experts' branch buffers share bytes in transient
    storage as in buffer reuse (the issue measured 17.8 MB of storage against
    14.7 MB of pool)."""
    from memplan.ir.graph import function_ids, function_name
    from memplan.lifetimes import LifetimeAnalysis
    from memplan.liveness.report import pool_layout

    module = parse_source(MOE.read_text(), "moe.mlir")
    memplan.run_pipeline(module, f"builtin.module({BUFFERIZE})")
    graph = extract_graph(module)
    (f,) = [f for f in function_ids(graph) if function_name(graph, f) == "forward"]
    _, pool = pool_layout(LifetimeAnalysis(graph).function(f))
    memplan.run_pipeline(
        module, "builtin.module(memplan-add-transient-storage{func=forward}, memplan-transients)"
    )
    forward = next(
        op
        for op in module.regions[0].blocks[0].operations
        if op.operation.name == "func.func"
        and ir.StringAttr(op.attributes["sym_name"]).value == "forward"
    )
    storage = ir.IntegerAttr(forward.attributes["memplan.transient_size"]).value
    assert storage <= -(-pool["size"] // 64) * 64


def test_callee_sized_through_a_cast_of_the_callers_argument():
    """The callee's size reads a memref.cast of the caller's argument (it was
    "cannot be hoisted"): the rewrite keeps the outputs bit for bit with
    poisoned storage of the queried (static) size, and no heap allocation."""
    case = next(c for c in lit_cases("transients/calls.mlir") if "@through_cast(" in c.text)
    with ir.Context():
        before = parse_text(case.text)
        after = rewrite(case.text, "builtin.module(memplan-transients)", allow_unregistered=False)
        x = np.random.default_rng(0).uniform(-1, 1, 8).astype(np.float32)
        needed = runtime.required_bytes(after, "through_cast", [x])
        assert needed == 64
        storage = np.zeros(needed, dtype=np.uint8)
        result = numerics.compare(before, after, "through_cast", inputs=[x, storage], scratch=[1])
        assert result.ok, str(result)
        assert result.heap_after.allocations == 0 < result.heap_before.allocations
        assert oracle.run(after, "through_cast", inputs=[x, storage], scratch=[1]).ok


def test_nested_module_is_planned_bit_identical():
    """A nested module's functions with storage are emplaced (they were
    skipped): the nested module, before and after, runs as a module of its
    own, with poisoned storage of the queried size and no heap allocation."""
    text = (Path(__file__).parents[2] / "lit" / "transients" / "nested-modules.mlir").read_text()
    with ir.Context():
        after = rewrite(text, "builtin.module(memplan-transients)", allow_unregistered=False)
    before_inner, after_inner = nested_module(text, "inner"), nested_module(after, "inner")
    with ir.Context():
        x = np.random.default_rng(0).uniform(-1, 1, 128).astype(np.float32)
        needed = runtime.required_bytes(after_inner, "scale", [x])
        assert needed == 512
        storage = np.zeros(needed, dtype=np.uint8)
        result = numerics.compare(
            before_inner, after_inner, "scale", inputs=[x, storage], scratch=[1]
        )
        assert result.ok, str(result)
        assert result.heap_after.allocations == 0 < result.heap_before.allocations


@pytest.mark.parametrize(
    "fn, args, needed",
    [
        ("affine_loop", [], 256),  # affine.for: LoopLikeOpInterface
        ("affine_min", [np.int64(40)], 128),  # ValueBoundsOpInterface
        ("subtraction", [np.int64(10)], 64),  # arith.subi: ValueBoundsOpInterface
    ],
)
def test_sizes_bounded_by_interfaces_run_bit_identical(fn, args, needed):
    """Sizes over-allocated to the bounds interfaces state (no op name lists
    them): the storage holds every iteration's buffer, outputs match bit for
    bit, and the overlap oracle sees no two live views share bytes."""
    case = next(c for c in lit_cases("transients/interface-bounds.mlir") if f"@{fn}(" in c.text)
    with ir.Context():
        before = parse_text(case.text)
        after = rewrite(case.text, "builtin.module(memplan-transients)", allow_unregistered=False)
        out = np.zeros(64, dtype=np.float32)
        assert runtime.required_bytes(after, fn, args + [out]) == needed
        inputs = args + [out, np.zeros(needed, dtype=np.uint8)]
        result = numerics.compare(before, after, fn, inputs=inputs, scratch=[len(args) + 1])
        assert result.ok, str(result)
        seen = oracle.run(str(after), fn, inputs=inputs, scratch=[len(args) + 1])
        assert seen.views > 0 and seen.ok
