"""The interface engine (lib/Inplace/, ``_core.run_interface_engine``) against
upstream ``mlir-opt --one-shot-bufferize``.

The engine takes op semantics from the BufferizableOpInterface and writes
its decisions into upstream's OneShotAnalysisState; in test-analysis-only
mode its annotations, in rewrite mode the memref IR of upstream's copy
insertion and bufferization on that state, must equal mlir-opt's output byte
for byte (including failing exactly where mlir-opt fails). mlir-opt runs once
per file and option set (``--split-input-file``) to keep the test fast.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import subprocess
from typing import Optional

import pytest
from mlir import ir
from progs.randprog import random_program

import memplan.passes
from memplan import _core
from memplan.ir.parse import parse_source, split_input

HERE = os.path.dirname(os.path.dirname(__file__))
LIT_INPLACE = os.path.join(HERE, "..", "lit", "inplace")
NEW_OPS = os.path.join(HERE, "inputs", "interface_engine_ops.mlir")
MLIR_OPT = os.path.join(
    list(importlib.util.find_spec("mlir").submodule_search_locations)[0], "bin", "mlir-opt"
)
SEPARATOR = "// -----\n"

ANALYSIS_OPTION_SETS = [
    "bufferize-function-boundaries test-analysis-only",
    "bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops "
    "analysis-heuristic=bottom-up-from-terminators dump-alias-sets",
    "test-analysis-only allow-return-allocs-from-loops analysis-heuristic=top-down dump-alias-sets",
    "bufferize-function-boundaries test-analysis-only allow-unknown-ops analysis-heuristic=fuzzer "
    "analysis-fuzzer-seed=11",
    "bufferize-function-boundaries test-analysis-only check-parallel-regions=false no-analysis-func-filter=skipped",
]
# Only on programs without unregistered ops: upstream's dialect filter
# dereferences their (null) dialect and crashes.
DIALECT_FILTER = (
    "test-analysis-only allow-return-allocs-from-loops dialect-filter=tensor,bufferization"
)
REWRITE_OPTION_SETS = [
    "bufferize-function-boundaries",
    "bufferize-function-boundaries allow-return-allocs-from-loops function-boundary-type-conversion=identity-layout-map",
    "allow-return-allocs-from-loops analysis-heuristic=top-down",
    "check-parallel-regions=false allow-unknown-ops unknown-type-conversion=identity-layout-map",
]
PRINT_CONFLICTS = "bufferize-function-boundaries test-analysis-only print-conflicts"


def engine_kwargs(options: str) -> dict:
    """`one-shot-bufferize` option text as run_interface_engine arguments
    (parsed by MLIR as memplan-one-shot-bufferize's options), deciding as
    upstream does where upstream misses a conflict under unstructured
    control flow (cfg-conflicts-as-upstream; test_inplace_unmodeled.py
    proves memplan's own decision there by runs)."""
    values = memplan.passes.parse_option_text(
        memplan.passes.lookup("memplan-one-shot-bufferize"), options + " cfg-conflicts-as-upstream"
    )
    return {
        "options": values,
        "analysis_heuristic": values["analysis_heuristic"],
        "analysis_fuzzer_seed": values["analysis_fuzzer_seed"],
    }


def engine(text: str, options: str, ctx: Optional[ir.Context] = None) -> Optional[str]:
    """The engine's output for one chunk: the module text, "" when the
    analysis or rewrite failed, None when the chunk does not parse."""
    if ctx is None:
        with ir.Context() as fresh:
            fresh.allow_unregistered_dialects = True
            return engine(text, options, fresh)
    with ctx:
        try:
            module = parse_source(text, "<chunk>", ctx)
        except ir.MLIRError:
            return None
        handler = ctx.attach_diagnostic_handler(lambda d: True)
        try:
            result = _core.run_interface_engine(module.operation._CAPIPtr, **engine_kwargs(options))
            if result.ok:
                # mlir-opt verifies after the pass: IR that does not verify
                # (a memref.alloc upstream built wrongly, say) is a failure.
                try:
                    result_ok = module.operation.verify()
                except ir.MLIRError:
                    result_ok = False
            else:
                result_ok = False
        finally:
            handler.detach()
        return str(module).strip() if result_ok else ""


def upstream(texts: list[str], options: str) -> list[str]:
    """mlir-opt's output per chunk ("" where it failed or crashed), one
    process for all; one process per chunk if mlir-opt crashes (as it does on
    some inputs, which the engine must reject with a diagnostic)."""
    p = subprocess.run(
        [
            MLIR_OPT,
            "-",
            "--allow-unregistered-dialect",
            "--split-input-file",
            f"--one-shot-bufferize={options}",
        ],
        input=("\n" + SEPARATOR).join(texts),
        capture_output=True,
        text=True,
        env=dict(os.environ, LLVM_DISABLE_SYMBOLIZATION="1"),
    )
    outputs = [o.strip() for o in p.stdout.split(SEPARATOR)]
    if p.returncode in (0, 1) and len(outputs) == len(texts):
        return outputs
    if len(texts) == 1:
        return [""]  # a crash: the engine must fail (with a diagnostic) there
    return [out for text in texts for out in upstream([text], options)]


def compare(texts: list[str], options: str, normalize=lambda s: s) -> int:
    """Asserts engine == mlir-opt on every chunk that parses; returns how
    many of them mlir-opt processed successfully."""
    expected = upstream(texts, options)
    succeeded = 0
    ctx = ir.Context()  # one context for all chunks: creating one costs more than a run
    ctx.allow_unregistered_dialects = True
    for i, (text, want) in enumerate(zip(texts, expected)):
        got = engine(text, options, ctx)
        if got is None:
            continue
        assert normalize(got) == normalize(want), f"chunk {i} under '{options}':\n{text}"
        succeeded += bool(want)
    return succeeded


@pytest.fixture(scope="module")
def lit_corpus() -> list[list[str]]:
    """The `// -----` chunks of test/lit/inplace/*.mlir, per file."""
    return [
        [c.text for c in split_input(open(path).read(), True)]
        for path in sorted(glob.glob(os.path.join(LIT_INPLACE, "*.mlir")))
    ]


def compare_corpus(corpus: list[list[str]], options: str, normalize=lambda s: s) -> int:
    return sum(compare(texts, options, normalize) for texts in corpus)


@pytest.mark.parametrize("options", ANALYSIS_OPTION_SETS + REWRITE_OPTION_SETS)
def test_lit_corpus_matches_upstream(lit_corpus, options):
    assert compare_corpus(lit_corpus, options) >= 60


def test_random_programs_match_upstream():
    texts = []
    for seed in range(20):
        extra = ("while", "forall", "materialize") if seed % 2 else ()
        texts.append(random_program(31000 + seed, n_ops=10 + seed % 20, extra=extra))
    option_sets = ANALYSIS_OPTION_SETS + REWRITE_OPTION_SETS + [DIALECT_FILTER]
    # Random programs often hit what upstream rejects (unavoidable RaW
    # conflicts, loops yielding non-equivalent buffers, mostly without
    # allow-return-allocs-from-loops): failing the same way is part of the
    # match, but programs must go through under every option set.
    succeeded = [compare(texts, options) for options in option_sets]
    assert min(succeeded) >= 1 and sum(succeeded) >= len(option_sets) * len(texts) // 4, succeeded


def test_ops_outside_memplans_tables_match_upstream():
    """tensor.pad, tensor.concat, linalg.pack/unpack, shape.assuming and a
    multi-block scf.execute_region: semantics come from their interfaces."""
    texts = [c.text for c in split_input(open(NEW_OPS).read(), True)]
    assert compare(texts, ANALYSIS_OPTION_SETS[0]) == len(texts)
    assert compare(texts, ANALYSIS_OPTION_SETS[2]) == len(texts)
    # linalg.pack/unpack do not bufferize in MLIR 22: both fail on them.
    assert compare(texts, REWRITE_OPTION_SETS[0]) == len(texts) - 2


_CONFLICT_ATTR = re.compile(r'"[CW]_\d+\[[^\]]*\]"')


def _without_conflict_marks(text: str) -> str:
    """The IR without print-conflicts' `C_<i>[...]`/`W_<i>[...]` attributes,
    plus how many conflicts and non-writable values were marked."""
    if not text:
        return text
    ids = {m.group(0).split("[")[0] for m in _CONFLICT_ATTR.finditer(text)}
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse(text)

        def strip(op):
            names = [n for n in op.attributes if _CONFLICT_ATTR.fullmatch(f'"{n}"')]
            for name in names:
                del op.attributes[name]
            return ir.WalkResult.ADVANCE

        module.operation.walk(strip)
        return f"{sorted(i[0] for i in ids)}\n{module}"


def test_print_conflicts_decisions_match_upstream(lit_corpus):
    """With print-conflicts the decisions and the number of conflicts match.
    Which (read, write) pair upstream reports for a decision with several
    conflicting pairs follows the iteration order of a DenseSet of pointers
    (addresses of mlir-opt's process), so the marks themselves are compared
    only where the pair is unique (see the next test)."""
    assert compare_corpus(lit_corpus, PRINT_CONFLICTS, _without_conflict_marks) >= 60


PRINT_CONFLICTS_UNIQUE = """
func.func @read_after_write(%t: tensor<8xf32>, %f: f32, %i: index) -> (tensor<8xf32>, f32) {
  %w = tensor.insert %f into %t[%i] : tensor<8xf32>
  %r = tensor.extract %t[%i] : tensor<8xf32>
  return %w, %r : tensor<8xf32>, f32
}
"""


def test_print_conflicts_marks_match_upstream_for_a_unique_pair():
    got = engine(PRINT_CONFLICTS_UNIQUE, PRINT_CONFLICTS)
    assert got == upstream([PRINT_CONFLICTS_UNIQUE], PRINT_CONFLICTS)[0]
    assert (
        '"C_0[CONFL-WRITE: 1]"' in got and '"C_0[READ: 0]"' in got and '"C_0[DEF: bbArg 0]"' in got
    )


def test_structured_results():
    """Decisions, conflicts, alias sets and function boundary facts come
    back as data (ops are pre-order ids of the module before the run)."""
    with ir.Context() as ctx:
        module = parse_source(PRINT_CONFLICTS_UNIQUE, "raw.mlir", ctx)
        r = _core.run_interface_engine(
            module.operation._CAPIPtr,
            {
                "test_analysis_only": True,
                "bufferize_function_boundaries": True,
                "print_conflicts": True,
            },
            conflict_counter=7,
        )
        assert r.ok
        # 0 module, 1 func, 2 insert, 3 extract, 4 return.
        assert r.scopes == [1]
        assert sorted(r.decisions) == [(2, 1, False), (3, 0, True), (4, 0, True)]
        assert r.conflicts == [((2, 1), (3, 0), (2, 1), (1, True, 0, 0, 0))]
        # Alias and equivalence sets come back from analysis-only runs only.
        assert r.alias_sets == [] and r.equivalence_sets == []
        assert r.functions == [
            {
                "op": 1,
                "name": "read_after_write",
                "boundary_analyzed": True,
                "access": ["read", "", ""],
                "aliasing": [],
                "equivalent": [],
            }
        ]
        assert r.num_tensor_out_of_place == 1 and r.num_tensor_in_place == 2
        # The conflict marks continue the given process-wide counter.
        assert r.conflict_counter == 8
        assert "C_7[CONFL-WRITE: 1]" in str(module)


COPIES = """
func.func @copies(%t: tensor<8xf32>, %ro: tensor<16xf64> {bufferization.writable = false}, %f: f32,
                  %i: index, %dyn: tensor<?xf32>) -> (tensor<8xf32>, f32, tensor<16xf64>, tensor<4xf64>,
                                                      tensor<?xf32>, f32) {
  %w = tensor.insert %f into %t[%i] : tensor<8xf32>
  %r = tensor.extract %t[%i] : tensor<8xf32>
  %d = arith.constant 1.0 : f64
  %fill = linalg.fill ins(%d : f64) outs(%ro : tensor<16xf64>) -> tensor<16xf64>
  %s = tensor.extract_slice %ro[0] [4] [1] : tensor<16xf64> to tensor<4xf64>
  %s2 = tensor.insert %d into %s[%i] : tensor<4xf64>
  %g = tensor.insert %f into %dyn[%i] : tensor<?xf32>
  %x = tensor.extract %dyn[%i] : tensor<?xf32>
  return %w, %r, %fill, %s2, %g, %x : tensor<8xf32>, f32, tensor<16xf64>, tensor<4xf64>, tensor<?xf32>, f32
}
"""


def test_analysis_only_copies_and_equivalence():
    """Analysis only leaves the IR untouched and reports per out-of-place
    operand the copy upstream's copy insertion makes: a RaW copy of the
    operand, a non-writable operand overwritten (allocation only), the
    slice's result copied in place of its source, a copy of dynamic size."""
    with ir.Context() as ctx:
        module = parse_source(COPIES, "c.mlir", ctx)
        before = str(module)
        r = _core.run_interface_engine(
            module.operation._CAPIPtr,
            {
                "bufferize_function_boundaries": True,
                "print_conflicts": True,
                "dump_alias_sets": True,
                "test_analysis_only": True,
            },
            analysis_only=True,
        )
        assert r.ok
        assert str(module) == before
        # 0 module, 1 func, 2 insert, 3 extract, 4 constant, 5 fill, 6 its linalg.yield, 7 slice,
        # 8 insert, 9 insert, 10 extract, 11 return.
        copies = {(op, operand): rest for op, operand, *rest in r.copies}
        arg = lambda i: (1, True, 0, 0, i)  # noqa: E731
        assert copies[(2, 1)] == [arg(0), False, 32, []]
        assert copies[(5, 1)] == [arg(1), True, 128, [arg(1)]]
        assert copies[(7, 0)] == [(7, False, 0, 0, 0), False, 32, [arg(1)]]
        assert copies[(9, 1)] == [arg(4), False, -1, []]
        assert len(copies) == 4
        # The insert into the slice is in place: slice, insert equivalent.
        assert [(7, False, 0, 0, 0), (8, False, 0, 0, 0)] in [sorted(s) for s in r.equivalence_sets]


def test_analysis_only_rejects_ops_that_are_not_bufferizable():
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = parse_source(
            "func.func @u(%t: tensor<4xf32>) -> tensor<4xf32> {\n"
            '  %0 = "test.foo"(%t) : (tensor<4xf32>) -> tensor<4xf32>\n'
            "  return %0 : tensor<4xf32>\n}\n",
            "u.mlir",
            ctx,
        )
        messages = []
        handler = ctx.attach_diagnostic_handler(
            lambda d: messages.append(str(d.location) + d.message) or True
        )
        r = _core.run_interface_engine(module.operation._CAPIPtr, {}, analysis_only=True)
        assert not r.ok and len(messages) == 1 and "'test.foo' is not bufferizable" in messages[0]
        r = _core.run_interface_engine(
            module.operation._CAPIPtr, {"allow_unknown_ops": True}, analysis_only=True
        )
        handler.detach()
        # Upstream's copy insertion skips unknown ops: out of place, no copy.
        assert r.ok and (2, 0, False) in r.decisions and r.copies == []


def test_rewrite_mode_returns_stats_and_bufferizes():
    with ir.Context() as ctx:
        module = parse_source(PRINT_CONFLICTS_UNIQUE, "raw.mlir", ctx)
        r = _core.run_interface_engine(
            module.operation._CAPIPtr, {"bufferize_function_boundaries": True}
        )
        assert r.ok and r.num_buffer_alloc == 1
        text = str(module)
        assert "memref.alloc" in text and "memref.copy" in text and "tensor" not in text


def test_bad_heuristic_is_rejected():
    with ir.Context() as ctx:
        module = parse_source("func.func @f() { return }", "f.mlir", ctx)
        with pytest.raises(ValueError, match="unknown analysis heuristic"):
            _core.run_interface_engine(module.operation._CAPIPtr, {}, analysis_heuristic="sideways")


FACT_CHECK_OPTION_SETS = [
    "bufferize-function-boundaries test-analysis-only",
    "test-analysis-only allow-return-allocs-from-loops allow-unknown-ops analysis-heuristic=top-down",
    "bufferize-function-boundaries allow-return-allocs-from-loops",
]


def fact_check_failures(text: str, options: str, ctx: ir.Context, **extra) -> list[str]:
    """The fact-check diagnostics of one engine run on ``text`` (which must
    parse)."""
    seen: list[str] = []

    def keep(d: ir.Diagnostic) -> bool:
        seen.append(str(d.message))
        return True

    with ctx:
        module = parse_source(text, "<chunk>", ctx)
        handler = ctx.attach_diagnostic_handler(keep)
        try:
            _core.run_interface_engine(
                module.operation._CAPIPtr, check_facts=True, **engine_kwargs(options), **extra
            )
        finally:
            handler.detach()
    return [m for m in seen if "kept interface fact differs" in m]


def test_kept_facts_match_upstream_answers(lit_corpus):
    """Every answer the engine keeps instead of asking upstream again (which
    values are read, the definitions an operand is read through, enclosing
    repetitive regions) equals upstream's uncached answer, for every value,
    operand and op, whichever is asked first; with min-copy-bytes' shared
    facts too."""
    texts = [t for chunks in lit_corpus for t in chunks]
    texts += [c.text for c in split_input(open(NEW_OPS).read(), True)]
    texts += [
        random_program(
            47000 + seed,
            n_ops=12 + seed % 15,
            extra=("while", "forall", "materialize") if seed % 2 else (),
        )
        for seed in range(12)
    ]
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    checked = 0
    for text in texts:
        try:
            with ctx:
                parse_source(text, "<chunk>", ctx)
        except ir.MLIRError:
            continue
        for options in FACT_CHECK_OPTION_SETS:
            assert fact_check_failures(text, options, ctx) == [], f"under '{options}':\n{text}"
        ranked = fact_check_failures(
            text,
            "test-analysis-only",
            ctx,
            rank_orders=[("bottom-up", 0), ("top-down", 0), ("fuzzer", 3)],
        )
        assert ranked == [], text
        checked += 1
    assert checked >= 150
