"""Every memplan tool reads every input mlir-opt reads: text in any encoding
(a Latin-1 byte in a comment) and MLIR bytecode, through the one reader of
memplan.ir.parse. Bad inputs and output paths are one-line errors with exit
code 1, never a traceback."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mlir import ir

BIN = os.path.dirname(sys.executable)
MEMPLAN = os.path.join(BIN, "memplan")
CHECK = os.path.join(BIN, "memplan-check")
ROOT = Path(__file__).parents[3]
SCALE = ROOT / "examples" / "scale.mlir"
MLP = ROOT / "examples" / "mlp.mlir"

#: A memref-level function with one transient buffer (report, transients).
BRANCHES = (ROOT / "test" / "lit" / "lifetimes" / "report-cli.mlir").read_text()


def run(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=300, **kwargs
    )


def one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    """Exit code 1, no traceback, and the reason on stderr."""
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def latin1(path: Path, text: str) -> Path:
    """``text`` with a Latin-1 comment line on top (not UTF-8: mlir-opt reads it)."""
    path.write_bytes(b"// caf\xe9 \xb5s\n" + text.encode())
    return path


def bytecode(path: Path, text: str) -> Path:
    with ir.Context():
        module = ir.Module.parse(text)
        buffer = io.BytesIO()
        module.operation.write_bytecode(buffer)
    path.write_bytes(buffer.getvalue())
    return path


@pytest.fixture(params=["latin1", "bytecode"])
def encode(request):
    return {"latin1": latin1, "bytecode": bytecode}[request.param]


def test_shared_reader_takes_any_encoding_and_bytecode(tmp_path):
    from memplan.ir.parse import is_bytecode, load_source, read_source

    text = SCALE.read_text()
    for path in (latin1(tmp_path / "a.mlir", text), bytecode(tmp_path / "a.mlirbc", text)):
        with ir.Context():
            module = load_source(str(path))
            assert "func.func @scale" in str(module)
    assert is_bytecode(read_source(str(tmp_path / "a.mlirbc")))
    assert not is_bytecode(read_source(str(tmp_path / "a.mlir")))


def test_memplan_check_reads_any_input(tmp_path, encode):
    path = encode(tmp_path / "scale.in", SCALE.read_text())
    p = run(CHECK, SCALE, path, "--entry", "scale")
    assert p.returncode == 0 and p.stdout.startswith("OK"), p.stdout + p.stderr


def test_memplan_explain_reads_any_input(tmp_path, encode):
    path = encode(tmp_path / "mlp.in", MLP.read_text())
    p = run(MEMPLAN, "explain", path)
    assert p.returncode == 0, p.stderr
    assert p.stdout == run(MEMPLAN, "explain", MLP).stdout.replace(str(MLP), str(path))


def test_memplan_transients_reads_any_input(tmp_path, encode):
    path = encode(tmp_path / "scale.in", SCALE.read_text())
    p = run(MEMPLAN, "transients", path, "--func", "scale", "--dim", "0:0=100")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "@scale: 448 bytes of transient storage (for the given shapes)\n"


def test_memplan_report_reads_any_input(tmp_path, encode):
    plain = tmp_path / "plain.mlir"
    plain.write_text(BRANCHES)
    path = encode(tmp_path / "branches.in", BRANCHES)
    p = run(MEMPLAN, "report", path)
    assert p.returncode == 0, p.stderr
    expected = run(MEMPLAN, "report", plain).stdout
    assert "liveness @branches" in p.stdout
    # The same report but for the locations (a line more on top; the
    # bytecode was written from a module parsed without a file name).
    assert [line.split()[:5] for line in p.stdout.splitlines()] == [
        line.split()[:5] for line in expected.splitlines()
    ]


def test_unreadable_and_unparsable_inputs(tmp_path):
    missing = tmp_path / "missing.mlir"
    garbage = tmp_path / "garbage.mlir"
    garbage.write_bytes(b"\x00\xff\xfe func.func")
    truncated = tmp_path / "truncated.mlirbc"
    truncated.write_bytes(bytecode(tmp_path / "full.mlirbc", SCALE.read_text()).read_bytes()[:60])
    for args in (
        [MEMPLAN, "report"],
        [MEMPLAN, "explain"],
        [MEMPLAN, "transients", "--func", "f"],
        [CHECK, SCALE, "--entry", "scale"],
    ):
        for path, needle in (
            (missing, "cannot read"),
            (tmp_path, "cannot read"),
            (garbage, "error:"),
            (truncated, "bytecode"),
        ):
            p = (
                run(*args[:2], path, *args[2:])
                if args[0] != CHECK
                else run(CHECK, SCALE, path, *args[2:])
            )
            one_line_error(p, needle)


def test_check_names_the_side_without_the_entry(tmp_path):
    """Each side's missing entry is an error naming that side, with or
    without the sides lowered in parallel."""
    other = tmp_path / "other.mlir"
    other.write_text(SCALE.read_text().replace("@scale", "@other"))
    for jobs in ("1", "2"):
        p = run(CHECK, SCALE, other, "--entry", "scale", "--jobs", jobs)
        one_line_error(p, "AFTER: no func.func @scale", "@other")
        p = run(CHECK, other, SCALE, "--entry", "scale", "--jobs", jobs)
        one_line_error(p, "BEFORE: no func.func @scale", "@other")


@pytest.mark.parametrize(
    "target, needle",
    [
        ("missing-folder/t.png", "No such file or directory"),
        ("t.xyz", "unknown image format '.xyz'"),
        ("t", "no image format"),
        (".", "no image format"),
        ("folder.png", "Is a directory"),
    ],
)
def test_report_plot_to_a_bad_path(tmp_path, target, needle):
    src = tmp_path / "b.mlir"
    src.write_text(BRANCHES)
    (tmp_path / "folder.png").mkdir()
    p = run(MEMPLAN, "report", src, "--plot", target, cwd=tmp_path)
    one_line_error(p, "memplan report: error: cannot write the plot to", needle)
    assert p.stdout == "" and len(p.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "content, needle",
    [
        ('{"version": 1}', "not a memplan liveness report"),
        ('{"version": 1, "functions": [{"name": "f"}]}', "not a memplan liveness report"),
        ('{"version": 2}', "not a memplan liveness report"),
        ('{"vers', "not JSON"),
        ("[1, 2]", "not a memplan liveness report"),
    ],
)
def test_report_bad_json(tmp_path, content, needle):
    src = tmp_path / "r.json"
    src.write_text(content)
    one_line_error(run(MEMPLAN, "report", src), needle)


def test_bad_command_lines_exit_1():
    one_line_error(run(MEMPLAN), "COMMAND")
    one_line_error(run(MEMPLAN, "report"), "the following arguments are required")
    one_line_error(run(MEMPLAN, "nope"), "invalid choice")
    one_line_error(run(CHECK, SCALE), "the following arguments are required")


def test_standard_input(tmp_path):
    # "-" reads standard input in every tool, undecoded.
    data = b"// \xe9\n" + BRANCHES.encode()
    p = subprocess.run([MEMPLAN, "report", "-"], input=data, capture_output=True, timeout=300)
    assert p.returncode == 0 and p.stdout.startswith(b"liveness @branches"), p.stderr
    p = subprocess.run(
        [MEMPLAN, "explain", "-"], input=MLP.read_bytes(), capture_output=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    p = subprocess.run(
        [MEMPLAN, "report", "-"], input=b'{"version": 1}', capture_output=True, timeout=300
    )
    assert p.returncode == 1 and b"read from a file, not from standard input" in p.stderr
