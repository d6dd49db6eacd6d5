"""memplan-opt takes every mlir-opt flag, and shows memplan's pass options as
upstream passes show theirs (``--help``, ``--list-passes``,
``--dump-pass-pipeline``). Behaviour shared with mlir-opt is compared byte for
byte in test_opt_parity.py; this file covers what has no upstream twin."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from test_opt_parity import INPUTS, memplan_opt, mlir_opt

# mlir-opt flags memplan-opt cannot offer, each with its reason. Everything
# else in `mlir-opt --help-hidden` must be in `memplan-opt --help-hidden`.
NOT_SUPPORTED: set[str] = set()

FLAG = re.compile(r"^ {2,8}-{1,2}([A-Za-z0-9][A-Za-z0-9_.-]*)", re.M)


def flags(help_text: bytes) -> set[str]:
    return set(FLAG.findall(help_text.decode()))


def test_every_mlir_opt_flag_is_accepted(tmp_path: Path):
    want = flags(mlir_opt(["--help-hidden"], tmp_path).stdout)
    got = flags(memplan_opt(["--help-hidden"], tmp_path).stdout)
    assert len(want) > 1000  # the LLVM flags are listed too
    assert sorted(want - got - NOT_SUPPORTED) == []
    # An exception that memplan-opt now supports must leave the list.
    assert NOT_SUPPORTED <= want and not (NOT_SUPPORTED & got)


def test_help_lists_memplan_pass_options(tmp_path: Path):
    out = memplan_opt(["--help"], tmp_path).stdout.decode()
    block = out[out.index("--memplan-buffer-reuse "):]
    block = block[: block.index("--memplan-emplace-transients")]
    lines = [line.strip() for line in block.splitlines()]
    assert lines[0].endswith("-   Pack non-overlapping heap allocations into one memref.view pool per scope")
    assert re.sub(r"\s+", " ", lines[1]) == "--algorithm=<value> - packing algorithm"
    assert lines[2:6] == ["=best", "=linear-scan", "=greedy-by-size", "=best-fit"]
    assert re.sub(r"\s+", " ", lines[6]) == "--alignment=<long> - byte alignment of the pool and of every offset"
    assert re.sub(r"\s+", " ", lines[7]) == "--remarks - emit a remark per pool and per allocation left alone"
    # Pipeline aliases show theirs too.
    alias = out[out.index("--memplan-memory-pipeline "):]
    assert "--promote-to-stack" in alias[: alias.index("--memplan-transients")]


def test_list_passes_shows_options_like_upstream(tmp_path: Path):
    got = memplan_opt(["--list-passes"], tmp_path).stdout.decode()
    want = mlir_opt(["--list-passes"], tmp_path).stdout.decode()
    # Same layout as an upstream pass with an enum, an int and a bool option.
    upstream = want[want.index("  --one-shot-bufferize"):]
    assert re.search(r"\n {4}--function-boundary-type-conversion=<value> +- ", upstream)
    ours = got[got.index("  --memplan-buffer-reuse"):]
    assert re.search(r"\n {4}--algorithm=<value> +- packing algorithm\n +=best\n", ours)
    assert re.search(r"\n {4}--alignment=<long> +- byte alignment", ours)


def test_dump_pass_pipeline_prints_option_values(tmp_path: Path):
    out = tmp_path / "out.mlir"
    r = memplan_opt([str(INPUTS / "bufz.mlir"), "-o", str(out), "--dump-pass-pipeline",
                     "--pass-pipeline=builtin.module(memplan-buffer-reuse{alignment=128})"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr.decode() == (
        "Pass Manager with 1 passes:\nbuiltin.module(\n"
        "  memplan-buffer-reuse{algorithm=best alignment=128 remarks=false}\n)\n\n"
    )


def test_dump_pass_pipeline_of_an_alias_and_of_flag_form(tmp_path: Path):
    out = tmp_path / "out.mlir"
    r = memplan_opt([str(INPUTS / "bufz.mlir"), "-o", str(out), "--dump-pass-pipeline",
                     "--pass-pipeline=builtin.module(memplan-memory-pipeline{algorithm=linear-scan alignment=32})"],
                    tmp_path)
    assert r.returncode == 0, r.stderr
    assert "  memplan-buffer-reuse{algorithm=linear-scan alignment=32 remarks=false}\n)" in r.stderr.decode()
    r = memplan_opt([str(INPUTS / "bufz.mlir"), "-o", str(out), "--dump-pass-pipeline",
                     "-memplan-test-print-graph=stream=stderr"], tmp_path)
    assert "  memplan-test-print-graph{stream=stderr}\n" in r.stderr.decode()


def test_pass_option_errors_are_mlir_opt_errors(tmp_path: Path):
    bufz = str(INPUTS / "bufz.mlir")

    def err(tool, pipeline):
        r = tool([bufz, f"--pass-pipeline=builtin.module({pipeline})"], tmp_path)
        assert r.returncode == 1 and b"Traceback" not in r.stderr
        return r.stderr.decode()

    # An unknown option: MLIR's parser, MLIR's words.
    assert err(memplan_opt, "memplan-buffer-reuse{nope=1}") == err(
        mlir_opt, "canonicalize{nope=1}").replace("canonicalize", "memplan-buffer-reuse")
    # A bad value: LLVM's line as for an upstream pass; where upstream's error
    # is empty (LLVM wrote the reason to stderr only), memplan's says why.
    upstream = err(mlir_opt, "one-shot-bufferize{function-boundary-type-conversion=nope}").replace(
        "function-boundary-type-conversion", "algorithm").replace("one-shot-bufferize", "memplan-buffer-reuse")
    assert "<unknown>:0: error: \n" in upstream
    assert err(memplan_opt, "memplan-buffer-reuse{algorithm=nope}") == upstream.replace(
        "<unknown>:0: error: \n",
        "<unknown>:0: error: option 'algorithm' must be one of best, linear-scan, greedy-by-size, "
        "best-fit; got 'nope'\n")
    assert err(memplan_opt, "memplan-buffer-reuse{alignment=x}") == (
        "memplan-opt: for the --alignment option: 'x' value invalid for long argument!\n"
        "<unknown>:0: error: option 'alignment' expects int, got 'x'\n"
        "failed to add `memplan-buffer-reuse` with options `alignment=x`\n\n")
    # What only memplan checks is still an error when the pipeline is parsed.
    assert err(memplan_opt, "memplan-buffer-reuse{alignment=100}") == (
        "<unknown>:0: error: option 'alignment' must be a positive power of two, got 100\n"
        "failed to add `memplan-buffer-reuse` with options `alignment=100`\n\n"
    )
    assert "must be a positive power of two" in err(memplan_opt, "memplan-memory-pipeline{alignment=3}")


def test_options_reach_the_pass(tmp_path: Path):
    # The value given on the command line is the one the Python pass runs with.
    src = tmp_path / "al.mlir"
    src.write_text("func.func @f() {\n  %0 = memref.alloc() : memref<16xf32>\n"
                   "  %1 = memref.alloc() : memref<8xf32>\n  memref.dealloc %0 : memref<16xf32>\n"
                   "  memref.dealloc %1 : memref<8xf32>\n  return\n}\n")
    out = tmp_path / "out.mlir"
    for alignment in ("64", "128"):
        r = memplan_opt([str(src), "-o", str(out), f"-memplan-buffer-reuse=alignment={alignment}"], tmp_path)
        assert r.returncode == 0, r.stderr
        text = out.read_text()
        assert "memref.alloc() {alignment = " + alignment + " : i64}" in text, text


def test_verbosity_level_filters_memplan_remarks(tmp_path: Path):
    src = tmp_path / "al.mlir"
    src.write_text("func.func @f() -> memref<16xf32> {\n  %0 = memref.alloc() : memref<16xf32>\n"
                   "  return %0 : memref<16xf32>\n}\n")
    out = tmp_path / "out.mlir"
    args = [str(src), "-o", str(out), "-memplan-buffer-liveness=remarks=true format=none"]
    r = memplan_opt(args, tmp_path)
    assert r.returncode == 0 and b"remark: not poolable: escapes-return" in r.stderr
    r = memplan_opt([*args, "--mlir-diagnostic-verbosity-level=warnings"], tmp_path)
    assert r.returncode == 0 and r.stderr == b""


def test_remark_files_like_mlir_opt(tmp_path: Path):
    # mlir-opt creates the remark file; no pass of mlir-opt or memplan-opt
    # reports optimization remarks, so it stays empty in both.
    cases = [(["--remark-format=yaml"], "mlir-remarks.yaml"),
             (["--remark-format=bitstream"], "mlir-remarks.bitstream"),
             (["--remark-format=yaml", "--remarks-output-file=r.yaml", "--remark-policy=final"], "r.yaml")]
    for flags_, name in cases:
        results = []
        for tool in (mlir_opt, memplan_opt):
            work = tmp_path / f"{tool.__name__}-{name}"
            work.mkdir()
            r = tool([str(INPUTS / "bufz.mlir"), "-canonicalize", *flags_], work)
            results.append((r.returncode, r.stdout, r.stderr, (work / name).read_bytes()))
        assert results[0][0] == 0 and results[1] == results[0]


def test_unwritable_remark_file_is_an_error_with_a_message(tmp_path: Path):
    # mlir-opt exits with 1 without a word; memplan-opt says why.
    args = [str(INPUTS / "bufz.mlir"), "--remark-format=yaml", "--remarks-output-file=/nonexistent/r.yaml"]
    assert (mlir_opt(args, tmp_path).returncode, mlir_opt(args, tmp_path).stderr) == (1, b"")
    r = memplan_opt(args, tmp_path)
    assert r.returncode == 1 and r.stdout == b""
    assert r.stderr.decode() == (
        "<unknown>:0: error: cannot open remarks file '/nonexistent/r.yaml': No such file or directory\n")


def test_plugin_that_does_not_load_is_an_error(tmp_path: Path):
    # mlir-opt prints "Failed to load ... Request ignored." and then aborts on
    # the unchecked error (SIGABRT); memplan-opt says why and exits with 1.
    bufz = str(INPUTS / "bufz.mlir")
    r = mlir_opt([bufz, "--load-pass-plugin=/nonexistent/p.so"], tmp_path)
    assert r.returncode < 0 or r.returncode >= 128
    r = memplan_opt([bufz, "--load-pass-plugin=/nonexistent/p.so"], tmp_path)
    assert r.returncode == 1 and r.stdout == b""
    assert r.stderr.decode().startswith(
        "Failed to load passes from '/nonexistent/p.so': Could not load library '/nonexistent/p.so': ")
    # A shared library without the entry point.
    libm = subprocess.run(["python3", "-c", "import ctypes.util; print(ctypes.util.find_library('m'))"],
                          capture_output=True, text=True).stdout.strip()
    r = memplan_opt([bufz, f"--load-dialect-plugin={libm}"], tmp_path)
    assert r.returncode == 1 and r.stdout == b""
    assert "Plugin entry point not found in" in r.stderr.decode()


# A plugin in plain C (no MLIR headers needed): its entry points return
# MLIR's PassPluginLibraryInfo / DialectPluginLibraryInfo layout, and its
# callbacks say on stderr that they ran.
PLUGIN_C = r"""
#include <stdint.h>
#include <stdio.h>
typedef struct { uint32_t api; const char *name, *version; void (*cb)(void); } PassInfo;
typedef struct { uint32_t api; const char *name, *version; void (*cb)(void *); } DialectInfo;
static void passes(void) { fprintf(stderr, "pass plugin registered\n"); }
static void dialects(void *registry) { fprintf(stderr, "dialect plugin got a registry: %d\n", registry != 0); }
PassInfo mlirGetPassPluginInfo(void) { PassInfo i = {API, "P", "v1", passes}; return i; }
DialectInfo mlirGetDialectPluginInfo(void) { DialectInfo i = {API, "D", "v1", dialects}; return i; }
"""


def build_plugin(tmp_path: Path, api: int) -> Path:
    src = tmp_path / "plugin.c"
    src.write_text(PLUGIN_C)
    lib = tmp_path / f"plugin{api}.so"
    subprocess.run(["cc", "-shared", "-fPIC", f"-DAPI={api}", str(src), "-o", str(lib)], check=True)
    return lib


def test_plugins_load_like_mlir_opt(tmp_path: Path):
    lib = build_plugin(tmp_path, 1)
    args = [str(INPUTS / "bufz.mlir"), f"--load-pass-plugin={lib}", f"--load-dialect-plugin={lib}", "-canonicalize"]
    want, got = mlir_opt(args, tmp_path), memplan_opt(args, tmp_path)
    assert want.stderr == b"pass plugin registered\ndialect plugin got a registry: 1\n"
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)


def test_plugin_of_another_api_version_is_an_error(tmp_path: Path):
    lib = build_plugin(tmp_path, 7)
    r = memplan_opt([str(INPUTS / "bufz.mlir"), f"--load-pass-plugin={lib}"], tmp_path)
    assert r.returncode == 1 and r.stdout == b""
    assert r.stderr.decode() == (
        f"Failed to load passes from '{lib}': Wrong API version on plugin '{lib}'. "
        "Got version 7, supported version is 1.\n")


def test_unmet_unknown_location_expectation_is_reported(tmp_path: Path):
    # mlir-opt 22.1.8 aborts (an assertion in MLIR's verifier) on an unmet
    # `expected-* @unknown` line, with or without -verify-diagnostics, and
    # without it every expectation is unmet. memplan-opt reports it as later
    # upstream versions do, after the expectations at a line.
    src = tmp_path / "u.mlir"
    src.write_text("// expected-warning @unknown {{nowhere}}\nfunc.func @f() {\n"
                   "  // expected-error @+1 {{nope}}\n  return\n}\n")
    upstream = mlir_opt([str(src), "-o", str(tmp_path / "o.mlir")], tmp_path)
    assert upstream.returncode < 0 or upstream.returncode >= 128
    unmet = (f'{src}:3:6: error: expected error "nope" was not produced\n'
             "  // expected-error @+1 {{nope}}\n     ^~~~\n"
             'error: expected warning "nowhere" was not produced\n')
    for flags_, code in (([], 0), (["-verify-diagnostics"], 1)):
        r = memplan_opt([str(src), "-o", str(tmp_path / "o.mlir"), *flags_], tmp_path)
        assert (r.returncode, r.stderr.decode()) == (code, unmet)
