"""Pass options declared once, in C++ tables (``.def`` X-macros): those of
memplan-one-shot-bufferize (include/memplan/Inplace/OneShotOptions.def) and
of the C++ rewrites (include/memplan/Passes/PassOptions.def). The typed
struct each body reads, its one reader, the Python declaration and ``--help``
all come from the table, and a row added to it reaches each of them."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mlir import ir

from memplan import _core, passes
from memplan.ir.parse import parse_source
from memplan.passes import lookup, table_options
from memplan.passes.declarations import HEURISTICS, ONE_SHOT_BUFFERIZE_OPTIONS

ROOT = Path(__file__).resolve().parents[3]
INCLUDE = ROOT / "include"
TABLE = Path("memplan/Inplace/OneShotOptions.def")
PASS_OPTIONS = Path("memplan/Passes/PassOptions.def")
OPTION_TYPES = Path("memplan/Passes/OptionTypes.def")


#: Each table: the pass, its rows in memplan._core, the file and macro that
#: declare them (the pass declares exactly those rows).
TABLES = [
    ("memplan-one-shot-bufferize", "ONE_SHOT_BUFFERIZE_OPTIONS", TABLE, "MEMPLAN_ONE_SHOT_OPTIONS"),
    (
        "memplan-recompute-cheap-values",
        "RECOMPUTE_OPTIONS",
        PASS_OPTIONS,
        "MEMPLAN_RECOMPUTE_OPTIONS",
    ),
    ("memplan-reorder-for-memory", "REORDER_OPTIONS", PASS_OPTIONS, "MEMPLAN_REORDER_OPTIONS"),
    (
        "memplan-fold-transposes",
        "FOLD_TRANSPOSES_OPTIONS",
        PASS_OPTIONS,
        "MEMPLAN_FOLD_TRANSPOSES_OPTIONS",
    ),
    (
        "memplan-eliminate-subset-copies",
        "SUBSET_COPY_OPTIONS",
        PASS_OPTIONS,
        "MEMPLAN_SUBSET_COPY_OPTIONS",
    ),
    (
        "memplan-buffer-deallocation",
        "DEALLOCATION_OPTIONS",
        PASS_OPTIONS,
        "MEMPLAN_DEALLOCATION_OPTIONS",
    ),
]


@functools.lru_cache(maxsize=None)
def _help() -> str:
    """memplan-opt's ``--help`` (run once)."""
    out = subprocess.run(
        [sys.executable, "-m", "memplan.cli.opt", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def _help_block(text: str, argument: str) -> str:
    """The lines of ``--help`` that describe the pass ``argument``."""
    block = text[text.index(f"--{argument} ") :]
    end = block.find("\n      --memplan-", 1)
    return block if end < 0 else block[:end]


def _row_names(text: str, macro: str) -> list[str]:
    """The option names of the table ``macro`` in ``text``, the rows of the
    tables it includes (``MEMPLAN_..._OPTION(S)(X)``) in place."""
    body = re.search(rf"^#define {macro}\(X\)((?:.*\\\n)*.*)", text, re.M).group(1)
    names: list[str] = []
    for included, name in re.findall(r'\b(MEMPLAN_\w+)\(X\)|\bX\(\s*\w+,\s*"([^"]+)"', body):
        names += _row_names(text, included) if included else [name]
    return names


@pytest.mark.parametrize(("argument", "attr", "table", "macro"), TABLES)
def test_each_table_is_what_its_pass_declares_and_help_shows(
    argument: str, attr: str, table: Path, macro: str
) -> None:
    rows = getattr(_core, attr)
    names = _row_names((INCLUDE / table).read_text(), macro)
    assert [row[0] for row in rows] == names and names
    assert list(lookup(argument).options) == table_options(rows)
    block = _help_block(_help(), argument)
    for name, _type, _default, help_text, choices in rows:
        assert re.search(rf"--{name}\b.*- {re.escape(help_text)}", block), name
        for choice in choices or ():
            assert f"\n    ={choice}\n" in block, (name, choice)


def test_function_boundaries_is_declared_once_for_the_analyzing_passes() -> None:
    # The passes that ask the in-place analysis share one row (memplan's
    # default: function boundaries; upstream's one-shot-bufferize's is false).
    shared = [
        _core.DYING_INPUT_OPTIONS[0],
        _core.REORDER_OPTIONS[0],
        _core.SUBSET_COPY_OPTIONS[0],
    ]
    assert shared[0][:3] == ("bufferize-function-boundaries", "bool", True)
    assert shared == [shared[0]] * 3
    assert len(_core.DYING_INPUT_OPTIONS) == 1


def test_option_types_are_declared_once() -> None:
    # The type names of include/memplan/Passes/OptionTypes.def are the ones
    # the tables, the Python declarations and MLIR's declarations use.
    body = re.search(
        r"^#define MEMPLAN_OPTION_TYPES\(X\)((?:.*\\\n)*.*)",
        (INCLUDE / OPTION_TYPES).read_text(),
        re.M,
    ).group(1)
    names = re.findall(r'\bX\(\s*\w+,\s*[\w:]+,\s*"([^"]+)"\)', body)
    assert [name for name, _, _ in _core.OPTION_TYPES] == names and len(names) == 5
    assert list(passes._TABLE_TYPES) == names
    kinds = (bool, int, str, passes.uint32, passes.uint64, passes.alignment, passes.capacity)
    assert {passes._MLIR_TYPES[kind] for kind in kinds} == set(names)
    for kind in (passes.uint32, passes.uint64):
        assert passes._TABLE_TYPES[passes._MLIR_TYPES[kind]] is kind
    for _, attr, _, _ in TABLES:
        assert {row[1] for row in getattr(_core, attr)} <= set(names), attr


def test_an_option_of_no_declared_type_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="option 'o' has no option type 'float'"):
        _core.register_pass(
            "memplan-test-untyped-option",
            "T",
            "",
            [("o", "float", "0", "", [])],
            lambda values: "",
            lambda op, values, run_pipeline: (True, [], True),
        )


def test_one_shot_options_keep_upstream_s_types_and_defaults() -> None:
    assert len(ONE_SHOT_BUFFERIZE_OPTIONS) == 18
    by_name = {o.name: o for o in ONE_SHOT_BUFFERIZE_OPTIONS}
    assert by_name["buffer-alignment"].default == 64
    assert by_name["check-parallel-regions"].default is True
    assert by_name["analysis-fuzzer-seed"].type.BITS == 32
    assert by_name["buffer-alignment"].type.BITS == 64
    assert HEURISTICS[-1] == "min-copy-bytes" and "fuzzer" in HEURISTICS


def _on_module(call, source: str = "func.func @f() { return }") -> object:
    """``call`` on the capsule of a module parsed from ``source`` (by
    default, one empty function)."""
    with ir.Context() as ctx:
        module = parse_source(source, "f.mlir", ctx)
        return call(module.operation._CAPIPtr)


def _engine(options: dict) -> _core.EngineResult:
    return _on_module(lambda m: _core.run_interface_engine(m, options, analysis_only=True))


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"alow_unknown_ops": True}, "has no option 'alow-unknown-ops'"),
        ({"allow-unknown-ops": "yes"}, "option 'allow-unknown-ops' expects bool"),
        ({"analysis_fuzzer_seed": -1}, "option 'analysis-fuzzer-seed' expects uint32"),
        ({"analysis_fuzzer_seed": 2**32}, "option 'analysis-fuzzer-seed' expects uint32"),
        ({"dialect_filter": 3}, "option 'dialect-filter' expects str"),
    ],
)
def test_engine_rejects_unknown_or_mistyped_options(options: dict, error: str) -> None:
    # A misspelt option used to keep its default silently.
    with pytest.raises(ValueError, match=re.escape(error)):
        _engine(options)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (
            lambda m: _core.reorder_for_memory(m, {"beam_widht": 3}),
            "memplan-reorder-for-memory has no option 'beam-widht'",
        ),
        (
            lambda m: _core.reorder_for_memory(m, {"dying_inputs": 1}),
            "option 'dying-inputs' expects bool",
        ),
        (
            lambda m: _core.reorder_for_memory(m, {"lookahead": 0}),
            "beam-width, lookahead and branching must be >= 1",
        ),
        (
            lambda m: _core.recompute_cheap_values(m, {"max_added_work_percent": "2"}),
            "option 'max-added-work-percent' expects int",
        ),
        (
            lambda m: _core.recompute_cheap_values(m, {"remark": True}),
            "memplan-recompute-cheap-values has no option 'remark'",
        ),
        (
            lambda m: _core.fold_transposes(m, {"generalise": False}),
            "memplan-fold-transposes has no option 'generalise'",
        ),
        (
            lambda m: _core.fold_transposes(m, {"remarks": "yes"}),
            "option 'remarks' expects bool",
        ),
        (
            lambda m: _core.eliminate_subset_copies(m, {"remark": True}),
            "memplan-eliminate-subset-copies has no option 'remark'",
        ),
        (
            lambda m: _core.reuse_dying_inputs(m, {"function_boundaries": True}),
            "memplan-reuse-dying-inputs has no option 'function-boundaries'",
        ),
        (
            lambda m: _core.reorder_for_memory(m, {"bufferize_function_boundaries": "true"}),
            "option 'bufferize-function-boundaries' expects bool",
        ),
        (
            lambda m: _core.deallocate_buffers(m, {"drop_dead_value": True}),
            "memplan-buffer-deallocation has no option 'drop-dead-value'",
        ),
        (
            lambda m: _core.deallocate_buffers(m, {"drop_dead_values": 2}),
            "option 'drop-dead-values' expects bool",
        ),
    ],
)
def test_rewrites_reject_unknown_or_mistyped_options(call, error: str) -> None:
    with pytest.raises(ValueError, match=re.escape(error)):
        _on_module(call)


def test_rewrites_take_their_options() -> None:
    stats = _on_module(
        lambda m: _core.reorder_for_memory(
            m, {"bufferize_function_boundaries": False, "beam-width": 1, "dying_inputs": False}
        )
    )
    assert stats.analyzed and stats.reordered == 0
    stats = _on_module(
        lambda m: _core.recompute_cheap_values(m, {"remarks": True, "max_added_work_percent": -1})
    )
    assert stats.recomputed == 0
    stats = _on_module(
        lambda m: _core.reuse_dying_inputs(m, {"bufferize-function-boundaries": False})
    )
    assert stats.analyzed and stats.candidates == 0
    stats, _, _ = _on_module(
        lambda m: _core.deallocate_buffers(m, {"remarks": True, "drop-dead-values": True})
    )
    assert stats.frees == 0


#: A weight transposed for a matmul (memplan-fold-transposes folds it).
TRANSPOSED = """
func.func @f(%w: tensor<16x8xf32>, %x: tensor<4x8xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.transpose ins(%w : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %t : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
"""

#: A function argument padded (memplan-eliminate-subset-copies keeps the copy).
PADDED = """
func.func @f(%a: tensor<4x4xf32>) -> tensor<6x6xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}
"""


@pytest.mark.parametrize("remarks", [False, True])
def test_remarks_option_reaches_the_rewrites(remarks: bool) -> None:
    # The bodies record remarks only when the struct they get asks for them.
    stats, folded = _on_module(lambda m: _core.fold_transposes(m, {"remarks": remarks}), TRANSPOSED)
    assert stats.folded == 1 and bool(folded) == remarks
    stats = _on_module(lambda m: _core.eliminate_subset_copies(m, {"remarks": remarks}), PADDED)
    assert stats.candidates == 1 and len(stats.remarks) == int(remarks)


def test_engine_takes_each_option_in_either_spelling() -> None:
    assert _engine({"analysis_fuzzer_seed": 2**32 - 1, "buffer-alignment": 2**64 - 1}).ok


ADDED_ROW = """ \\
  X(scratchLimit, "scratch-limit", uint64_t, 9, "", "a freshly added limit")"""

READER = r"""
#include "memplan/Inplace/OneShotOptions.h"
#include <cstdio>
#include <variant>

using namespace memplan;

int main() {
  OneShotOptions options;
  std::printf("default %llu\n", (unsigned long long)options.scratchLimit);
  std::string error = readOptions({{"scratch-limit", OptionValue(uint64_t(12))}}, options);
  std::printf("read %llu [%s]\n", (unsigned long long)options.scratchLimit,
              error.c_str());
  for (const OptionRow &row : OneShotOptions::rows()) {
    std::string value = std::visit(
        [](const auto &v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
            return v;
          else
            return std::to_string(v);
        },
        row.defaultValue);
    std::printf("row\t%s\t%s\t%s\t%s\t%s\n", row.name, row.type, value.c_str(),
                row.choices, row.help);
  }
}
"""

REGISTER = """
import sys
from memplan.passes import register_pass, table_options

rows = {rows!r}
register_pass(
    "memplan-test-scratch-options",
    "Test pass with the options of a scratch copy of OneShotOptions.def",
    options=table_options(rows),
    run="memplan.inplace.bufferize:run",
)
from memplan.cli.opt import main

sys.argv = ["memplan-opt", "--help"]
main()
"""

_PARSE = {"bool": lambda t: t == "1", "str": str, "int": int, "uint32": int, "uint64": int}


def test_a_row_added_to_the_table_reaches_struct_reader_and_help(tmp_path: Path) -> None:
    # Adding an option is one row: the struct gets the field (the program
    # below does not compile otherwise), the reader sets it, and the rows the
    # Python declaration is made from carry it to MLIR's --help.
    compiler = shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler")
    scratch = tmp_path / "include"
    shutil.copytree(INCLUDE / "memplan", scratch / "memplan")
    table = scratch / TABLE
    define = "#define MEMPLAN_ONE_SHOT_OPTIONS(X)"
    text = table.read_text()
    assert define in text
    table.write_text(text.replace(define, define + ADDED_ROW))
    source = tmp_path / "reader.cpp"
    source.write_text(READER)
    binary = tmp_path / "reader"
    build = subprocess.run(
        [compiler, "-std=c++17", f"-I{scratch}", str(source), "-o", str(binary)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    out = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60).stdout
    assert "default 9\n" in out and "read 12 []\n" in out
    rows = []
    for line in out.splitlines():
        if line.startswith("row\t"):
            name, kind, default, choices, help_text = line.split("\t")[1:]
            rows.append(
                (
                    name,
                    kind,
                    _PARSE[kind](default),
                    help_text,
                    tuple(choices.split(",")) if choices else None,
                )
            )
    # The unchanged rows are the ones the extension exports.
    assert rows[0] == ("scratch-limit", "uint64", 9, "a freshly added limit", None)
    assert rows[1:] == list(_core.ONE_SHOT_BUFFERIZE_OPTIONS)
    assert table_options(rows)[1:] == ONE_SHOT_BUFFERIZE_OPTIONS
    script = tmp_path / "register.py"
    script.write_text(textwrap.dedent(REGISTER.format(rows=rows)))
    help_run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert help_run.returncode == 0, help_run.stderr[-2000:]
    block = help_run.stdout[help_run.stdout.index("--memplan-test-scratch-options") :]
    assert re.search(r"--scratch-limit=<ulong>\s+- a freshly added limit", block)
    assert re.search(r"--analysis-heuristic=<value>\s+- analysis order", block)
