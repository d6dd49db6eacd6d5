"""Modules from other MLIR stacks: :func:`import_module`.

memplan runs on the MLIR Python bindings of ``xtc-mlir-python-bindings``
(package ``mlir``). Other stacks bundle bindings of their own, often of
another LLVM release (torch-mlir's ``torch_mlir.ir``, IREE's
``iree.compiler.ir``): their modules live in another library, and handing
one to a function of these bindings fails deep inside nanobind. MLIR text is
what every release reads and writes, so a foreign module crosses over as
text, printed by its own bindings (the generic op form first: custom
assembly formats change between releases, the generic form hardly does) and
parsed here, with a clear error for what this MLIR does not have.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from mlir import ir

from memplan.ir.interfaces import is_module
from memplan.ir.parse import (
    DIALECT_ADVICE,
    ParseError,
    mlir_version,
    parse_module,
    unregistered_dialects,
)

__all__ = ["ForeignModuleError", "import_module", "is_foreign", "foreign_module_message"]


class ForeignModuleError(ValueError):
    """A module that cannot be brought into the MLIR memplan runs on."""


def _ours(obj: Any) -> bool:
    return isinstance(obj, (ir.Module, ir.Operation, ir.OpView))


def is_foreign(obj: Any) -> bool:
    """Whether ``obj`` looks like a module or operation of other MLIR Python
    bindings (it prints itself with ``get_asm``) rather than of ``mlir.ir``."""
    if _ours(obj):
        return False
    target = getattr(obj, "operation", obj)
    return callable(getattr(target, "get_asm", None))


def _bindings(obj: Any) -> str:
    """The Python package of the bindings ``obj`` comes from (``torch_mlir``)."""
    module = type(obj).__module__ or "?"
    return module.split(".")[0]


def foreign_module_message(obj: Any, what: str = "memplan") -> str:
    """Why ``obj`` cannot be used as is, and what to do."""
    if is_foreign(obj):
        return (
            f"{what} got a {type(obj).__name__} of other MLIR Python bindings "
            f"({type(obj).__module__}); "
            f"memplan runs on the 'mlir' bindings (MLIR {mlir_version()}), and the two do not "
            "share "
            "objects: bring the module over with memplan.import_module(module) (it goes through "
            "text), or print it with its own bindings and parse the text"
        )
    return (
        f"{what} expected an mlir.ir.Module or a builtin.module operation, "
        f"got {type(obj).__module__}.{type(obj).__name__}"
    )


def _text(obj: Any, generic: bool) -> str:
    """``obj`` printed by its own bindings, with locations."""
    target = getattr(obj, "operation", obj)
    try:
        return target.get_asm(enable_debug_info=True, print_generic_op_form=generic)
    except TypeError:  # bindings with other keyword names: their default form
        if generic:
            raise
        return str(obj)


#: A generic op name: ``"dialect.op"(``.
_GENERIC_OP = re.compile(r'"([A-Za-z_][\w$]*)\.([\w$.]+)"\(')


def _unknown_dialects(text: str, context: ir.Context) -> list[str]:
    """Dialects of ops in generic-form ``text`` that ``context`` does not know."""
    unknown = {}
    for dialect, rest in _GENERIC_OP.findall(text):
        name = f"{dialect}.{rest}"
        if not context.is_registered_operation(name):
            unknown.setdefault(dialect, name)
    return [f"'{d}' (e.g. {op})" for d, op in sorted(unknown.items())]


def _dialects_message(source: str, unknown: list[str]) -> str:
    """Why a module using the ``unknown`` dialects (``'torch' (e.g. torch.aten.mm)``) is refused."""
    plural = "s" if len(unknown) > 1 else ""
    return (
        f"the module{source} uses dialect{plural} {', '.join(unknown)} that MLIR "
        f"{mlir_version()} (the bindings memplan runs on) does not have: {DIALECT_ADVICE}"
    )


def _named_in_text(text: str, dialects: list[str]) -> list[str]:
    """``dialects`` as ``'torch' (e.g. torch.aten.relu)``, with the first op of
    each in MLIR text (custom or generic form; types and attributes do not count)."""
    named = []
    for dialect in dialects:
        op = re.search(rf"(?<![!#\w$.]){re.escape(dialect)}\.[\w$.]*[\w$]", text)
        named.append(f"'{dialect}'" + (f" (e.g. {op.group(0)})" if op else ""))
    return named


def import_module(obj: Any, context: Optional[ir.Context] = None) -> ir.Module:
    """An ``mlir.ir.Module`` memplan's passes and tools take, from

    * a module or ``builtin.module`` op of these bindings (a module is
      returned as is; an op as a module of a copy),
    * a module of any other MLIR Python bindings (torch-mlir's, IREE's,
      another LLVM release's), printed as text by its own bindings and parsed
      here (generic op form first, then the custom form),
    * MLIR text (``str`` or ``bytes`` in any encoding) or bytecode.

    The module lives in ``context`` (default: the current one, or a new one).
    Raises :class:`ForeignModuleError` when the module uses dialects the
    bindings here do not have (naming them) or does not parse here (with
    MLIR's diagnostic).
    """
    if isinstance(obj, ir.Module) and context is None:
        return obj
    if context is None:  # the current one (None outside a `with`), else a new one
        context = ir.Context.current or ir.Context()
    if isinstance(obj, (str, bytes, bytearray)):
        try:
            return parse_module(
                bytes(obj) if not isinstance(obj, str) else obj, "<import>", context
            )
        except ParseError as err:
            dialects = unregistered_dialects(str(err))
            if not dialects:
                raise ForeignModuleError(str(err)) from None
            text = obj if isinstance(obj, str) else bytes(obj).decode("latin-1")
            raise ForeignModuleError(
                _dialects_message("", _named_in_text(text, dialects)) + "\n" + str(err)
            ) from None
    if _ours(obj):
        op = obj.operation
        if not is_module(op):
            raise ForeignModuleError(f"expected a builtin.module, got {op.name}")
        asm = op.get_asm(enable_debug_info=True, print_generic_op_form=True)
        return parse_module(asm, "<import>", context)
    if not is_foreign(obj):
        raise ForeignModuleError(foreign_module_message(obj, "import_module"))
    source = _bindings(obj)
    errors = []
    for generic in (True, False):
        try:
            text = _text(obj, generic)
        except Exception as err:  # noqa: BLE001 - foreign bindings raise their own types
            errors.append(f"{source} cannot print it: {err}")
            continue
        if generic:
            unknown = _unknown_dialects(text, context)
            if unknown:
                raise ForeignModuleError(_dialects_message(f" from {source}", unknown))
        try:
            return parse_module(text, f"<{source}>", context)
        except ParseError as err:
            errors.append(str(err).splitlines()[0])
    raise ForeignModuleError(
        f"the module from {source} does not parse with MLIR {mlir_version()} (the bindings memplan "
        f"runs on); it may use syntax of a newer MLIR: {errors[0]}"
    )
