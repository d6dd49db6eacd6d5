"""Turning MLIR text or a caller's module into a private module to lower.

The numerics checker never touches the caller's module: text or bytecode is
parsed (by :func:`memplan.ir.parse.parse_module`, as mlir-opt parses) into a
module of its own and an ``ir.Module`` is copied (printed with locations and
parsed again in the same context, so dialects loaded there stay available).
"""

from __future__ import annotations

from typing import Optional, Union

from mlir import ir

from memplan.ir.interfaces import is_module
from memplan.ir.parse import location_prefix, parse_module

__all__ = ["ModuleSource", "parse_module", "copy_module", "private_copy", "location_text"]

#: What the public functions accept as a program: a module, its text (in any
#: encoding mlir-opt takes, as ``str`` or ``bytes``) or its bytecode.
ModuleSource = Union[ir.Module, ir.Operation, str, bytes]


#: ``loc("file.mlir":3:7)`` -> ``file.mlir:3:7`` (one implementation, in the IR bridge).
location_text = location_prefix


def copy_module(
    source: ModuleSource, source_name: str = "", context: Optional[ir.Context] = None
) -> ir.Module:
    """Return a private copy of ``source`` (module, module op, text or
    bytecode) safe to mutate.

    The copy lives in ``context``: by default a new context for text and the
    module's own context for a module.  A module is printed (with locations,
    in generic form so every op round-trips) and parsed again.
    """
    if isinstance(source, (str, bytes)):
        return parse_module(
            source, source_name or "<input>", context if context is not None else ir.Context()
        )
    if isinstance(source, (ir.Operation, ir.OpView)) and is_module(source):
        # A module op, as memplan.ir.parse_source returns.
        asm = source.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
        return ir.Module.parse(asm, context if context is not None else source.context)
    if isinstance(source, ir.Module):
        asm = source.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
        return ir.Module.parse(asm, context if context is not None else source.context)
    raise TypeError(
        "expected an mlir.ir.Module, a builtin.module op, MLIR text or bytecode, got "
        f"{type(source).__name__}"
    )


def private_copy(source: ModuleSource, source_name: str = "") -> ir.Module:
    """A copy of ``source`` in a new single-threaded context of its own.

    Passes then report their diagnostics on the calling thread (the MLIR 22
    bindings abort the process on diagnostics from worker threads, see
    :func:`memplan.ir.parse.parse_source`), and the caller's context is left
    as it was.
    """
    context = ir.Context()
    context.enable_multithreading(False)
    return copy_module(source, source_name, context)
