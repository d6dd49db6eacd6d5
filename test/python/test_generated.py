"""Generated tensor programs (progs/randprog.py ``numeric_program``) through
memplan-memory-pipeline, checked against upstream's pipeline on every path
(progs/gencheck.py): the deallocation verifier, bit-for-bit outputs, clean
heaps (no invalid or double free, no leak, no use after free) and a run-time
heap peak at most upstream's. A fixed, seeded budget; bench/bench_generated.py
runs the long one."""

from __future__ import annotations

import pytest

from progs.gencheck import check_isolated
from progs.randprog import ELEMENTS, Features, numeric_program

#: The short budget: programs and ops per function body.
SEEDS = range(32)
OPS = 8

#: Defects still open (issue #31), by signature (kind and message without
#: locations): a program showing only these is an expected failure, any
#: other defect fails. Each names its owner; the list must end empty.
KNOWN = {
    # deallocation: a memref.alloc whose size folds to a constant loses its
    # manual_deallocation marker, and upstream's deallocation frees it again.
    "heap-fault: double free: memref.dealloc at LOC frees the buffer of memref.alloc at LOC, "
    "which memref.dealloc at LOC freed already": "deallocation",
    "verifier: LOC: error: memplan-verify-deallocation: frees a heap buffer that is already "
    "freed on this path": "deallocation",
    "mismatch: failed assertions differ: {...} vs {...}": "deallocation",
    # deallocation: a function returning its argument (or one buffer twice)
    # under the ABI where the caller owns what a function returns.
    "verifier: LOC: error: memplan-verify-deallocation: returns memory it does not own (a "
    "function argument), but the caller owns and frees what a function returns": "deallocation",
    "verifier: LOC: error: memplan-verify-deallocation: a heap buffer is not freed on a path "
    "through the function": "deallocation",
    "verifier: LOC: error: memplan-verify-deallocation: returns one heap buffer twice: the "
    "caller would free it twice": "deallocation",
    # upstream's ownership-based deallocation aborts (isBeforeInBlock) on cf
    # branches, and memplan-buffer-deallocation hands it those buffers.
    "crash: memplan-memory-pipeline crashes too (killed by signal SIGABRT, in "
    "memplan-buffer-deallocation)": "deallocation",
    # upstream's buffer-deallocation-pipeline frees a buffer a successor
    # block still uses; memplan hands it the same function.
    "use-after-free: after: @main: use after free: an access to byte N of the buffer of "
    "memref.alloc at LOC, freed by memref.dealloc at LOC": "deallocation",
}


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_program(seed):
    program = numeric_program(seed, n_ops=OPS)
    report = check_isolated(program)
    ours = [d for d in report.defects if d.kind != "upstream"]
    unknown = [d for d in ours if d.signature not in KNOWN]
    assert not unknown, "\n".join(map(str, unknown)) + "\n\n" + program.text
    if report.skipped:
        pytest.skip(report.skipped)
    if ours:
        pytest.xfail("; ".join(sorted({f"{KNOWN[d.signature]}: {d.signature}" for d in ours})))
    assert report.paths == 4
    assert all(memplan <= upstream for upstream, memplan in report.peaks)


def test_generator_covers_every_feature():
    # The short budget's programs hold every construct the generator makes.
    text = "".join(numeric_program(seed, n_ops=OPS).text for seed in SEEDS)
    for construct in ("scf.if", "scf.for", "scf.while", "cf.cond_br", "func.call @helper",
                      "func.call @rec", "tensor.extract_slice", "tensor.insert_slice",
                      "tensor.cast", "tensor.expand_shape", "tensor.collapse_shape",
                      "tensor<?x", "tensor.empty(%", "arith.select"):
        assert construct in text, construct
    elements = {numeric_program(seed, n_ops=OPS).features.element for seed in SEEDS}
    assert {"i1", "f16", "i3", "i24", "i48"} <= elements, elements
    assert elements <= set(ELEMENTS)


def test_generator_is_deterministic():
    assert numeric_program(5, n_ops=OPS).text == numeric_program(5, n_ops=OPS).text
    assert numeric_program(5, n_ops=OPS).text != numeric_program(6, n_ops=OPS).text


def test_a_planted_defect_is_found():
    # The bufferization alone frees nothing: the verifier names the leaks.
    program = numeric_program(1, n_ops=OPS, features=Features(element="f32", cf=False))
    report = check_isolated(program, run=False, pipeline=(
        "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map}"))
    assert any(d.kind == "verifier" and "not freed" in d.message for d in report.defects), \
        report.defects
