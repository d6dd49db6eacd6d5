"""A tensor-level interpreter for the generated programs (:mod:`progs.randprog`):
the reference that does not depend on anyone's bufferization.

Tensors are values: every op makes a new array, so no write can reach
another value through a shared buffer. Upstream's bufferization is the
usual reference, but on some generated programs it is wrong itself (a
recursive call's result assumed not to alias its operand; an
``insert_slice`` into a slice of a block argument read later, written in
place), and its deallocation crashes on others. There the checker asks this
interpreter for the results instead.

Element semantics are the lowered program's: signless integers of any width
wrap (two's complement, sign-extended here as the harness stores them),
``f16`` and ``bf16`` arithmetic is done in ``f32`` and rounded to nearest
even after each op, as LLVM does on a CPU without native half arithmetic.

Only the ops the generator emits are known; any other op, a non-identity
indexing map, or a read of a ``tensor.empty``'s contents raises
:class:`Unsupported` (the caller then has no verdict from here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import numpy as np
from mlir import ir

from memplan.numerics.inputs import float_to_bf16_bits

__all__ = ["Unsupported", "Tensor", "run", "differences"]

#: Deepest call nesting followed (the generator's recursion is %n deep).
MAX_DEPTH = 64
#: Most loop iterations followed in one loop.
MAX_TRIPS = 1 << 12


class Unsupported(Exception):
    """The program leaves what this interpreter knows."""


@dataclass
class Tensor:
    """A tensor value: its elements in the harness's form for the element
    type, and which of them are undefined (never written)."""

    data: np.ndarray
    undefined: np.ndarray
    #: Bits of an integer element type (0 for floats), set on results.
    width: int = 0


class _Element:
    """Arithmetic on one element type, on arrays in the harness's form."""

    def __init__(self, type_: ir.Type):
        self.text = str(type_)
        if isinstance(type_, ir.IntegerType):
            self.width = ir.IntegerType(type_).width
            self.kind = "int"
        elif isinstance(type_, ir.IndexType):
            self.width, self.kind = 64, "int"
        elif self.text in ("f16", "f32", "f64", "bf16"):
            self.kind, self.width = "float", 0
        else:
            raise Unsupported(f"element type {self.text}")

    # -- storage forms -----------------------------------------------------

    @property
    def dtype(self):
        if self.kind == "int":
            if self.width == 1:
                return np.bool_
            for bits, dt in ((8, np.int8), (16, np.int16), (32, np.int32), (64, np.int64)):
                if self.width <= bits:
                    return dt
        return {"f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": np.uint16}[
            self.text
        ]

    def to_work(self, data: np.ndarray) -> np.ndarray:
        """Harness form -> the form arithmetic is done in (int64 sign-extended
        ints, float32 for the halves, the type itself otherwise)."""
        if self.kind == "int":
            if self.width == 1:
                return np.where(np.asarray(data, dtype=bool), -1, 0).astype(np.int64)
            return np.asarray(data).astype(np.int64)
        if self.text == "bf16":
            return (np.asarray(data, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        if self.text == "f16":
            return np.asarray(data, dtype=np.float16).astype(np.float32)
        return np.asarray(data, dtype=self.dtype)

    def from_work(self, work: np.ndarray) -> np.ndarray:
        """The inverse of :meth:`to_work`, rounding or wrapping as the type does."""
        if self.kind == "int":
            wrapped = self.wrap(np.asarray(work, dtype=np.int64))
            if self.width == 1:
                return wrapped != 0
            return wrapped.astype(self.dtype)
        if self.text == "bf16":
            return float_to_bf16_bits(np.asarray(work, dtype=np.float32))
        if self.text == "f16":
            return np.asarray(work, dtype=np.float32).astype(np.float16)
        return np.asarray(work, dtype=self.dtype)

    def wrap(self, x: np.ndarray) -> np.ndarray:
        """Two's complement to ``width`` bits, sign-extended in int64."""
        if self.width >= 64:
            return x
        half = np.int64(1) << np.int64(self.width - 1)
        mask = (np.int64(1) << np.int64(self.width)) - np.int64(1)
        return ((x + half) & mask) - half

    def unsigned(self, x: np.ndarray) -> np.ndarray:
        if self.width >= 64:
            return x.view(np.uint64)
        return (x & ((np.int64(1) << np.int64(self.width)) - np.int64(1))).astype(np.uint64)

    def constant(self, attr: ir.Attribute):
        if isinstance(attr, ir.BoolAttr):
            return np.array(bool(attr.value))
        if isinstance(attr, ir.IntegerAttr):
            value = ir.IntegerAttr(attr).value
            return (
                self.from_work(np.array(value, dtype=np.int64))
                if self.width != 1
                else np.array(value & 1 == 1)
            )
        if isinstance(attr, ir.FloatAttr):
            return self.from_work(np.array(ir.FloatAttr(attr).value, dtype=np.float64))
        raise Unsupported(f"constant {attr}")


_INT_OPS = {
    "arith.addi": np.add,
    "arith.subi": np.subtract,
    "arith.muli": np.multiply,
    "arith.xori": np.bitwise_xor,
    "arith.ori": np.bitwise_or,
    "arith.andi": np.bitwise_and,
}
_FLOAT_OPS = {"arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply}
_CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


def _element_of(type_: ir.Type) -> _Element:
    if isinstance(type_, ir.ShapedType):
        return _Element(ir.ShapedType(type_).element_type)
    return _Element(type_)


def _shape_of(type_: ir.Type, dynamic: Sequence[int]) -> tuple:
    shaped = ir.ShapedType(type_)
    sizes = iter(dynamic)
    return tuple(
        next(sizes) if shaped.is_dynamic_dim(d) else shaped.get_dim_size(d)
        for d in range(shaped.rank)
    )


class _Frame:
    """Values of one function activation (and the regions nested in it)."""

    def __init__(self, parent: Optional["_Frame"] = None):
        self.values: Dict[ir.Value, object] = {}
        self.parent = parent

    def __getitem__(self, value: ir.Value):
        frame = self
        while frame is not None:
            if value in frame.values:
                return frame.values[value]
            frame = frame.parent
        raise Unsupported(f"value {value.get_name()} has no definition here")

    def __setitem__(self, value: ir.Value, data) -> None:
        self.values[value] = data


class _Interpreter:
    def __init__(self, module: ir.Module):
        self.functions = {}
        for op in module.body.operations:
            if op.operation.name == "func.func":
                name = ir.StringAttr(op.attributes["sym_name"]).value
                self.functions[name] = op
        self.depth = 0

    # -- functions and regions ---------------------------------------------

    def call(self, name: str, args: List[object]) -> List[object]:
        if name not in self.functions:
            raise Unsupported(f"call of @{name}")
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Unsupported("calls nest too deep")
        try:
            return self.region(self.functions[name].regions[0], args, _Frame())
        finally:
            self.depth -= 1

    def region(self, region: ir.Region, args: List[object], frame: _Frame) -> List[object]:
        """Run ``region`` from its entry block; the operands of the
        terminator that leaves it (return, yield, condition)."""
        block = region.blocks[0]
        steps = 0
        while True:
            steps += 1
            if steps > MAX_TRIPS:
                raise Unsupported("a branch cycle too long")
            for arg, value in zip(block.arguments, args):
                frame[arg] = value
            for op in block.operations:
                name = op.operation.name
                if name in ("func.return", "scf.yield", "linalg.yield", "scf.condition"):
                    return [frame[v] for v in op.operands]
                if name == "cf.br":
                    block, args = op.successors[0], [frame[v] for v in op.operands]
                    break
                if name == "cf.cond_br":
                    block, args = self.cond_br(op, frame)
                    break
                self.op(op, frame)
            else:
                raise Unsupported("a block without terminator")

    def cond_br(self, op, frame: _Frame):
        segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        operands = list(op.operands)
        cond = bool(self.scalar(frame[operands[0]]))
        true_ops = operands[1 : 1 + segments[1]]
        false_ops = operands[1 + segments[1] :]
        if cond:
            return op.successors[0], [frame[v] for v in true_ops]
        return op.successors[1], [frame[v] for v in false_ops]

    @staticmethod
    def scalar(value) -> object:
        if isinstance(value, Tensor):
            raise Unsupported("a tensor where a scalar is expected")
        return value.item() if isinstance(value, np.ndarray) else value

    # -- ops -----------------------------------------------------------------

    def op(self, op, frame: _Frame) -> None:
        name = op.operation.name
        operands = [frame[v] for v in op.operands]
        results = list(op.results)
        if name == "arith.select" and isinstance(operands[1], Tensor):
            if isinstance(operands[0], Tensor):
                raise Unsupported("a select on a tensor of conditions")
            frame[results[0]] = operands[1] if bool(self.scalar(operands[0])) else operands[2]
        elif name.startswith("arith.") or name == "tensor.dim":
            frame[results[0]] = self.scalar_op(op, name, operands)
        elif name in ("tensor.cast", "tensor.expand_shape", "tensor.collapse_shape"):
            shape = (
                _shape_of(results[0].type, [self.scalar(o) for o in operands[1:]])
                if name == "tensor.expand_shape"
                else None
            )
            src = operands[0]
            if shape is None:
                shape = tuple(int(d) for d in src.data.shape)
                if name == "tensor.collapse_shape":
                    shape = (
                        (int(src.data.size),)
                        if ir.ShapedType(results[0].type).rank == 1
                        else self._collapsed(op, src)
                    )
            frame[results[0]] = Tensor(src.data.reshape(shape), src.undefined.reshape(shape))
        elif name == "tensor.empty":
            shape = _shape_of(results[0].type, [self.scalar(o) for o in operands])
            element = _element_of(results[0].type)
            frame[results[0]] = Tensor(
                np.zeros(shape, dtype=element.dtype), np.ones(shape, dtype=bool)
            )
        elif name == "tensor.extract":
            src, index = operands[0], tuple(self.scalar(o) for o in operands[1:])
            self._check_bounds(src, index)
            if src.undefined[index]:
                raise Unsupported("a read of an undefined element")
            frame[results[0]] = np.array(src.data[index])
        elif name == "tensor.insert":
            value, dest = operands[0], operands[1]
            index = tuple(self.scalar(o) for o in operands[2:])
            self._check_bounds(dest, index)
            data, undefined = dest.data.copy(), dest.undefined.copy()
            data[index], undefined[index] = value, False
            frame[results[0]] = Tensor(data, undefined)
        elif name in ("tensor.extract_slice", "tensor.insert_slice"):
            frame[results[0]] = self.slice_op(op, name, operands)
        elif name == "linalg.fill":
            value, dest = operands[0], operands[1]
            frame[results[0]] = Tensor(
                np.full_like(dest.data, value), np.zeros(dest.data.shape, dtype=bool)
            )
        elif name == "linalg.generic":
            frame[results[0]] = self.generic(op, operands, frame)
        elif name == "func.call":
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            for result, value in zip(results, self.call(callee, operands)):
                frame[result] = value
        elif name == "scf.if":
            branch = 0 if bool(self.scalar(operands[0])) else 1
            region = op.regions[branch]
            values = self.region(region, [], _Frame(frame)) if region.blocks else []
            for result, value in zip(results, values):
                frame[result] = value
        elif name == "scf.for":
            lower, upper, step = (self.scalar(o) for o in operands[:3])
            carried = operands[3:]
            trips = 0
            i = lower
            while i < upper:
                trips += 1
                if trips > MAX_TRIPS:
                    raise Unsupported("a loop too long")
                carried = self.region(
                    op.regions[0], [np.array(i, dtype=np.int64), *carried], _Frame(frame)
                )
                i += step
            for result, value in zip(results, carried):
                frame[result] = value
        elif name == "scf.while":
            carried, trips = operands, 0
            while True:
                trips += 1
                if trips > MAX_TRIPS:
                    raise Unsupported("a loop too long")
                cond = self.region(op.regions[0], carried, _Frame(frame))
                if not bool(self.scalar(cond[0])):
                    carried = cond[1:]
                    break
                carried = self.region(op.regions[1], cond[1:], _Frame(frame))
            for result, value in zip(results, carried):
                frame[result] = value
        else:
            raise Unsupported(f"op {name}")

    @staticmethod
    def _collapsed(op, src: Tensor) -> tuple:
        return tuple(
            ir.ShapedType(op.results[0].type).get_dim_size(d)
            for d in range(ir.ShapedType(op.results[0].type).rank)
        )

    @staticmethod
    def _check_bounds(tensor: Tensor, index: tuple) -> None:
        if any(not 0 <= i < n for i, n in zip(index, tensor.data.shape)):
            raise Unsupported(f"an index {list(index)} out of bounds of {list(tensor.data.shape)}")

    def scalar_op(self, op, name: str, operands: List[object]):
        results = list(op.results)
        if name == "arith.constant":
            attr = op.attributes["value"]
            type_ = results[0].type
            if isinstance(attr, ir.DenseElementsAttr):
                dense = ir.DenseElementsAttr(attr)
                if not dense.is_splat:
                    raise Unsupported("a non-splat dense constant")
                element = _element_of(type_)
                value = element.constant(dense.get_splat_value())
                shape = _shape_of(type_, [])
                return Tensor(
                    np.full(shape, value, dtype=element.dtype), np.zeros(shape, dtype=bool)
                )
            return _element_of(type_).constant(attr)
        if name == "tensor.dim":
            src, dim = operands
            return np.array(src.data.shape[self.scalar(dim)], dtype=np.int64)
        return _elementwise(op, name, operands)

    def slice_op(self, op, name: str, operands: List[object]) -> Tensor:
        offsets, sizes, strides = self._slice_params(op, operands)
        if name == "tensor.extract_slice":
            src = operands[0]
            index = self._window(src, offsets, sizes, strides)
            shape = _shape_of(
                op.results[0].type, [s for s, d in zip(sizes, self._dyn(op, "static_sizes")) if d]
            )
            return Tensor(src.data[index].reshape(shape), src.undefined[index].reshape(shape))
        value, dest = operands[0], operands[1]
        index = self._window(dest, offsets, sizes, strides)
        data, undefined = dest.data.copy(), dest.undefined.copy()
        window_shape = data[index].shape
        data[index] = value.data.reshape(window_shape)
        undefined[index] = value.undefined.reshape(window_shape)
        return Tensor(data, undefined)

    @staticmethod
    def _dyn(op, attr: str) -> List[bool]:
        dynamic = ir.ShapedType.get_dynamic_size()
        return [v == dynamic for v in ir.DenseI64ArrayAttr(op.attributes[attr])]

    def _slice_params(self, op, operands: List[object]):
        segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        head = segments[0] + (segments[1] if op.operation.name == "tensor.insert_slice" else 0)
        dynamic = iter(self.scalar(o) for o in operands[head:])
        params = []
        for attr in ("static_offsets", "static_sizes", "static_strides"):
            static = list(ir.DenseI64ArrayAttr(op.attributes[attr]))
            flags = self._dyn(op, attr)
            params.append([next(dynamic) if f else v for v, f in zip(static, flags)])
        return params

    @staticmethod
    def _window(tensor: Tensor, offsets, sizes, strides) -> tuple:
        index = []
        for o, s, t, n in zip(offsets, sizes, strides, tensor.data.shape):
            if s > 0 and not (0 <= o and o + (s - 1) * t < n):
                raise Unsupported("a slice out of bounds")
            index.append(slice(o, o + s * t, t) if s > 0 else slice(0, 0))
        return tuple(index)

    def generic(self, op, operands: List[object], frame: _Frame) -> Tensor:
        maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
        if any(m != ir.AffineMap.get_identity(m.n_dims) for m in maps):
            raise Unsupported("a generic with a non-identity map")
        if len(op.results) != 1:
            raise Unsupported("a generic with several results")
        out = operands[-1]
        shape = out.data.shape
        block = op.regions[0].blocks[0]
        inner = _Frame(frame)
        for arg, value in zip(block.arguments, operands):
            if value.data.shape != shape:
                raise Unsupported("a generic whose operands differ in shape")
            if len(list(arg.uses)) and value.undefined.any():
                raise Unsupported("a generic reading undefined elements")
            inner[arg] = value.data
        for payload in block.operations:
            if payload.operation.name == "linalg.yield":
                data = np.broadcast_to(inner[payload.operands[0]], shape).copy()
                return Tensor(data.astype(out.data.dtype), np.zeros(shape, dtype=bool))
            pops = [inner[v] for v in payload.operands]
            if payload.operation.name == "arith.constant":
                inner[payload.results[0]] = self.scalar_op(payload, "arith.constant", pops)
            else:
                inner[payload.results[0]] = _elementwise(payload, payload.operation.name, pops)
        raise Unsupported("a generic without linalg.yield")


def _elementwise(op, name: str, operands: List[object]) -> np.ndarray:
    """One arith op on arrays (or 0-d arrays) in the harness's form."""
    if any(isinstance(o, Tensor) for o in operands):
        raise Unsupported(f"{name} on tensors")
    if name == "arith.select":
        cond, a, b = operands
        return np.where(np.asarray(cond, dtype=bool), a, b)
    if name == "arith.cmpi":
        element = _element_of(op.operands[0].type)
        a, b = (element.to_work(np.asarray(o)) for o in operands)
        pred = _CMPI[ir.IntegerAttr(op.attributes["predicate"]).value]
        if pred.startswith("u"):
            a, b = element.unsigned(a), element.unsigned(b)
        fn = {
            "eq": np.equal,
            "ne": np.not_equal,
            "lt": np.less,
            "le": np.less_equal,
            "gt": np.greater,
            "ge": np.greater_equal,
        }[pred.lstrip("su") or pred]
        return fn(a, b)
    element = _element_of(op.results[0].type)
    work = [element.to_work(np.asarray(o)) for o in operands]
    with np.errstate(over="ignore", invalid="ignore"):
        if name in _INT_OPS and element.kind == "int":
            return element.from_work(_INT_OPS[name](*work))
        if name in _FLOAT_OPS and element.kind == "float":
            return element.from_work(_FLOAT_OPS[name](*work))
    raise Unsupported(f"op {name} on {element.text}")


def run(text: str, entry: str, args: Sequence[object]) -> List[Tensor]:
    """The results of ``@entry`` on ``args`` (arrays in the harness's form
    for tensors, numbers for scalars): one :class:`Tensor` per tensor result.
    Raises :class:`Unsupported` where the program leaves what is known."""
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = False
        module = ir.Module.parse(text)
        interpreter = _Interpreter(module)
        func = interpreter.functions.get(entry)
        if func is None:
            raise Unsupported(f"no @{entry}")
        values: List[object] = []
        for arg, given in zip(func.regions[0].blocks[0].arguments, args):
            if isinstance(arg.type, ir.RankedTensorType):
                data = np.asarray(given).astype(_element_of(arg.type).dtype)
                values.append(Tensor(data.copy(), np.zeros(data.shape, dtype=bool)))
            else:
                values.append(np.asarray(given).astype(_element_of(arg.type).dtype))
        results = interpreter.call(entry, values)
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        out = []
        for value, type_ in zip(results, ftype.results):
            element = _element_of(type_)
            width = element.width if element.kind == "int" else 0
            if isinstance(value, Tensor):
                out.append(Tensor(value.data, value.undefined, width))
            else:
                out.append(Tensor(np.asarray(value), np.zeros((), dtype=bool), width))
        return out


def differences(expected: Tensor, data: np.ndarray) -> List[int]:
    """Flat indices where ``data`` (a program's output, in the harness's
    form) differs in its bits from ``expected``'s defined elements: integers
    compared modulo their width (the harness keeps sub-byte ones unsigned),
    floats by their bit patterns."""
    want, got = np.asarray(expected.data), np.asarray(data)
    if want.shape != got.shape:
        return list(range(max(want.size, 1)))
    want, got = want.reshape(-1), got.reshape(-1)
    if want.dtype == np.bool_ or got.dtype == np.bool_:
        same = want.astype(bool) == got.astype(bool)
    elif want.dtype.kind == "f" or got.dtype.kind == "f" or want.dtype == np.uint16:
        size = want.dtype.itemsize
        kind = {2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
        same = want.view(kind) == got.astype(want.dtype).view(kind)
    else:
        bits = expected.width or 8 * want.dtype.itemsize
        mask = np.uint64((1 << bits) - 1)
        same = (want.astype(np.int64).view(np.uint64) & mask) == (
            got.astype(np.int64).view(np.uint64) & mask
        )
    defined = ~np.asarray(expected.undefined).reshape(-1)
    return [int(i) for i in np.nonzero(~same & defined)[0]]
