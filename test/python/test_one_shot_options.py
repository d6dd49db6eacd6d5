"""memplan-one-shot-bufferize's options, declared once in C++
(include/memplan/analysis/OneShotOptions.def): the typed struct the engine
reads, its one reader, the Python declaration and ``--help`` all come from
that table, and a row added to it reaches each of them."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mlir import ir

from memplan import _core
from memplan.ir.parse import parse_source
from memplan.pass_declarations import HEURISTICS, ONE_SHOT_BUFFERIZE_OPTIONS
from memplan.passes import lookup, table_options

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "include"
TABLE = Path("memplan/analysis/OneShotOptions.def")


def test_pass_declares_the_table_s_rows_in_order() -> None:
    rows = _core.ONE_SHOT_BUFFERIZE_OPTIONS
    names = re.findall(
        r'^MEMPLAN_ONE_SHOT_OPTION\(\s*\w+,\s*"([^"]+)"', (INCLUDE / TABLE).read_text(), re.M
    )
    assert [row[0] for row in rows] == names and len(names) == 18
    assert list(lookup("memplan-one-shot-bufferize").options) == ONE_SHOT_BUFFERIZE_OPTIONS
    by_name = {o.name: o for o in ONE_SHOT_BUFFERIZE_OPTIONS}
    assert by_name["buffer-alignment"].default == 64
    assert by_name["check-parallel-regions"].default is True
    assert by_name["analysis-fuzzer-seed"].type.BITS == 32
    assert by_name["buffer-alignment"].type.BITS == 64
    assert HEURISTICS[-1] == "min-copy-bytes" and "fuzzer" in HEURISTICS


def test_help_lists_every_row_with_its_help() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "memplan.cli.opt", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    block = out.stdout[out.stdout.index("--memplan-one-shot-bufferize") :]
    block = (
        block[: block.index("\n      --memplan-", 1)] if "\n      --memplan-" in block else block
    )
    for name, _type, _default, help_text, choices in _core.ONE_SHOT_BUFFERIZE_OPTIONS:
        assert re.search(rf"--{name}\b.*- {re.escape(help_text)}", block), name
        for choice in choices or ():
            assert f"\n    ={choice}\n" in block, (name, choice)


def _engine(options: dict) -> _core.EngineResult:
    with ir.Context() as ctx:
        module = parse_source("func.func @f() { return }", "f.mlir", ctx)
        return _core.run_interface_engine(module.operation._CAPIPtr, options, analysis_only=True)


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


def test_engine_takes_each_option_in_either_spelling() -> None:
    assert _engine({"analysis_fuzzer_seed": 2**32 - 1, "buffer-alignment": 2**64 - 1}).ok


ADDED_ROW = """
MEMPLAN_ONE_SHOT_OPTION(scratchLimit, "scratch-limit", uint64_t, 9, "",
                        "a freshly added limit")
"""

READER = r"""
#include "memplan/analysis/OneShotOptions.h"
#include <cstdio>
#include <variant>

using namespace memplan;

int main() {
  OneShotOptions options;
  std::printf("default %llu\n", (unsigned long long)options.scratchLimit);
  std::string error = readOneShotOptions(
      {{"scratch-limit", OptionValue(uint64_t(12))}}, options);
  std::printf("read %llu [%s]\n", (unsigned long long)options.scratchLimit,
              error.c_str());
  for (const OptionRow &row : oneShotOptionRows()) {
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
    text = table.read_text()
    table.write_text(
        text.replace(
            "#undef MEMPLAN_ONE_SHOT_OPTION", ADDED_ROW + "\n#undef MEMPLAN_ONE_SHOT_OPTION"
        )
    )
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
    assert rows[:-1] == list(_core.ONE_SHOT_BUFFERIZE_OPTIONS)
    assert rows[-1] == ("scratch-limit", "uint64", 9, "a freshly added limit", None)
    assert table_options(rows)[:-1] == ONE_SHOT_BUFFERIZE_OPTIONS
    script = tmp_path / "register.py"
    script.write_text(textwrap.dedent(REGISTER.format(rows=rows)))
    help_run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert help_run.returncode == 0, help_run.stderr[-2000:]
    block = help_run.stdout[help_run.stdout.index("--memplan-test-scratch-options") :]
    assert re.search(r"--scratch-limit=<ulong>\s+- a freshly added limit", block)
    assert re.search(r"--analysis-heuristic=<value>\s+- analysis order", block)
