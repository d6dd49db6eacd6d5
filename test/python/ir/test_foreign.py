"""Modules from other MLIR stacks: ``memplan.import_module`` brings a module
of any MLIR Python bindings over as text; a foreign module handed to
``memplan.run_pipeline`` and bytecode of a newer MLIR are errors that say
what happened and what to do."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mlir import ir

import memplan
from memplan.ir.parse import ParseError, bytecode_producer, load_source

BIN = os.path.dirname(sys.executable)
#: ``relu(x) * 2`` on tensor<3x8xf32>, written as bytecode by torch-mlir's
#: bindings (MLIR 24, torch-mlir 20261001): its builtin attributes use a code
#: MLIR 22 does not know ("unknown attribute code: 23").
LLVM24_BYTECODE = Path(__file__).parents[1] / "inputs" / "foreign" / "relu_llvm24.mlirbc"

LINALG = """
#map = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
"""


class ForeignOperation:
    """An operation of other bindings: it only prints itself."""

    def __init__(self, generic: str, custom: str):
        self.generic, self.custom = generic, custom

    def get_asm(self, enable_debug_info=False, print_generic_op_form=False):
        return self.generic if print_generic_op_form else self.custom


class ForeignModule:
    def __init__(self, generic: str, custom: str = ""):
        self.operation = ForeignOperation(generic, custom or generic)


def foreign(text: str) -> ForeignModule:
    with ir.Context():
        op = ir.Module.parse(text).operation
        return ForeignModule(op.get_asm(print_generic_op_form=True), str(op))


def test_run_pipeline_names_a_foreign_module():
    with pytest.raises(
        TypeError, match=r"other MLIR Python bindings .*memplan\.import_module\(module\)"
    ):
        memplan.run_pipeline(foreign(LINALG), "builtin.module(canonicalize)")
    with pytest.raises(TypeError, match="expected an mlir.ir.Module"):
        memplan.run_pipeline("not a module", "builtin.module(canonicalize)")


def test_import_module_round_trips_through_text():
    with ir.Context():
        module = memplan.import_module(foreign(LINALG))
        assert isinstance(module, ir.Module)
        memplan.run_pipeline(module, "builtin.module(memplan-memory-pipeline)")
        assert "memref" in str(module)
        # Our own module comes back as is; text and bytecode are parsed.
        assert memplan.import_module(module) is module
        assert "linalg.generic" in str(memplan.import_module(LINALG))
        assert "linalg.generic" in str(memplan.import_module(LINALG.encode("latin-1")))


def test_import_module_falls_back_to_the_custom_form():
    module = foreign(LINALG)
    module.operation.generic = '"builtin.module"() ({ "func.func"() <{newer_syntax = #future<1>}> '
    assert "linalg.generic" in str(memplan.import_module(module))


def test_import_module_names_unknown_dialects():
    generic = foreign(LINALG).operation.generic.replace('"arith.addf"', '"torch.aten.add"')
    with pytest.raises(
        memplan.ForeignModuleError,
        match=r"dialect 'torch' \(e\.g\. torch\.aten\.add\).*" r"output_type='linalg-on-tensors'",
    ):
        memplan.import_module(ForeignModule(generic))


def test_import_module_syntax_of_a_newer_mlir():
    bad = '"builtin.module"() ({ "func.func"() <{sym_name = #builtin.newer<1>}> '
    with pytest.raises(
        memplan.ForeignModuleError, match=r"does not parse with MLIR 22\.1\.8.*newer MLIR"
    ):
        memplan.import_module(ForeignModule(bad))


def test_newer_bytecode_says_what_happened():
    data = LLVM24_BYTECODE.read_bytes()
    assert bytecode_producer(data) == (6, "MLIR24.0.0git")
    with pytest.raises(ParseError) as err:
        with ir.Context():
            load_source(str(LLVM24_BYTECODE))
    message = str(err.value)
    assert "unknown attribute code: 23" in message
    assert "written by 'MLIR24.0.0git' and memplan reads it with MLIR 22.1.8" in message
    assert "Hand the module over as text" in message


@pytest.mark.parametrize(
    "tool",
    [["memplan", "explain"], ["memplan", "report"], ["memplan", "transients", "--func", "main"]],
)
def test_every_tool_explains_newer_bytecode(tool):
    cmd = [os.path.join(BIN, tool[0]), tool[1], str(LLVM24_BYTECODE), *tool[2:]]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "written by 'MLIR24.0.0git'" in p.stderr


def test_damaged_bytecode_of_this_mlir(tmp_path):
    with ir.Context():
        import io

        buffer = io.BytesIO()
        ir.Module.parse(LINALG).operation.write_bytecode(buffer)
    path = tmp_path / "cut.mlirbc"
    path.write_bytes(buffer.getvalue()[:40])
    with pytest.raises(ParseError, match="written by this MLIR .*damaged or truncated"):
        with ir.Context():
            load_source(str(path))


#: ``relu(x) * 2`` exported by torch-mlir at the ``torch`` level (text).
TORCH_TEXT = Path(__file__).parents[1] / "inputs" / "foreign" / "relu_torch.mlir"


def test_import_module_names_the_torch_dialect_of_text():
    with pytest.raises(memplan.ForeignModuleError) as err:
        memplan.import_module(TORCH_TEXT.read_text())
    message = str(err.value)
    assert message.startswith(
        "the module uses dialect 'torch' (e.g. torch.constant.int) that MLIR " "22.1.8"
    )
    assert "output_type='linalg-on-tensors'" in message
    assert "<import>:3:33: error:" in message  # MLIR's located diagnostic follows
    # Generic-form ops and attributes of an unknown dialect are named too.
    generic = 'func.func @f() {\n  %0 = "torch.constant.int"() : () -> i64\n  return\n}\n'
    named = r"dialect 'torch' \(e\.g\. torch\.constant\.int\)"
    with pytest.raises(memplan.ForeignModuleError, match=named):
        memplan.import_module(generic)
    with pytest.raises(memplan.ForeignModuleError, match=r"^the module uses dialect 'iree'"):
        memplan.import_module("func.func @f() attributes {x = #iree.layout<1>} {\n  return\n}\n")


@pytest.mark.parametrize(
    "tool",
    [
        ["memplan-opt"],
        ["memplan-check", "--entry", "main", "{0}"],
        ["memplan", "explain"],
        ["memplan", "transients", "--func", "main"],
    ],
)
@pytest.mark.parametrize("source", [TORCH_TEXT, LLVM24_BYTECODE])
def test_every_tool_explains_foreign_input(tool, source):
    # memplan-opt is MLIR's driver: its notes come after the driver's errors.
    head, rest = (tool[:2], tool[2:]) if tool[0] == "memplan" else (tool[:1], tool[1:])
    cmd = [os.path.join(BIN, head[0]), *head[1:], str(source), *[a.format(source) for a in rest]]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    if source == TORCH_TEXT:
        # explain and report allow unregistered dialects: the error is then the first op's.
        assert f"{source}:3:33: error:" in p.stderr or f"{source}:4:13: error:" in p.stderr
        assert f"{source}: note: the module uses dialect 'torch', which MLIR 22.1.8" in p.stderr
    else:
        assert "unknown attribute code: 23" in p.stderr
        assert f"{source}: note: this bytecode was written by 'MLIR24.0.0git'" in p.stderr
