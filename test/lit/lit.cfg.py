# Lit configuration for memplan: tools come from the installed wheels, so no
# system LLVM is needed. Run with `python -m lit test/lit` from the venv.
import importlib.util
import os
import sys

import lit.formats

config.name = "memplan"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
config.excludes = ["inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)


def _package_dir(name):
    spec = importlib.util.find_spec(name)
    if spec is None:
        lit_config.fatal(f"python package '{name}' is not installed in {sys.executable}")
    return list(spec.submodule_search_locations)[0]


mlir_bin = os.path.join(_package_dir("mlir"), "bin")
llvm_bin = os.path.join(_package_dir("llvm"), "bin")
scripts = os.path.dirname(sys.executable)


def _tool(path):
    if not os.path.exists(path):
        lit_config.fatal(f"missing tool: {path}")
    return path


config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("memplan-opt", _tool(os.path.join(scripts, "memplan-opt"))))
config.substitutions.append(("memplan-check", _tool(os.path.join(scripts, "memplan-check"))))
config.substitutions.append(("mlir-opt", _tool(os.path.join(mlir_bin, "mlir-opt"))))
config.substitutions.append(("FileCheck", _tool(os.path.join(llvm_bin, "FileCheck"))))
config.environment["PATH"] = os.pathsep.join(
    [scripts, llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))]
)
