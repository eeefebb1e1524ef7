"""Kernel parameters and argument checks, shared by the CPU and CUDA paths.

Every argument is checked before anything runs; a mismatch raises ``TypeError``/``ValueError``
naming the kernel and the parameter.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ._records import Value, init
from .interop import ArrayView, as_array_view, host_array
from .memory import DeviceArray
from .structs import dtype_from_json, is_struct
from .types import SCALAR_DTYPES, SCALAR_NAMES, ArrayType, scalar_name


class Param(Value):
    """A kernel parameter (a value: equal, and hashed, by its fields; never changed once made)."""

    __slots__ = _fields = ("name", "kind", "dtype", "ndim", "writes", "type_name", "cls", "values", "typevar", "items")
    name: str
    kind: str  # "scalar", "array", "struct" (by value), "enum" or "tuple" (of these: numba's UniTuple/Tuple)
    dtype: np.dtype[Any]
    ndim: int
    writes: bool  # arrays: does the kernel write it (host arrays are copied back only then)
    type_name: str  # struct or enum class name, for messages
    cls: Any  # the struct or enum class (CPU path: from the annotation)
    values: tuple[int, ...]  # enum: the members' values
    typevar: str | None  # generic kernels: the TypeVar this parameter's type came from
    items: tuple[Param, ...]  # a tuple's items, in order (named name[0], name[1], ...)

    def __init__(
        self,
        name: str,
        kind: str,
        dtype: np.dtype[Any],
        ndim: int = 0,
        writes: bool = True,
        type_name: str = "",
        cls: Any = None,
        values: tuple[int, ...] = (),
        typevar: str | None = None,
        items: tuple[Param, ...] = (),
    ) -> None:
        fields = (name, kind, dtype, ndim, writes, type_name, cls, values, typevar, items)
        for field, value in zip(self._fields, fields):
            init(self, field, value)

    def replace(self, **changes: Any) -> Param:
        """A copy with these fields changed."""
        return type(self)(**{**{name: getattr(self, name) for name in self._fields}, **changes})

    def describe(self) -> str:
        if self.kind == "tuple":  # as the compiler names the type
            if self.type_name == "namedtuple":
                fields = (f"{i.name.rpartition('.')[2]}: {i.describe()}" for i in self.items)
                return "namedtuple[" + ", ".join(fields) + "]"
            return "tuple[" + ", ".join(item.describe() for item in self.items) + "]"
        if self.kind in ("struct", "enum"):
            return self.type_name
        short = self.type_name or SCALAR_NAMES[self.dtype.name]
        if self.kind == "scalar":
            return short
        return f"Array[{short}]" if self.ndim == 1 else f"Array[{short}, {self.ndim}]"

    @classmethod
    def from_manifest(cls, entry: dict[str, Any]) -> Param:
        if entry["kind"] == "tuple":
            items = tuple(cls.from_manifest(item) for item in entry["items"])
            writes = any(i.writes for i in items)
            return cls(entry["name"], "tuple", np.dtype(np.int8), 0, writes, entry.get("type", ""), items=items)
        return cls(
            entry["name"],
            entry["kind"],
            dtype_from_json(entry["dtype"]),
            entry.get("ndim", 0),
            entry.get("writes", False),
            entry.get("type", ""),
            values=tuple(entry.get("values", ())),
            typevar=entry.get("typevar"),
        )


def param_of(name: str, ann: Any, bindings: dict[Any, Any] | None = None) -> Param:
    """A kernel parameter from its annotation (TypeVars replaced by ``bindings``)."""
    typevar = None
    if isinstance(ann, TypeVar):
        typevar = ann.__name__
        if bindings is None or ann not in bindings:
            raise TypeError(f"parameter `{name}` is annotated with TypeVar {ann.__name__}, which is not specialised")
        ann = bindings[ann]
    if isinstance(ann, ArrayType):
        if ann.dtype is None:
            typevar = ann.element.__name__
            if bindings is None or ann.element not in bindings:
                raise TypeError(f"parameter `{name}`: TypeVar {typevar} is not specialised")
            ann = ann.bind(bindings)
        assert ann.dtype is not None
        struct_cls = ann.element if is_struct(ann.element) else None
        type_name = struct_cls.__name__ if struct_cls is not None else ""
        # whether the kernel writes it is not in the annotation: the manifest (or the CPU path) says
        return Param(name, "array", ann.dtype, ann.ndim, False, type_name, struct_cls, typevar=typevar)
    if is_struct(ann):
        return Param(name, "struct", ann.dtype, type_name=ann.__name__, cls=ann)
    if isinstance(ann, type) and issubclass(ann, enum.IntEnum):
        values = tuple(int(m) for m in ann)
        return Param(name, "enum", np.dtype(np.int64), type_name=ann.__name__, cls=ann, values=values)
    return Param(name, "scalar", SCALAR_DTYPES[scalar_name(ann)], typevar=typevar)


def annotations_of(func: Callable[..., Any]) -> dict[str, Any]:
    """The evaluated annotations of a kernel's parameters: strings (``from __future__ import
    annotations``, forward references, also inside ``Array[...]``) are evaluated in the function's
    module, as ``typing.get_type_hints`` does; Python 3.14 evaluates deferred annotations on access."""
    import inspect

    out = {}
    for name, p in inspect.signature(func).parameters.items():
        ann = p.annotation
        if ann is inspect.Parameter.empty:
            raise TypeError(f"kernel {func.__qualname__}: parameter `{name}` has no type annotation")
        try:
            while isinstance(ann, str):  # a quoted annotation under `from __future__ import annotations` too
                ann = eval(ann, func.__globals__)  # noqa: S307 - annotations are the kernel author's code
            if isinstance(ann, ArrayType):
                ann = ann.resolve(func.__globals__)
        except NameError as exc:
            raise TypeError(f"kernel {func.__qualname__}: the annotation of parameter `{name}`: {exc}") from None
        out[name] = ann
    return out


def params_from_annotations(func: Callable[..., Any], bindings: dict[Any, Any] | None = None) -> list[Param]:
    """Parameters of a kernel from its annotations (used on the CPU path and to check manifests)."""
    return [param_of(name, ann, bindings) for name, ann in annotations_of(func).items()]


def params_from_signature(func: Callable[..., Any], signature: list[list[Any]]) -> list[Param]:
    """Parameters of a kernel from one of numba's eager signatures, as :mod:`.numba_signatures` reads it
    (``[short scalar name, ndim]`` per parameter, in order)."""
    import inspect

    names = list(inspect.signature(func).parameters)
    return [_signature_param(name, element, ndim) for name, (element, ndim) in zip(names, signature)]


def _signature_param(name: str, element: Any, ndim: int) -> Param:
    if isinstance(element, dict) and "tuple" in element:  # numba's UniTuple/Tuple: items name[0], name[1], ...
        fields = element.get("names")  # a namedtuple's: items name.x, name.y, ...
        names = [f"{name}.{f}" for f in fields] if fields else [f"{name}[{k}]" for k in range(len(element["tuple"]))]
        items = tuple(_signature_param(n, e, d) for n, (e, d) in zip(names, element["tuple"]))
        return Param(name, "tuple", np.dtype(np.int8), 0, False, "namedtuple" if fields else "", items=items)
    if isinstance(element, dict):  # numba's Record: an array of a structured dtype (or one record)
        dtype = dtype_from_json(element["record"])
        from .numba_signatures import record_name

        return Param(name, "array" if ndim else "struct", dtype, ndim, False, type_name=record_name(dtype))
    dtype = SCALAR_DTYPES[element]
    return Param(name, "array", dtype, ndim, False) if ndim else Param(name, "scalar", dtype)


def leaf_params(params: list[Param], values: list[Any]) -> tuple[list[Param], list[Any]]:
    """Tuple parameters replaced by their items, depth first, and their (checked) values by the items'
    values: what the launch paths pack (kernels take a tuple's items as parameters of their own)."""
    if not any(p.kind == "tuple" for p in params):
        return params, values
    out_p: list[Param] = []
    out_v: list[Any] = []
    for p, v in zip(params, values):
        if p.kind == "tuple":
            ps, vs = leaf_params(list(p.items), list(v))
            out_p += ps
            out_v += vs
        else:
            out_p.append(p)
            out_v.append(v)
    return out_p, out_v


def record_views(params: list[Param], values: list[Any]) -> list[Any]:
    """The Python path's arguments: arrays of a structured dtype without a ``@struct`` class (numba's
    records) as ``np.recarray`` views, whose elements read and write fields as attributes (``a[i].x = v``),
    as numba's records do; the rest as they are."""
    return [
        v.view(np.recarray)
        if p.kind == "array" and p.cls is None and p.dtype.names is not None and isinstance(v, np.ndarray)
        else v
        for p, v in zip(params, values)
    ]


def signature_element(p: Param) -> Any:
    """A parameter's element as numba's signatures hold it (see :mod:`.numba_signatures`): a scalar's short
    name, ``{"record": dtype JSON}`` for a structured dtype, ``{"tuple": [...]}`` for a tuple."""
    if p.kind == "tuple":
        found: dict[str, Any] = {"tuple": [[signature_element(i), i.ndim] for i in p.items]}
        if p.type_name == "namedtuple":
            found["names"] = [i.name.rpartition(".")[2] for i in p.items]
        return found
    if p.dtype.names is not None:
        from .structs import dtype_to_json

        return {"record": dtype_to_json(p.dtype)}
    return SCALAR_NAMES[p.dtype.name]


def _expects(kernel: str, p: Param) -> str:
    """The start of an argument error (built only when there is one: launches check every argument)."""
    return f"{kernel}(): parameter `{p.name}` expects {p.describe()}"


@functools.cache
def _int_range(dtype: np.dtype[Any]) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


#: Finite values at least this large round to inf, by item size: the type's largest value plus half an ulp.
_FLOAT_OVERFLOW = {2: 2.0**16 - 2.0**4, 4: 2.0**128 - 2.0**103}


def _out_of_range(kernel: str, p: Param, value: Any, bounds: str) -> ValueError:
    return ValueError(f"{_expects(kernel, p)}, got {value}, which is out of range {bounds}")


def _in_int_range(kernel: str, p: Param, value: int) -> int:
    low, high = _int_range(p.dtype)
    if not low <= value <= high:
        raise _out_of_range(kernel, p, value, f"[{low}, {high}]")
    return value


def _in_float_range(kernel: str, p: Param, value: Any) -> Any:
    """Floats (and ints) for a float parameter: finite ones that the conversion would turn into inf
    are an error (inf and nan themselves are values)."""
    try:
        as_float = float(value)
    except OverflowError:  # an int beyond f64
        raise _out_of_range(kernel, p, value, _float_bounds(p.dtype)) from None
    part = p.dtype.itemsize // (1 + (p.dtype.kind == "c"))  # a complex number's parts are floats
    if _FLOAT_OVERFLOW.get(part, float("inf")) <= abs(as_float) < float("inf"):
        raise _out_of_range(kernel, p, value, _float_bounds(p.dtype))
    return value


def _in_range(kernel: str, p: Param, value: Any) -> Any:
    """A number for a float or complex parameter (a complex one's parts are checked one by one)."""
    if p.dtype.kind == "c" and isinstance(value, (complex, np.complexfloating)):
        _in_float_range(kernel, p, value.real)
        _in_float_range(kernel, p, value.imag)
        return value
    return _in_float_range(kernel, p, value)


def _float_bounds(dtype: np.dtype[Any]) -> str:
    info = np.finfo(dtype)  # a complex type's parts: its real type's
    top = info.dtype.type(info.max)  # as NumPy shows the type's values: 3.4028235e+38
    top = str(float(top)) if info.dtype.itemsize == 2 else str(top)  # but 65504.0, not 6.55e+04
    return f"[-{top}, {top}]"


def check_scalar(kernel: str, p: Param, value: Any) -> Any:
    """The argument as a NumPy scalar of the parameter's type; never wraps, never overflows to inf."""
    dtype = p.dtype
    if isinstance(value, np.generic):
        if dtype.kind == "b" and value.dtype.kind != "b":
            raise TypeError(f"{_expects(kernel, p)}, got {value.dtype.name}")
        if not np.can_cast(value.dtype, dtype, "same_kind"):
            raise TypeError(
                f"{_expects(kernel, p)}, got {value.dtype.name} (convert it explicitly, e.g. {p.describe()}(x))"
            )
        if value.dtype != dtype and not np.can_cast(value.dtype, dtype, "safe"):
            if dtype.kind in "iu":  # a wider integer: its value must fit
                _in_int_range(kernel, p, int(value))
            elif dtype.kind in "fc":
                _in_range(kernel, p, value)
        return dtype.type(value)
    if isinstance(value, bool):
        if dtype.kind != "b":
            raise TypeError(f"{_expects(kernel, p)}, got bool")
        return dtype.type(value)
    if isinstance(value, int):
        if dtype.kind in "iu":
            return dtype.type(_in_int_range(kernel, p, value))
        if dtype.kind in "fc":
            return dtype.type(_in_float_range(kernel, p, value))
        raise TypeError(f"{_expects(kernel, p)}, got int")
    if isinstance(value, (float, complex)):
        if dtype.kind in "fc" and not (isinstance(value, complex) and dtype.kind == "f"):
            return dtype.type(_in_range(kernel, p, value))
        raise TypeError(f"{_expects(kernel, p)}, got {type(value).__name__}")
    if hasattr(value, "__index__") and dtype.kind in "iu":  # e.g. IntEnum members
        return check_scalar(kernel, p, value.__index__())
    raise TypeError(f"{_expects(kernel, p)}, got {type(value).__name__}")


def _record_dtype(void: np.dtype[Any], own: Any, expected: np.dtype[Any]) -> np.dtype[Any]:
    """__cuda_array_interface__ describes a structured array only as ``|V<n>``: take the object's own
    structured dtype if it has one, else the parameter's when the sizes agree."""
    if isinstance(own, np.dtype) and own.names is not None:
        return own
    return expected if void.itemsize == expected.itemsize else void


_BYTE_ORDERS = {">": "big-endian", "<": "little-endian"}  # NumPy writes the native order as "="


def check_array(kernel: str, p: Param, value: Any) -> None:
    """``value``: a NumPy array, a device array, or another library's array as an :class:`ArrayView`."""
    if not isinstance(value, (np.ndarray, ArrayView, DeviceArray)):
        raise TypeError(
            f"{_expects(kernel, p)}, got {type(value).__name__} (pass a NumPy array, a device array "
            "or an object with __cuda_array_interface__)"
        )
    dtype, shape, strides = value.dtype, value.shape, value.strides
    if dtype != p.dtype:
        if dtype.byteorder in _BYTE_ORDERS and dtype.newbyteorder("=") == p.dtype:
            raise TypeError(
                f"{_expects(kernel, p)}, got an array of {dtype.name} in {_BYTE_ORDERS[dtype.byteorder]} byte "
                f"order (convert with .astype(np.{p.dtype.name}), which makes it native)"
            )
        if p.dtype.names is not None:
            raise TypeError(
                f"{_expects(kernel, p)}, got an array of {dtype} (allocate it with dtype={p.type_name}.dtype)"
            )
        raise TypeError(
            f"{_expects(kernel, p)}, got an array of {dtype.name} (convert with .astype(np.{p.dtype.name}))"
        )
    if len(shape) != p.ndim:
        raise ValueError(f"{_expects(kernel, p)}, got an array with {len(shape)} dimension{'s' * (len(shape) != 1)}")
    if strides is not None and any(s % dtype.itemsize for s in strides):
        raise ValueError(
            f"{_expects(kernel, p)}, got an array whose strides {strides} are not multiples of its item size "
            "(make a copy with np.ascontiguousarray)"
        )
    if p.writes and (not value.flags.writeable if isinstance(value, np.ndarray) else getattr(value, "readonly", False)):
        raise ValueError(f"{kernel}(): parameter `{p.name}` is written by the kernel, got a read-only array")


def check_struct(kernel: str, p: Param, value: Any) -> Any:
    """A struct argument: an instance of the struct class (or, without the class, of one with the
    same layout). Returns it unchanged; it is passed by value."""
    dtype = getattr(type(value), "dtype", None)
    ok = isinstance(value, p.cls) if p.cls is not None else (is_struct(type(value)) and dtype == p.dtype)
    if not ok:
        raise TypeError(f"{kernel}(): parameter `{p.name}` expects {p.describe()}, got {type(value).__name__}")
    return value


def check_enum(kernel: str, p: Param, value: Any) -> Any:
    """An enum argument: a member of the enum (an int with a member's value is accepted too)."""
    if isinstance(value, enum.Enum) and not isinstance(value, int):
        raise TypeError(f"{_expects(kernel, p)}, got {type(value).__name__}")
    if p.cls is not None and isinstance(value, enum.IntEnum) and not isinstance(value, p.cls):
        raise TypeError(f"{_expects(kernel, p)}, got {type(value).__name__}.{value.name}")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{_expects(kernel, p)}, got {type(value).__name__}")
    values = p.values or tuple(int(m) for m in p.cls)
    if int(value) not in values:
        raise ValueError(f"{_expects(kernel, p)}, got {int(value)}, which is not one of its values {list(values)}")
    return p.cls(int(value)) if p.cls is not None else int(value)


def check_arguments(kernel: str, params: list[Param], args: tuple[Any, ...], stream: int | None = None) -> list[Any]:
    """Check every argument; scalars come back as NumPy scalars of the parameter's type. ``stream``: the
    launch's, for DLPack producers to order their work before."""
    if len(args) != len(params):
        names = ", ".join(p.name for p in params)
        raise TypeError(f"{kernel}() takes {len(params)} argument{'s' * (len(params) != 1)} ({names}), got {len(args)}")
    out: list[Any] = []
    for p, a in zip(params, args):
        if p.kind == "scalar":
            if p.typevar is not None and isinstance(a, np.generic) and a.dtype != p.dtype:
                raise TypeError(f"{kernel}(): parameter `{p.name}` expects {p.describe()}, got {a.dtype.name}")
            out.append(check_scalar(kernel, p, a))
        elif p.kind == "struct":
            out.append(check_struct(kernel, p, a))
        elif p.kind == "enum":
            out.append(check_enum(kernel, p, a))
        elif p.kind == "tuple":
            if not isinstance(a, tuple) or len(a) != len(p.items):
                got = f"a tuple of {len(a)}" if isinstance(a, tuple) else type(a).__name__
                raise TypeError(f"{_expects(kernel, p)}, got {got}")
            out.append(type(a)(*check_arguments(kernel, list(p.items), a, stream)) if hasattr(a, "_fields")
                       else tuple(check_arguments(kernel, list(p.items), a, stream)))  # fmt: skip
        else:
            if not isinstance(a, (np.ndarray, DeviceArray)):
                # another library's array: a CPU one as a NumPy array sharing its memory; a device one by its
                # __cuda_array_interface__ (or its DLPack capsule, consumed once, here): the launch uses the view
                try:
                    host = host_array(a)
                except TypeError as exc:
                    raise TypeError(f"{kernel}(): parameter `{p.name}` expects {p.describe()}: {exc}") from None
                if host is not None:
                    check_array(kernel, p, host)
                    out.append(host)
                    continue
                try:
                    view = as_array_view(a, stream)
                except TypeError as exc:
                    raise TypeError(f"{kernel}(): parameter `{p.name}` expects {p.describe()}: {exc}") from None
                if view is not None:
                    if p.dtype.names is not None and view.dtype.kind == "V" and view.dtype.names is None:
                        view.dtype = _record_dtype(view.dtype, getattr(a, "dtype", None), p.dtype)
                    a = view
            check_array(kernel, p, a)
            out.append(a)
    return out
