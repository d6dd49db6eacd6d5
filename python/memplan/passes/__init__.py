"""The memplan pass registry, shared by the Python API and the CLI.

Every memplan pass is a Python-defined MLIR pass: ``memplan.passes.<name>(**options)``
returns a :class:`MemplanPass`, a callable for ``PassManager.add``. Names follow
MLIR conventions: the pipeline argument is kebab-case and prefixed ``memplan-``;
the Python name drops the prefix and uses underscores
(``memplan-buffer-reuse`` -> ``memplan.passes.buffer_reuse``).

Example::

    from mlir import ir, passmanager
    import memplan.passes

    pm = passmanager.PassManager("builtin.module")
    pm.add("one-shot-bufferize{bufferize-function-boundaries}")
    memplan.passes.test_print_graph().add_to(pm)
    pm.run(module.operation)

Every pass and pipeline alias is declared once, in
:mod:`memplan.passes.declarations` (name, summary, description, options, and
its body as ``"module:function"``), which imports nothing heavy: importing
memplan registers them all in MLIR's registry without importing a pass'
module, which is imported when the pass first runs (or its Python
description is asked for). This keeps ``memplan-opt``'s start-up near the
bindings' own.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import threading
import traceback
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple, Optional, Sequence, Union

from memplan import _core
from memplan.passes.capacity import Capacity, parse_capacity

if TYPE_CHECKING:  # mlir.ir imports numpy: only where a pass runs
    from mlir import ir

#: The module that declares every pass (imported on first registry use, so
#: that it and the pass modules may import this one freely).
_DECLARATIONS = "memplan.passes.declarations"
#: Modules that declare passes with the :func:`register_pass` decorator when
#: imported: they are imported at start-up, with all they import. Declare
#: new passes in :mod:`memplan.passes.declarations` instead.
_PASS_MODULES: tuple[str, ...] = ()


class PassOptionError(ValueError):
    """A pass option that does not exist or does not parse."""


class uint32(int):
    """The type of an option that mirrors an upstream ``unsigned`` option:
    values in [0, 2**32), parsed by MLIR like upstream's."""

    BITS = 32


class uint64(int):
    """The type of an option that mirrors an upstream ``uint64_t`` option:
    values in [0, 2**64), parsed by MLIR like upstream's."""

    BITS = 64


class alignment(int):
    """The type of a byte alignment option: a positive power of two (an
    ``int64_t`` in MLIR)."""


class capacity(str):
    """The type of a memory capacity option (an MLIR string; ``""``: none):
    ``N`` bytes for every memory space, or ``SPACE:N,...`` (see
    :mod:`memplan.passes.capacity`). A value is the text, parsed once when it is
    made (when the pipeline is parsed): :attr:`bounds`. Raises ValueError
    when the text does not parse."""

    bounds: Capacity
    """The capacities the text gives."""

    def __new__(cls, text: object) -> "capacity":
        bounds = parse_capacity(text)
        value = super().__new__(cls, text)
        value.bounds = bounds
        return value


#: The Python type of each option type's name (declared once, in C++:
#: include/memplan/Passes/OptionTypes.def): an unsigned one's by its width.
_TABLE_TYPES: dict[str, type] = {
    name: {uint32.BITS: uint32, uint64.BITS: uint64}[bits] if bits else value_type
    for name, value_type, bits in _core.OPTION_TYPES
}

#: The option type MLIR declares for each Python option type (a subclass of
#: int or str without one of its own: its base's).
_MLIR_TYPES = {kind: name for name, kind in _TABLE_TYPES.items()}
_MLIR_TYPES.update({alignment: _MLIR_TYPES[int], capacity: _MLIR_TYPES[str]})


# No dataclasses here: importing them costs memplan-opt a tenth of its
# start-up (they import inspect).


class Option(NamedTuple):
    """A typed pass option, spelled ``{name=value}`` in a pipeline.

    Declared once, in the pass' declaration: MLIR declares a real pass
    option from it (``--help``, ``--list-passes``, printed pipelines) and
    parses its text; Python keyword arguments are checked against it."""

    name: str
    type: type
    default: Any
    help: str
    choices: Optional[tuple[str, ...]] = None

    @property
    def py_name(self) -> str:
        """The option's name in Python keyword spelling."""
        return self.name.replace("-", "_")

    def convert(self, value: Any) -> Any:
        """Check and convert a Python value given to the option: a bool takes
        True/False, 1/0 or "true"/"false"/"1"/"0"; an int takes an integer
        (or its decimal text), never a bool or a fraction; an alignment a
        positive power of two."""
        value = _convert(self, value)
        if self.choices is not None and value not in self.choices:
            raise PassOptionError(
                f"option '{self.name}' must be one of {', '.join(self.choices)}; got '{value}'"
            )
        return value

    def format(self, value: Any) -> str:
        """The value as MLIR prints it in a pipeline (a string with spaces in
        braces)."""
        if self.type is bool:
            return "true" if value else "false"
        text = str(value)
        return "{" + text + "}" if " " in text else text


CAPACITY = Option(
    "capacity",
    capacity,
    capacity(""),
    "bytes each memory space may use: N (every space) or SPACE:N,... (0: the default space; "
    "a plain N for the spaces not listed)",
)
"""The ``capacity`` option of memplan-buffer-liveness, memplan-buffer-reuse and
the transient-storage passes (declared once, here)."""

SEARCH_BUDGET = Option(
    "search-budget",
    uint64,
    _core.PACKING_DEFAULT_BUDGET,
    "steps the packer's exact search may spend on each pool, when its heuristics stop above the "
    "lower bound or outside the capacity (counted, not timed: the same plan on any machine; "
    f"0: heuristics only). The default, {_core.PACKING_DEFAULT_BUDGET}, is about 5 s of one core "
    "of "
    "the reference machine (a 2-core x86 with no other job); with a capacity it lets the search "
    f"for a pool within the capacity go on to {_core.PACKING_DEFAULT_CAPACITY_BUDGET} steps, about "
    "30 s, before it gives up",
)
"""The ``search-budget`` option of the passes that pack buffers into pools
(memplan-buffer-reuse and the transient-storage passes)."""


def table_options(
    rows: Sequence[tuple[str, str, Any, str, Optional[tuple[str, ...]]]],
) -> list[Option]:
    """The options a C++ option table declares (``.def`` rows exported by
    memplan._core: name, MLIR type, default, help, choices or None), as
    :class:`Option` s in the table's order."""
    return [
        Option(name, _TABLE_TYPES[kind], default, help_text, choices)
        for name, kind, default, help_text, choices in rows
    ]


def declared_statistics(stats: Any) -> list[tuple[str, str]]:
    """The pass statistics a C++ rewrite's counters class (a ``_core``
    ``*Stats``, whose ``STATISTICS`` rows come from Counters.def) reports, as
    (name, description) in the class' order."""
    return [(name, description) for _, name, description in stats.STATISTICS]


def search_budget(values: dict[str, Any]) -> Optional[int]:
    """The packer's ``budget`` from a pass' option values: None (the
    packer's default, which searches longer for a fit to a capacity) where
    ``search-budget`` has its default value."""
    budget = values["search_budget"]
    return None if budget == SEARCH_BUDGET.default else budget


def forward_options(values: dict[str, Any], options: Sequence[Option]) -> str:
    """`` name=value`` for each of ``options`` set in ``values`` (a pipeline's
    typed option values) to other than its default: how a pipeline alias
    passes its options on to the passes it expands to."""
    return "".join(
        f" {o.name}={o.format(values[o.py_name])}"
        for o in options
        if values[o.py_name] != o.default
    )


_BOOL_TEXT = {"true": True, "1": True, "false": False, "0": False}


def _convert(opt: Option, value: Any) -> Any:
    def bad() -> PassOptionError:
        return PassOptionError(
            f"option '{opt.name}' expects {_MLIR_TYPES[opt.type]}, got {value!r}"
        )

    if opt.type is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _BOOL_TEXT:
            return _BOOL_TEXT[value.strip().lower()]
        raise bad()
    if opt.type in (int, alignment, uint32, uint64):
        if isinstance(value, bool):
            raise bad()
        if isinstance(value, str):
            try:
                value = int(value.strip(), 10)
            except ValueError:
                raise bad() from None
        if not isinstance(value, int):
            raise bad()
        if opt.type in (uint32, uint64):
            # Upstream's range, and upstream's meaning for every value in it
            # (alignment 0: none).
            if not 0 <= value < 2**opt.type.BITS:
                raise PassOptionError(
                    f"option '{opt.name}' expects an unsigned {opt.type.BITS}-bit integer, got "
                    f"{value}"
                )
        if opt.type is alignment and (value <= 0 or value & (value - 1)):
            raise PassOptionError(
                f"option '{opt.name}' must be a positive power of two, got {value}"
            )
        return int(value)
    if opt.type is capacity:
        if isinstance(value, capacity):
            return value
        try:
            return capacity(value)
        except ValueError as err:
            raise PassOptionError(f"option '{opt.name}' {err}") from None
    if opt.type is str and not isinstance(value, str):
        raise bad()
    try:
        return opt.type(value)
    except (TypeError, ValueError):
        raise bad() from None


class PassContext:
    """What a running pass sees: its options, and sinks for diagnostics and statistics."""

    def __init__(
        self,
        info: "PassInfo",
        options: dict[str, Any],
        nested_pipeline: Optional[Callable[[str], bool]] = None,
    ):
        self.info = info
        self.options = options
        self.failed = False
        self.statistics: dict[str, tuple[int, str]] = {}
        #: Set by a pass that changed no op, operand, region or block (at
        #: most discardable attributes): the pass manager then keeps every
        #: analysis and does not verify the IR again after the pass.
        self.preserves_all_analyses = False
        #: Set by MLIR's pass manager: runs a nested pipeline on the pass' op.
        self.nested_pipeline = nested_pipeline

    def run_pipeline(self, pipeline: str) -> bool:
        """Run the textual ``builtin.module(...)`` pipeline on the pass' op
        as a nested pipeline of the running pass manager (MLIR's
        ``Pass::runPipeline``); False (after its diagnostics) when it fails.
        Outside a pass manager (:func:`execute` from Python), a pass manager
        of its own runs it."""
        if self.nested_pipeline is not None:
            return self.nested_pipeline(pipeline)
        raise RuntimeError(f"{self.info.argument}: nested pipelines need MLIR's pass manager")

    def error(self, where: Any, message: str, notes: Sequence[tuple[Any, str]] = ()) -> None:
        """Emit an MLIR error at an op or location, with ``notes`` (op or
        location, message) attached; the pass will fail."""
        if notes:
            _core.emit_diagnostic(
                _location(where), 0, message, [(_location(at), note) for at, note in notes]
            )
        else:
            _location(where).emit_error(message)
        self.failed = True

    def remark(self, where: Any, message: str) -> None:
        """Report a remark at an op or location (see :func:`_report`)."""
        _report(_location(where), "remark", message)

    def warning(self, where: Any, message: str, notes: Sequence[tuple[Any, str]] = ()) -> None:
        """Report a warning at an op or location, with ``notes`` (op or
        location, message) attached (see :func:`_report`)."""
        _report(_location(where), "warning", message, [(_location(at), note) for at, note in notes])

    def stat(self, name: str, value: int, description: str) -> None:
        """Add ``value`` to the statistic ``name``."""
        old, _ = self.statistics.get(name, (0, description))
        self.statistics[name] = (old + int(value), description)


#: Set by memplan-opt, whose driver has MLIR's source-manager handler on every
#: context: remarks and warnings then go through MLIR (source line and caret,
#: ``expected-remark`` under -verify-diagnostics). Without a handler MLIR drops
#: them, so the Python API prints them in MLIR's ``file:line:col:`` form.
EMIT_THROUGH_MLIR = False


def _report(
    loc: "ir.Location", severity: str, message: str, notes: Sequence[tuple["ir.Location", str]] = ()
) -> None:
    if EMIT_THROUGH_MLIR:
        _core.emit_diagnostic(loc, {"warning": 1, "remark": 2}[severity], message, list(notes))
        return
    from memplan.ir.parse import location_prefix

    print(f"{location_prefix(loc)}: {severity}: {message}", file=sys.stderr)
    for at, note in notes:
        print(f"{location_prefix(at)}: note: {note}", file=sys.stderr)


def _location(where: Any) -> "ir.Location":
    from mlir import ir

    if isinstance(where, ir.Location):
        return where
    return where.location


RunFn = Callable[["ir.Operation", PassContext], None]


class PassInfo:
    """A registered pass: its pipeline argument, documentation and options."""

    def __init__(
        self,
        argument: str,
        summary: str,
        declared_description: Optional[str],
        options: Sequence[Option],
        run: Union[RunFn, str, None] = None,
        expand: Optional[Callable[[dict[str, Any]], str]] = None,
        per_module: bool = False,
        on_functions: bool = False,
        statistics: Sequence[tuple[str, str]] = (),
    ):
        self.argument = argument
        self.summary = summary
        #: The long description; None: the docstring of the module of ``run``.
        self.declared_description = declared_description
        self.options = tuple(options)
        #: The pass' body: a callable, or where it is, ``"module:function"``
        #: (imported when the pass first runs: :meth:`runner`). None for a
        #: pipeline alias.
        self.run = run
        #: For a pipeline alias: maps the options to the textual pipeline it
        #: stands for.
        self.expand = expand
        #: ``run`` is called on the anchor module and then on every
        #: ``builtin.module`` nested in it, each its own symbol table.
        self.per_module = per_module
        #: A pass on functions: op-agnostic in MLIR, it runs on the op it is
        #: nested under, a module or any FunctionOpInterface op
        #: (``builtin.module(func.func(memplan-...))`` runs it per function,
        #: on the pass manager's threads); ``run`` then sees that op.
        self.on_functions = on_functions
        #: The statistics the pass reports, (name, description), made up
        #: front in this order (a pass on functions reports no other).
        self.statistics = tuple(statistics)
        #: typed_values' answers, by the values MLIR parsed.
        self._converted: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}

    def __repr__(self) -> str:
        return f"<PassInfo {self.argument}>"

    @property
    def py_name(self) -> str:
        """The pass' name in Python spelling, without ``memplan-``."""
        return self.argument.removeprefix("memplan-").replace("-", "_")

    @property
    def is_pipeline(self) -> bool:
        """A pipeline alias (it expands to passes; it does not run)."""
        return self.expand is not None

    @property
    def signature(self) -> str:
        """The pass as a pipeline element with every option at its default,
        as the README's pass table shows it: ``memplan-x{a=1 b=false}``
        (an option with choices lists them, its default first; an option
        without a default is left empty)."""
        if not self.options:
            return self.argument

        def value(opt: Option) -> str:
            if opt.choices is not None:
                return "|".join([opt.default, *(c for c in opt.choices if c != opt.default)])
            if opt.default is None:
                return ""
            if isinstance(opt.default, bool):
                return "true" if opt.default else "false"
            return str(opt.default)

        return self.argument + "{" + " ".join(f"{o.name}={value(o)}" for o in self.options) + "}"

    def runner(self) -> RunFn:
        """The pass' body, its module imported on first use."""
        run = self.run
        if isinstance(run, str):
            module, _, name = run.partition(":")
            run = self.run = getattr(importlib.import_module(module), name)
        if run is None:
            raise PassOptionError(f"'{self.argument}' is a pipeline; use run_pipeline")
        return run

    @property
    def description(self) -> str:
        """The long description (a pass declared without one: its module's
        docstring, imported on first use)."""
        if self.declared_description is not None:
            return self.declared_description
        module = (
            self.run.partition(":")[0] if isinstance(self.run, str) else self.runner().__module__
        )
        return (importlib.import_module(module).__doc__ or "").strip()

    def option(self, name: str) -> Option:
        """The option named ``name`` (MLIR or Python spelling)."""
        for opt in self.options:
            if opt.name == name or opt.py_name == name:
                return opt
        raise PassOptionError(f"'{self.argument}' has no option '{name}'")

    def typed_values(self, values: Sequence[tuple[str, Any]]) -> dict[str, Any]:
        """MLIR's typed option values, [(name, value)], converted as the pass
        gets them (a capacity with its text parsed), keyed by Python name. Converted once
        per distinct values: :meth:`check`, which MLIR calls when it parses a
        pipeline, converts them; the pass' run finds them converted. Raises
        :class:`PassOptionError`."""
        key = tuple(values)
        converted = self._converted.get(key)
        if converted is None:
            converted = {}
            for name, value in key:
                opt = self.option(name)
                converted[opt.py_name] = opt.convert(value)
            self._converted[key] = converted
        return dict(converted)

    def check(self, values: Sequence[tuple[str, Any]]) -> str:
        """What MLIR's parsers cannot check in its typed values (an alignment
        that is not a power of two, a capacity that does not parse): the
        error, or ""."""
        try:
            self.typed_values(values)
        except PassOptionError as err:
            return str(err)
        return ""

    def resolve_options(self, given: dict[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with ``given`` (keys in either spelling), checked."""
        values = {opt.py_name: opt.default for opt in self.options}
        for key, value in given.items():
            opt = self.option(key)
            values[opt.py_name] = opt.convert(value)
        return values


class MemplanPass:
    """A configured memplan pass; call it as ``PassManager.add`` expects."""

    def __init__(self, info: PassInfo, options: dict[str, Any]):
        if info.is_pipeline:
            raise PassOptionError(f"'{info.argument}' is a pipeline; use run_pipeline")
        self.info = info
        self.options = info.resolve_options(options)
        self.__name__ = info.py_name
        #: Statistics of the most recent run.
        self.statistics: dict[str, tuple[int, str]] = {}

    def __call__(self, op: "ir.Operation", pass_: Any) -> None:
        ctx = execute(self.info, dict(self.options), op, self._nested_pipeline(op))
        self.statistics = ctx.statistics
        if ctx.failed:
            pass_.signal_pass_failure()

    @staticmethod
    def _nested_pipeline(op: "ir.Operation") -> Callable[[str], bool]:
        # The bindings' Python passes cannot reach Pass::runPipeline: a
        # pass manager of their own runs the nested pipeline.
        def run(pipeline: str) -> bool:
            from mlir import ir, passmanager

            try:
                passmanager.PassManager.parse(pipeline, op.context).run(op)
            except ir.MLIRError as err:
                for diag in err.error_diagnostics:
                    diag.location.emit_error(diag.message)
                return False
            return True

        return run

    def add_to(self, pm: Any) -> None:
        """Append this pass to a ``mlir.passmanager.PassManager`` on builtin.module."""
        pm.add(self, self.info.py_name, self.info.argument, self.info.summary)

    def pipeline_text(self) -> str:
        """The pass as a textual pipeline element with every option spelled out."""
        opts = " ".join(
            f"{opt.name}={opt.format(self.options[opt.py_name])}" for opt in self.info.options
        )
        return f"{self.info.argument}{{{opts}}}" if opts else self.info.argument

    def __repr__(self) -> str:
        return f"<MemplanPass {self.pipeline_text()}>"


def execute(
    info: PassInfo,
    values: dict[str, Any],
    op: "ir.Operation",
    nested_pipeline: Optional[Callable[[str], bool]] = None,
) -> PassContext:
    """Run the pass ``info`` with resolved option ``values`` on ``op``; an
    exception becomes a located error (a bug must not take the process down)."""
    ctx = PassContext(info, values, nested_pipeline)
    # Builders need a default location; the op's is the natural one.
    with op.location:
        try:
            run = info.runner()
            for module in modules_in(op) if info.per_module else [op]:
                run(module, ctx)
        except Exception as err:
            if os.environ.get("MEMPLAN_DEBUG"):
                traceback.print_exc()
            ctx.error(op, f"{info.argument}: internal error: {type(err).__name__}: {err}")
    return ctx


def modules_in(op: "ir.Operation") -> list["ir.Operation"]:
    """``op`` and the ``builtin.module`` ops (mlir::ModuleOp) nested in it, in
    pre-order (function bodies, FunctionOpInterface, are not searched)."""
    from mlir import ir

    found: list[ir.Operation] = []

    def visit(o: ir.Operation) -> ir.WalkResult:
        kind = _core.op_interfaces(o._CAPIPtr)
        if kind & _core.OpInterface.MODULE:
            found.append(o)
        elif kind & _core.OpInterface.FUNCTION:
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    if not _core.op_interfaces(op._CAPIPtr) & _core.OpInterface.MODULE:
        return [op]
    op.walk(visit, ir.WalkOrder.PRE_ORDER)  # the walk starts with ``op`` itself
    return found


def parse_option_text(info: PassInfo, text: Optional[str]) -> dict[str, Any]:
    """The option values ``{text}`` gives the pass ``info`` (defaults for the
    rest), parsed by MLIR as in a pipeline; raises :class:`PassOptionError`."""
    _ensure_loaded()
    try:
        return info.typed_values(_core.parse_pass_options(info.argument, text or ""))
    except ValueError as err:
        raise PassOptionError(str(err)) from None


_REGISTRY: dict[str, PassInfo] = {}
_loaded = False
_load_lock = threading.RLock()


def register_pass(
    argument: str,
    summary: str,
    description: Optional[str] = "",
    options: Sequence[Option] = (),
    per_module: bool = False,
    run: Optional[str] = None,
    on_functions: bool = False,
    statistics: Sequence[tuple[str, str]] = (),
) -> Callable[[RunFn], RunFn]:
    """Declares the pass ``argument`` whose body, ``run(module_op, ctx)``, is
    at ``run`` (``"module:function"``, imported when the pass first runs);
    without ``run``, a decorator registering the function it decorates.
    With ``per_module``, the body also sees every nested ``builtin.module``.
    With ``on_functions``, the pass runs on a module or on one function
    (:attr:`PassInfo.on_functions`) and reports only its ``statistics``.
    A ``description`` of None is the docstring of the body's module."""

    def wrap(body: Union[RunFn, str]) -> Any:
        _add(
            PassInfo(
                argument,
                summary,
                description,
                tuple(options),
                run=body,
                per_module=per_module,
                on_functions=on_functions,
                statistics=statistics,
            )
        )
        return body

    if run is not None:
        wrap(run)
    return wrap


def register_pipeline(
    argument: str,
    summary: str,
    expand: Callable[[dict[str, Any]], str],
    description: str = "",
    options: Sequence[Option] = (),
) -> None:
    """Register a pipeline alias that expands to textual pipeline elements."""
    _add(PassInfo(argument, summary, description, tuple(options), expand=expand))


def _add(info: PassInfo) -> None:
    if not info.argument.startswith("memplan-"):
        raise ValueError(f"memplan pass names start with 'memplan-': {info.argument}")
    if info.argument in _REGISTRY:
        raise ValueError(f"pass '{info.argument}' registered twice")
    _REGISTRY[info.argument] = info
    if _loaded:
        # Declared after memplan's own passes went into MLIR's registry (a
        # user's pass, declared after ``import memplan``): it goes in now.
        _register_in_mlir(info)


def _ensure_loaded() -> None:
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        for name in (_DECLARATIONS, *_PASS_MODULES):
            importlib.import_module(name)
        for info in _REGISTRY.values():
            _register_in_mlir(info)
        _loaded = True


def mlir_pass_name(info: PassInfo) -> str:
    """The pass' name in MLIR (statistics, timing): ``memplan-buffer-reuse``
    -> ``MemplanBufferReusePass``."""
    return "".join(part.capitalize() for part in info.argument.split("-")) + "Pass"


def _register_in_mlir(info: PassInfo) -> None:
    """Put ``info`` into MLIR's pass registry, so textual pipelines parsed by
    ``PassManager.parse`` (or any MLIR tool in this process) find it. MLIR
    parses the options; the hooks get their typed values."""
    if not info.is_pipeline:

        def run(
            op: "ir.Operation",
            values: Sequence[tuple[str, Any]],
            run_pipeline: Callable[[str], bool],
        ):
            options = info.typed_values(values)
            ctx = execute(info, dict(options), op, run_pipeline)
            runs = _recording.get(op.context)
            if runs is not None:
                record = MemplanPass(info, options)
                record.statistics = ctx.statistics
                runs.append(record)
            # MLIR's pass statistics are 32-bit unsigned counters
            # (mlir::Pass::Statistic::operator=(unsigned)): clamped here,
            # saturating where MLIR sums them.
            stats = [
                (name, desc, min(max(int(value), 0), 2**32 - 1))
                for name, (value, desc) in ctx.statistics.items()
            ]
            return not ctx.failed, stats, ctx.preserves_all_analyses

        _core.register_pass(
            info.argument,
            mlir_pass_name(info),
            info.summary,
            _option_specs(info),
            info.check,
            run,
            on_functions=info.on_functions,
            statistics=list(info.statistics),
        )
    else:

        def expand(values: Sequence[tuple[str, Any]]) -> str:
            return info.expand(info.typed_values(values))

        _core.register_pipeline(
            info.argument, info.summary, _option_specs(info), info.check, expand
        )


def _option_specs(info: PassInfo) -> list[tuple[str, str, str, str, list[str]]]:
    """``info``'s options as MLIR declares them: (name, type, default text,
    description, choices)."""
    return [
        (
            opt.name,
            _MLIR_TYPES[opt.type],
            "true"
            if opt.default is True
            else "false"
            if opt.default is False
            else str(opt.default),
            opt.help,
            list(opt.choices or ()),
        )
        for opt in info.options
    ]


#: The list each context's runs are recorded in (``recording_runs``); read
#: and written with the GIL held.
_recording: dict[ir.Context, list[MemplanPass]] = {}


@contextlib.contextmanager
def recording_runs(context: "ir.Context") -> Iterator[list[MemplanPass]]:
    """Collects the memplan passes that MLIR runs on ``context`` meanwhile,
    on any thread (configured, with the statistics of their run)."""
    previous = _recording.get(context)
    _recording[context] = runs = []
    try:
        yield runs
    finally:
        if previous is None:
            del _recording[context]
        else:
            _recording[context] = previous


def registered_passes() -> list[PassInfo]:
    """Every registered pass and pipeline alias, sorted by argument."""
    _ensure_loaded()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def lookup(argument: str) -> Optional[PassInfo]:
    """The pass registered as ``argument``, or None."""
    _ensure_loaded()
    return _REGISTRY.get(argument)


def create(argument: str, **options: Any) -> MemplanPass:
    """A configured pass by pipeline argument, e.g. ``create("memplan-buffer-reuse")``."""
    info = lookup(argument)
    if info is None:
        raise PassOptionError(f"'{argument}' does not refer to a registered memplan pass")
    return MemplanPass(info, options)


def __getattr__(name: str) -> Callable[..., MemplanPass]:
    if name.startswith("__"):
        # Python's import asks for __path__ on every ``from memplan.passes
        # import ...``: that must not load the pass modules (which import
        # this one) half-way through their own imports.
        raise AttributeError(name)
    _ensure_loaded()
    argument = "memplan-" + name.replace("_", "-")
    info = _REGISTRY.get(argument)
    if info is None or info.is_pipeline:
        raise AttributeError(f"memplan.passes has no pass '{name}'")

    def make(**options: Any) -> MemplanPass:
        return MemplanPass(info, options)

    make.__name__ = name
    make.__doc__ = f"{info.summary}\n\n{info.description}"
    return make
