"""``parse_source`` and memplan-opt parse and print exactly as mlir-opt does
(aliases between ops, explicit modules, resources, big inputs). Each case
runs both tools and compares the bytes."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mlir import ir

from memplan.ir import parse

MLIR_OPT = os.path.join(list(importlib.util.find_spec("mlir").submodule_search_locations)[0], "bin", "mlir-opt")

FUNC = """func.func @{name}(%a: tensor<4xf32>) -> tensor<4xf32> {{
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel"]}} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {{
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  }} -> tensor<4xf32>
  return %r : tensor<4xf32>
}}
"""
ALIAS = "#id = affine_map<(d0) -> (d0)>\n"
RESOURCE = '{-#\n  dialect_resources: {\n    builtin: {\n      blob: "0x040000000100000002000000"\n    }\n  }\n#-}\n'

#: name -> (text, path parse_source takes: "fast", "slow" or "module").
CASES = {
    "alias-first": (ALIAS + FUNC.format(name="f"), "fast"),
    "alias-first-two-funcs": (ALIAS + "// two\n" + FUNC.format(name="f") + "\n" + FUNC.format(name="g"), "fast"),
    "alias-between": (ALIAS + FUNC.format(name="f") + "  #id2 = affine_map<(d0) -> (d0)>\n" + FUNC.format(name="g"), "slow"),
    "type-alias-after": (ALIAS + FUNC.format(name="f") + "!t = tensor<4xf32>\n" + FUNC.format(name="g"), "slow"),
    "explicit-module": (ALIAS + "module {\n" + FUNC.format(name="f") + "}\n", "module"),
    "trailing-resource": (ALIAS + FUNC.format(name="f") + "// end\n\n" + RESOURCE, "fast"),
    "trailing-comments": (ALIAS + FUNC.format(name="f") + "\n// a\n   // b\n\n", "fast"),
    "long-preamble": ("// comment\n" * 200 + ALIAS + FUNC.format(name="f"), "fast"),
    "resource-used": (
        ALIAS + FUNC.format(name="f") + "func.func @c() -> tensor<2xi32> {\n"
        "  %c = arith.constant dense_resource<blob> : tensor<2xi32>\n  return %c : tensor<2xi32>\n}\n" + RESOURCE,
        "fast",
    ),
    # Nothing after the first op's line: the line by line path, on one line.
    "op-on-last-line": (ALIAS + "func.func @f() { return }", "slow"),
    "no-trailing-newline": (ALIAS + FUNC.format(name="f").rstrip("\n"), "fast"),
    "comment-only": ("// nothing\n", "empty"),
}


def _mlir_opt(path: Path, *extra: str) -> bytes:
    out = subprocess.run([MLIR_OPT, str(path), *extra], capture_output=True, check=True)
    return out.stdout


def _memplan_opt(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memplan.cli.opt", *args], input=stdin, capture_output=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_parse_and_output_match_mlir_opt(name, tmp_path):
    text, path = CASES[name]
    src = tmp_path / f"{name}.mlir"
    src.write_text(text)
    with ir.Context() as context:
        module = parse.parse_source(text, str(src), context)
        in_process = module.get_asm(binary=True, assume_verified=True)
    expected = _mlir_opt(src)
    assert in_process + b"\n" == expected
    out = tmp_path / "out.mlir"
    r = _memplan_opt(str(src), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == expected
    r = _memplan_opt("-", stdin=text.encode())
    assert r.returncode == 0, r.stderr
    assert r.stdout == expected


def test_split_input_file_matches_mlir_opt(tmp_path):
    chunks = [CASES[name][0] for name in ("alias-first", "alias-between", "explicit-module", "trailing-resource")]
    src = tmp_path / "split.mlir"
    src.write_text("\n// -----\n\n".join(chunks))
    expected = _mlir_opt(src, "--split-input-file")
    out = tmp_path / "out.mlir"
    r = _memplan_opt(str(src), "--split-input-file", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == expected
    r = _memplan_opt(str(src), "--split-input-file")
    assert r.stdout == expected


@pytest.mark.parametrize("preamble", [ALIAS, ALIAS + "// c\n" * 100])
@pytest.mark.parametrize("after", ["", "#id2 = affine_map<(d0) -> (d0)>\n"])
def test_parse_error_location_matches_mlir_opt(preamble, after, tmp_path):
    # A bad op past the first line: both paths keep every line (and column)
    # where it was, so the diagnostic points where mlir-opt's does.
    text = preamble + FUNC.format(name="f") + after + "func.func @g() {\n  nope\n}\n"
    src = tmp_path / "bad.mlir"
    src.write_text(text)
    ref = subprocess.run([MLIR_OPT, str(src)], capture_output=True, text=True)
    assert ref.returncode == 1
    r = _memplan_opt(str(src))
    assert r.returncode == 1
    assert r.stderr.decode().splitlines()[0] == ref.stderr.splitlines()[0]


def test_big_input_matches_mlir_opt(tmp_path):
    # Enough ops that the text is far longer than the lines parse_source scans.
    body = "".join(
        f"  %v{i + 1} = arith.addf %v{i}, %v{i} : f32\n" for i in range(3000)
    )
    text = ALIAS + f"func.func @f(%v0: f32) -> f32 {{\n{body}  return %v3000 : f32\n}}\n"
    src = tmp_path / "big.mlir"
    src.write_text(text)
    out = tmp_path / "out.mlir"
    r = _memplan_opt(str(src), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == _mlir_opt(src)


def test_comparison_operators_in_aliases_are_not_brackets(tmp_path):
    """``>=`` in an affine set (and an alias after the first op, which takes
    the line-by-line path) must not unbalance the alias scan."""
    src = tmp_path / "set.mlir"
    src.write_text(
        "#set = affine_set<(d0) : (d0 >= 0, -d0 + 10 >= 0)>\n"
        "func.func @f(%i: index, %m: memref<4xf32>, %x: f32) {\n"
        "  affine.if #set(%i) {\n"
        "    affine.store %x, %m[0] : memref<4xf32>\n"
        "  }\n"
        "  return\n"
        "}\n"
        "#set1 = affine_set<(d0) : (d0 - 2 >= 0)>\n"
        "func.func @g(%i: index, %m: memref<4xf32>, %x: f32) {\n"
        "  affine.if #set1(%i) {\n"
        "    affine.store %x, %m[1] : memref<4xf32>\n"
        "  }\n"
        "  return\n"
        "}\n")
    p = _memplan_opt(str(src))
    assert p.returncode == 0, p.stderr.decode()
    assert p.stdout == _mlir_opt(src)
