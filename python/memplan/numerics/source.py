"""Turning MLIR text or a caller's module into a private module to lower.

The numerics checker never touches the caller's module: text is parsed into
a module of its own and an ``ir.Module`` is copied (printed with locations and
parsed again in the same context, so dialects loaded there stay available).
"""

from __future__ import annotations

import os
from typing import Optional, Union

from mlir import ir

from memplan.ir.parse import location_prefix

__all__ = ["ModuleSource", "parse_module", "copy_module", "private_copy", "location_text"]

#: What the public functions accept as a program: a module or its text.
ModuleSource = Union[ir.Module, ir.Operation, str]

_MULTIPLE_TOP_LEVEL = "source must contain a single top-level operation"


#: ``loc("file.mlir":3:7)`` -> ``file.mlir:3:7`` (one implementation, in the IR bridge).
location_text = location_prefix


def _wrap_in_module(op: ir.Operation) -> ir.Module:
    module = ir.Module.create(op.location)
    ir.InsertionPoint(module.body).insert(op)
    return module


def parse_module(
    text: str,
    source_name: str = "",
    context: Optional[ir.Context] = None,
) -> ir.Module:
    """Parse MLIR text into a ``builtin.module``.

    The text is parsed with ``ir.Operation.parse`` so diagnostics carry
    ``source_name:line:col``.  A single top-level ``builtin.module`` is used as
    is, a single other top-level op is wrapped in a fresh module, and text with
    several top-level ops is parsed as a module body (the way ``mlir-opt``
    does): from the file itself when ``source_name`` names an existing file
    (exact locations), otherwise from the text.

    Raises ``mlir.ir.MLIRError`` when the text does not parse or verify.
    """
    ctx = context if context is not None else ir.Context()
    with ctx:
        try:
            op = ir.Operation.parse(text, source_name=source_name, context=ctx)
        except ir.MLIRError as err:
            if _MULTIPLE_TOP_LEVEL not in str(err):
                raise
            if source_name and os.path.isfile(source_name):
                with open(source_name, encoding="utf-8") as fh:
                    if fh.read() == text:
                        return ir.Module.parseFile(source_name, ctx)
            return ir.Module.parse(text, ctx)
        op = op.operation
        if op.name == "builtin.module":
            # Operation.parse hands back a detached module op; re-home it in an
            # ir.Module (which the ExecutionEngine wants) without re-parsing.
            module = ir.Module.create(op.location)
            for inner in list(op.regions[0].blocks[0].operations):
                ir.InsertionPoint(module.body).insert(inner.detach_from_parent())
            for name in list(op.attributes):
                name = getattr(name, "name", name)
                module.operation.attributes[name] = op.attributes[name]
            return module
        return _wrap_in_module(op)


def copy_module(
    source: ModuleSource, source_name: str = "", context: Optional[ir.Context] = None
) -> ir.Module:
    """Return a private copy of ``source`` (module, module op or text) safe to mutate.

    The copy lives in ``context``: by default a new context for text and the
    module's own context for a module.  A module is printed (with locations,
    in generic form so every op round-trips) and parsed again.
    """
    if isinstance(source, str):
        return parse_module(source, source_name=source_name, context=context)
    if isinstance(source, (ir.Operation, ir.OpView)) and source.operation.name == "builtin.module":
        # A module op, as memplan.ir.parse_source returns.
        asm = source.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
        return ir.Module.parse(asm, context if context is not None else source.context)
    if isinstance(source, ir.Module):
        asm = source.operation.get_asm(
            enable_debug_info=True, print_generic_op_form=True
        )
        return ir.Module.parse(asm, context if context is not None else source.context)
    raise TypeError(
        f"expected an mlir.ir.Module, a builtin.module op or MLIR text, got {type(source).__name__}"
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
