"""``parse_source`` parses and prints exactly as mlir-opt does (aliases
between ops, explicit modules, resources, big inputs, error locations).
Each case parses in process and compares the bytes with mlir-opt's."""

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest
from mlir import ir

from memplan.ir import parse

MLIR_OPT = os.path.join(
    list(importlib.util.find_spec("mlir").submodule_search_locations)[0], "bin", "mlir-opt"
)

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

CASES = {
    "alias-first": ALIAS + FUNC.format(name="f"),
    "alias-first-two-funcs": ALIAS
    + "// two\n"
    + FUNC.format(name="f")
    + "\n"
    + FUNC.format(name="g"),
    "alias-between": ALIAS
    + FUNC.format(name="f")
    + "  #id2 = affine_map<(d0) -> (d0)>\n"
    + FUNC.format(name="g"),
    "type-alias-after": ALIAS
    + FUNC.format(name="f")
    + "!t = tensor<4xf32>\n"
    + FUNC.format(name="g"),
    "explicit-module": ALIAS + "module {\n" + FUNC.format(name="f") + "}\n",
    "trailing-resource": ALIAS + FUNC.format(name="f") + "// end\n\n" + RESOURCE,
    "trailing-comments": ALIAS + FUNC.format(name="f") + "\n// a\n   // b\n\n",
    "long-preamble": "// comment\n" * 200 + ALIAS + FUNC.format(name="f"),
    "resource-used": (
        ALIAS + FUNC.format(name="f") + "func.func @c() -> tensor<2xi32> {\n"
        "  %c = arith.constant dense_resource<blob> : tensor<2xi32>\n  return %c : tensor<2xi32>\n}\n"
        + RESOURCE
    ),
    "op-on-last-line": ALIAS + "func.func @f() { return }",
    "no-trailing-newline": ALIAS + FUNC.format(name="f").rstrip("\n"),
    "comment-only": "// nothing\n",
    # `>=` in an affine set must not unbalance anything.
    "affine-set-comparisons": (
        "#set = affine_set<(d0) : (d0 >= 0, -d0 + 10 >= 0)>\n"
        "func.func @f(%i: index, %m: memref<4xf32>, %x: f32) {\n"
        "  affine.if #set(%i) {\n    affine.store %x, %m[0] : memref<4xf32>\n  }\n  return\n}\n"
        "#set1 = affine_set<(d0) : (d0 - 2 >= 0)>\n"
        "func.func @g(%i: index, %m: memref<4xf32>, %x: f32) {\n"
        "  affine.if #set1(%i) {\n    affine.store %x, %m[1] : memref<4xf32>\n  }\n  return\n}\n"
    ),
}


def _mlir_opt(path: Path, *extra: str) -> bytes:
    out = subprocess.run([MLIR_OPT, str(path), *extra], capture_output=True, check=True)
    return out.stdout


def _parsed(text: str, path: Path) -> bytes:
    with ir.Context() as context:
        module = parse.parse_source(text, str(path), context)
        return module.get_asm(binary=True, assume_verified=True) + b"\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_parse_and_output_match_mlir_opt(name, tmp_path):
    src = tmp_path / f"{name}.mlir"
    src.write_text(CASES[name])
    assert _parsed(CASES[name], src) == _mlir_opt(src)


@pytest.mark.parametrize("preamble", [ALIAS, ALIAS + "// c\n" * 100])
@pytest.mark.parametrize("after", ["", "#id2 = affine_map<(d0) -> (d0)>\n"])
def test_parse_error_location_matches_mlir_opt(preamble, after, tmp_path):
    # A bad op past the first line: the diagnostic points where mlir-opt's does.
    text = preamble + FUNC.format(name="f") + after + "func.func @g() {\n  nope\n}\n"
    src = tmp_path / "bad.mlir"
    src.write_text(text)
    ref = subprocess.run([MLIR_OPT, str(src)], capture_output=True, text=True)
    assert ref.returncode == 1
    with ir.Context() as context, pytest.raises(parse.ParseError) as err:
        parse.parse_source(text, str(src), context)
    assert str(err.value).splitlines()[0] == ref.stderr.splitlines()[0]


def test_first_line_shifts_locations_like_a_split_chunk(tmp_path):
    # A chunk starting on line 5 of a file reports that file's lines.
    src = tmp_path / "split.mlir"
    src.write_text("func.func @f() {\n  return\n}\n// -----\nfunc.func @g() {\n  nope\n}\n")
    ref = subprocess.run([MLIR_OPT, str(src), "--split-input-file"], capture_output=True, text=True)
    assert ref.returncode == 1
    chunk = parse.split_input(src.read_text())[1]
    with ir.Context() as context, pytest.raises(parse.ParseError) as err:
        parse.parse_source(chunk.text, str(src), context, first_line=chunk.first_line)
    assert str(err.value).splitlines()[0] == ref.stderr.splitlines()[0]
    assert str(err.value).startswith(f"{src}:6:3: error:")


def test_big_input_matches_mlir_opt(tmp_path):
    body = "".join(f"  %v{i + 1} = arith.addf %v{i}, %v{i} : f32\n" for i in range(3000))
    text = ALIAS + f"func.func @f(%v0: f32) -> f32 {{\n{body}  return %v3000 : f32\n}}\n"
    src = tmp_path / "big.mlir"
    src.write_text(text)
    assert _parsed(text, src) == _mlir_opt(src)
