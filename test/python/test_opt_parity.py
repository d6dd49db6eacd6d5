"""memplan-opt behaves like mlir-opt: on the same inputs and flags, the same
stdout, stderr (program name aside) and exit code, byte for byte. The
installed ``mlir-opt`` is the oracle."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

MLIR_OPT = os.path.join(
    list(importlib.util.find_spec("mlir").submodule_search_locations)[0], "bin", "mlir-opt"
)
INPUTS = Path(__file__).parent / "inputs" / "opt"


def tool_workdir(tmp_path: Path, tool) -> Path:
    """A directory of its own for ``tool`` under ``tmp_path``, holding a copy
    of the test inputs."""
    work = tmp_path / tool.__name__
    work.mkdir()
    for f in INPUTS.iterdir():
        (work / f.name).write_bytes(f.read_bytes())
    return work


def memplan_opt(args: list[str], cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memplan.cli.opt", *args], cwd=cwd, input=stdin, capture_output=True
    )


def mlir_opt(args: list[str], cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    r = subprocess.run([MLIR_OPT, *args], cwd=cwd, input=stdin, capture_output=True)
    # The program name is the one allowed difference.
    r.stderr = r.stderr.replace(MLIR_OPT.encode(), b"memplan-opt").replace(b"mlir-opt", b"memplan-opt")
    return r


CASES = {
    # Output and parsing.
    "plain": ["bufz.mlir"],
    "stdin": ["-"],
    "split": ["split.mlir", "--split-input-file"],
    "split_custom_marker": ["split.mlir", "--split-input-file=// -----", "--output-split-marker=//--"],
    "truncated": ["trunc.mlir"],
    "bom": ["bom.mlir"],
    "alias_and_op_on_one_line": ["alias.mlir"],
    "garbage_bytes": ["garbage.mlir"],
    "invalid_utf8": ["badutf.mlir"],
    "no_implicit_module": ["bufz.mlir", "--no-implicit-module"],
    "missing_input": ["nonexistent.mlir"],
    "unwritable_output": ["bufz.mlir", "-o", "/nonexistent/x"],
    # Flag-form passes, pipelines and their errors.
    "flag_passes": ["bufz.mlir", "-one-shot-bufferize=bufferize-function-boundaries", "-canonicalize"],
    "pipeline": ["bufz.mlir", "--pass-pipeline=builtin.module(one-shot-bufferize{bufferize-function-boundaries},canonicalize)"],
    "bad_pass_option": ["bufz.mlir", "-one-shot-bufferize=nope=1"],
    "unknown_pass_in_pipeline": ["bufz.mlir", "--pass-pipeline=builtin.module(nope)"],
    "pipeline_without_anchor": ["bufz.mlir", "--pass-pipeline=canonicalize"],
    "unknown_flag": ["bufz.mlir", "--foo"],
    "two_inputs": ["bufz.mlir", "bufz.mlir"],
    "pass_failure": ["bufz.mlir", "-one-shot-bufferize"],
    # Diagnostics verification.
    "verify_diagnostics": ["verify.mlir", "-verify-diagnostics"],
    "verify_diagnostics_unexpected": ["split.mlir", "-verify-diagnostics", "--split-input-file"],
    "verify_only_expected": ["verify.mlir", "--verify-diagnostics=only-expected"],
    # Expectations across chunks: unexpected diagnostics as they come, unmet
    # expectations of every chunk at the end.
    "verify_split_unmet": ["expect_split.mlir", "--split-input-file", "-verify-diagnostics"],
    "verify_bad_regex": ["expect_badregex.mlir", "-verify-diagnostics"],
    # Diagnostics without a location met by `@unknown` expectations (an unmet
    # one makes mlir-opt abort: test_opt_flags.py).
    "verify_unknown_loc": ["unknown_loc.mlir", "-verify-diagnostics", "--pass-pipeline=builtin.module(nope)"],
    "verify_unknown_loc_regex": ["unknown_loc_re.mlir", "-verify-diagnostics", "--pass-pipeline=builtin.module(nope)"],
    # Without -verify-diagnostics mlir-opt still reads the expected-* lines:
    # each is reported as not produced (even when it was), exit code unchanged.
    "expectations_without_verify": ["expect.mlir"],
    "expectations_met_without_verify": ["verify.mlir"],
    "expectations_without_verify_split": ["expect_split.mlir", "--split-input-file"],
    "expectations_bad_regex_without_verify": ["expect_badregex.mlir", "-canonicalize"],
    # Printing, instrumentation.
    "print_ir_after_all": ["bufz.mlir", "-canonicalize", "-cse", "--mlir-print-ir-after-all"],
    "print_ir_before_all": ["bufz.mlir", "-canonicalize", "-cse", "--mlir-print-ir-before-all"],
    "print_ir_after_one": ["bufz.mlir", "-canonicalize", "-cse", "--mlir-print-ir-after=cse"],
    "print_ir_module_scope_threaded": ["bufz.mlir", "-canonicalize", "--mlir-print-ir-after-all", "--mlir-print-ir-module-scope"],
    "print_ir_module_scope": ["bufz.mlir", "-canonicalize", "--mlir-print-ir-after-all", "--mlir-print-ir-module-scope", "--mlir-disable-threading"],
    "print_debuginfo": ["bufz.mlir", "--mlir-print-debuginfo"],
    "print_generic": ["bufz.mlir", "--mlir-print-op-generic"],
    "print_local_scope": ["bufz.mlir", "--mlir-print-local-scope", "--mlir-print-debuginfo"],
    "disable_threading": ["bufz.mlir", "--mlir-disable-threading", "-canonicalize"],
    "dump_pass_pipeline": ["bufz.mlir", "--dump-pass-pipeline", "-canonicalize", "-cse"],
    "statistics": ["bufz.mlir", "--mlir-pass-statistics", "-one-shot-bufferize=bufferize-function-boundaries", "-canonicalize", "-cse"],
    "statistics_list": ["bufz.mlir", "--mlir-pass-statistics", "--mlir-pass-statistics-display=list", "-cse"],
    "emit_bytecode": ["bufz.mlir", "--emit-bytecode"],
    "bytecode_version_without_bytecode": ["bufz.mlir", "--emit-bytecode-version=1"],
    # Round-trip check through text and bytecode after parsing.
    "verify_roundtrip": ["bufz.mlir", "--verify-roundtrip", "-canonicalize"],
    "verify_roundtrip_irdl": ["cmath.mlir", "--irdl-file=cmath.irdl.mlir", "--verify-roundtrip"],
    # Elided resource strings do not come back: the check reports the difference.
    "verify_roundtrip_differs": ["resource.mlir", "--verify-roundtrip", "--mlir-elide-resource-strings-if-larger=4"],
    "resource_without_roundtrip": ["resource.mlir", "--mlir-elide-resource-strings-if-larger=4"],
    # Dialects defined in IRDL.
    "irdl_file": ["cmath.mlir", "--irdl-file=cmath.irdl.mlir"],
    "irdl_file_missing": ["cmath.mlir", "--irdl-file=nonexistent.mlir"],
    "without_irdl_file": ["cmath.mlir"],
    # Diagnostic filtering.
    "verbosity_errors": ["unbufferizable.mlir", "--allow-unregistered-dialect", "-one-shot-bufferize", "--mlir-diagnostic-verbosity-level=errors"],
    "disable_notes": ["unbufferizable.mlir", "--allow-unregistered-dialect", "-one-shot-bufferize", "--mlir-disable-diagnostic-notes"],
    # Optimization remarks printed as diagnostics.
    "remarks_emit_remark": ["bufz.mlir", "-canonicalize", "--remark-format=emitRemark", "--remarks-filter=.*", "--remark-policy=final"],
    "remarks_filters": ["bufz.mlir", "-canonicalize", "--remarks-filter-passed=a", "--remarks-filter-missed=b", "--remarks-filter-failed=c", "--remarks-filter-analyse=d"],
    "remark_format_bad": ["bufz.mlir", "--remark-format=xml"],
    # Crash reproducers (the file itself is compared by test_reproducer_files).
    "local_reproducer_threaded": ["unbufferizable.mlir", "--allow-unregistered-dialect", "-one-shot-bufferize", "--mlir-pass-pipeline-crash-reproducer=repro.mlir", "--mlir-pass-pipeline-local-reproducer"],
    "run_reproducer_without_one": ["bufz.mlir", "--run-reproducer"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_as_mlir_opt(name: str, tmp_path: Path):
    for f in INPUTS.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    args = CASES[name]
    stdin = (INPUTS / "bufz.mlir").read_bytes() if "-" in args else None
    want = mlir_opt(args, tmp_path, stdin)
    got = memplan_opt(args, tmp_path, stdin)
    assert got.stderr.decode(errors="replace") == want.stderr.decode(errors="replace")
    assert got.stdout == want.stdout
    assert got.returncode == want.returncode


def test_bytecode_input(tmp_path: Path):
    bc = tmp_path / "in.mlirbc"
    r = subprocess.run([MLIR_OPT, str(INPUTS / "bufz.mlir"), "--emit-bytecode", "-o", str(bc)])
    assert r.returncode == 0
    want = mlir_opt([str(bc)], tmp_path)
    got = memplan_opt([str(bc)], tmp_path)
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)
    assert b"func.func @f" in got.stdout


def test_timing_report_has_mlir_opt_rows(tmp_path: Path):
    # Times differ run to run: compare the report's rows, not the numbers.
    def rows(r):
        return [line.split("  ")[-1].strip() for line in r.stderr.decode().splitlines() if "%" in line]

    args = [str(INPUTS / "bufz.mlir"), "-canonicalize", "--mlir-timing"]
    want, got = mlir_opt(args, tmp_path), memplan_opt(args, tmp_path)
    assert got.returncode == want.returncode == 0
    assert got.stdout == want.stdout
    assert rows(got) == rows(want) and "Canonicalizer" in rows(got)


def test_show_dialects(tmp_path: Path):
    # The bindings' registry has one dialect more than mlir-opt's (vcix).
    want = mlir_opt(["--show-dialects"], tmp_path)
    got = memplan_opt(["--show-dialects"], tmp_path)
    assert got.returncode == want.returncode == 0
    assert got.stdout.replace(b"vcix,", b"") == want.stdout


REPRODUCER_CASES = {
    # A failing pass writes the pipeline and the IR before it.
    "crash_reproducer": ["unbufferizable.mlir", "--allow-unregistered-dialect", "-one-shot-bufferize=bufferize-function-boundaries", "-canonicalize", "--mlir-pass-pipeline-crash-reproducer=repro.mlir"],
    # The local reproducer keeps only the failing pass.
    "local_reproducer": ["unbufferizable.mlir", "--allow-unregistered-dialect", "-canonicalize", "-one-shot-bufferize", "--mlir-pass-pipeline-crash-reproducer=repro.mlir", "--mlir-pass-pipeline-local-reproducer", "--mlir-disable-threading"],
    # A reproducer written without a crash.
    "generate_reproducer": ["bufz.mlir", "-canonicalize", "-cse", "--mlir-generate-reproducer=repro.mlir"],
}


@pytest.mark.parametrize("name", sorted(REPRODUCER_CASES))
def test_reproducer_files(name: str, tmp_path: Path):
    # Same diagnostics and exit code, and the same reproducer file; then
    # running that file with --run-reproducer gives the same result again.
    args = REPRODUCER_CASES[name]
    results = []
    for tool in (mlir_opt, memplan_opt):
        work = tool_workdir(tmp_path, tool)
        r = tool(args, work)
        repro = (work / "repro.mlir").read_bytes()
        rerun = tool(["repro.mlir", "--run-reproducer", "--allow-unregistered-dialect"], work)
        results.append((r.returncode, r.stdout, r.stderr, repro, rerun.returncode, rerun.stdout, rerun.stderr))
    assert b"mlir_reproducer" in results[0][3]
    assert results[1] == results[0]
