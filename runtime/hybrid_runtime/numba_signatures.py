"""numba's eager signatures: ``@cuda.jit("void(float32[:], int32)")``, read without numba.

numba takes a kernel's parameter types from a signature given to ``@cuda.jit``: a string
(``"void(float32[:], int32[:, ::1])"``, ``"(f4[:], i4)"``), the same written as Python
(``void(float32[:], int32)``, a tuple ``(float32[:], int32)``, ``types.float32[:]``), or a list of them
(one compiled variant each; the launch picks the one whose types fit). A string is parsed as Python,
so every form is read from one syntax tree, without importing anything: a name is a type by its last
part (``numba.float32``, ``types.float32``, ``nb.f4`` alike), ``T[:]``, ``T[:, :]``, ``T[::1]``,
``T[:, ::1]`` are arrays of one, two... dimensions (any layout). numba's record types are written as numba
names them (``Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)``, what a recording
writes for an array of a structured dtype): the parameter's element is then ``{"record": dtype JSON}``.

The build reads the decorator's argument from the source (hatch-hybrid's discovery); the runtime reads
the same string when ``cuda.jit`` is called, so both give the parameters the same types.

In: the decorator's first argument, as a syntax tree or a string. Out: the signatures, each a list of
parameter types as ``[short scalar name, ndim]`` (ndim 0: a scalar), what the build's options record
(JSON). A signature numba would not read raises :class:`SignatureError`, which says where.
"""

from __future__ import annotations

import ast
import re
from typing import Any

#: numba's scalar type names (and the short ones numba also has) -> hatch-hybrid's
NUMBA_SCALARS = {
    "boolean": "boolean", "bool_": "boolean", "b1": "boolean",
    "int8": "i8", "i1": "i8", "char": "i8",
    "int16": "i16", "i2": "i16", "short": "i16",
    "int32": "i32", "i4": "i32", "intc": "i32",
    "int64": "i64", "i8": "i64", "intp": "i64", "int_": "i64", "long_": "i64", "longlong": "i64",
    "uint8": "u8", "u1": "u8", "byte": "u8", "uchar": "u8",
    "uint16": "u16", "u2": "u16", "ushort": "u16",
    "uint32": "u32", "u4": "u32", "uintc": "u32",
    "uint64": "u64", "u8": "u64", "uintp": "u64", "uint": "u64", "ulonglong": "u64",
    "float16": "f16", "f2": "f16", "half": "f16",
    "float32": "f32", "f4": "f32", "single": "f32", "float_": "f32",
    "float64": "f64", "f8": "f64", "double": "f64",
    "complex64": "c64", "c8": "c64",
    "complex128": "c128", "c16": "c128",
}  # fmt: skip
_LONG: dict[str, str] = {}  # short -> numba's own name (each row's first)
for _long, _short in NUMBA_SCALARS.items():
    _LONG.setdefault(_short, _long)
_VOID = {"void", "none"}
_HINT = 'write numba\'s types: "void(float32[:], int32[:, :], float64)", or annotate the parameters instead'

# [element, ndim]: element a short scalar name, {"record": dtype JSON} (numba's Record) or, with ndim 0,
# {"tuple": [Param, ...]} (numba's UniTuple and Tuple, whose items may be arrays)
Param = list[Any]


class SignatureError(ValueError):
    """A signature numba would not read: ``node`` is where (in the file, or the string's own node: then the
    decorator's argument is the place to point at)."""

    def __init__(self, message: str, hint: str, node: ast.AST | None) -> None:
        super().__init__(message)
        self.message, self.hint, self.node = message, hint, node


def parse_signatures(given: ast.expr | str | list[str] | tuple[str, ...], params: int) -> list[list[Param]]:
    """The kernel's signatures given as ``@cuda.jit(given)`` (a syntax tree, or at run time a string or a list
    of strings); ``params``: how many parameters the kernel has."""
    if isinstance(given, str):
        node: ast.expr = ast.Constant(given)
    elif isinstance(given, (list, tuple)) and all(isinstance(s, str) for s in given):
        node = ast.List([ast.Constant(s) for s in given])
    elif isinstance(given, ast.expr):
        node = given
    else:
        raise SignatureError(
            f"the eager signature {given!r} is read from strings at run time",
            'write it as a string: @cuda.jit("void(float32[:], int32)")',
            None,
        )
    reader = _Reader(node)
    found = [reader.signature(s) for s in node.elts] if isinstance(node, ast.List) else [reader.signature(node)]
    for sig in found:
        if len(sig) != params:
            raise reader.error(
                node,
                f"the signature has {len(sig)} parameter type{'s' * (len(sig) != 1)} and the kernel {params} "
                f"parameter{'s' * (params != 1)}",
                "give one type per parameter, in order",
            )
    return found


class _Reader:
    def __init__(self, decorator_arg: ast.expr) -> None:
        self.where = decorator_arg  # a string's own positions are not the file's: errors point here
        self.records: dict[str, Any] = {}  # the names records_out gave numba's Record(...) types

    def error(self, node: ast.AST, message: str, hint: str = _HINT) -> SignatureError:
        in_file = hasattr(node, "lineno") and getattr(node, "_in_file", True)
        return SignatureError(message, hint, node if in_file else self.where)

    def signature(self, node: ast.expr) -> list[Param]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = re.sub(r"\s+x\s+(\d+)\)", r", \1)", self.records_out(node, node.value))  # UniTuple(T x n)
            try:
                parsed = ast.parse(text.strip(), mode="eval").body
            except SyntaxError:
                raise self.error(node, f"numba signature {node.value!r} is not one numba can read") from None
            for inner in ast.walk(parsed):
                inner._in_file = False  # type: ignore[attr-defined]
            node = parsed
        if isinstance(node, ast.Call) and not node.keywords:  # void(float32[:], ...)
            self.result(node.func)
            return [self.param(a) for a in node.args]
        if isinstance(node, ast.Tuple):
            return [self.param(a) for a in node.elts]
        raise self.error(
            node, "an eager signature is a string, a tuple of types or `void(types...)`, or a list of those"
        )

    def records_out(self, node: ast.AST, text: str) -> str:
        """``text`` with each ``Record(...)`` replaced by a name this reader maps to its dtype (numba's record
        names are not Python)."""
        while (start := text.find("Record(")) >= 0:
            try:
                dtype, end = parse_record(text, start)
            except ValueError as exc:
                raise self.error(node, f"numba's record type in {text!r} cannot be read: {exc}") from None
            name = f"_record{len(self.records)}"
            self.records[name] = dtype
            text = text[:start] + name + text[end:]
        return text

    def result(self, node: ast.expr) -> None:
        name = _name(node)
        if name in _VOID:
            return
        raise self.error(
            node,
            f"a kernel's signature returns void, not `{ast.unparse(node)}`: kernels write their results into arrays",
            'write "void(...)" (or no return type: "(float32[:], int32)")',
        )

    def param(self, node: ast.expr) -> Param:
        if isinstance(node, ast.Subscript):  # an array: T[:], T[:, ::1], ...
            dims = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if not all(isinstance(d, ast.Slice) and _layout(d) for d in dims):
                raise self.error(node, f"`{ast.unparse(node)}` is not an array type numba reads", _HINT)
            return [self.scalar(node.value), len(dims)]
        if isinstance(node, ast.Call) and _name(node.func) in ("UniTuple", "Tuple") and not node.keywords:
            return [{"tuple": self.tuple_items(node)}, 0]
        if isinstance(node, ast.Call) and _name(node.func) == "NamedTuple" and not node.args:
            fields = [k.arg for k in node.keywords]
            if None in fields:
                raise self.error(node, "a NamedTuple names its fields: NamedTuple(x=int64, y=int64)")
            return [{"tuple": [self.param(k.value) for k in node.keywords], "names": fields}, 0]
        return [self.scalar(node), 0]

    def tuple_items(self, node: ast.Call) -> list[Param]:
        """numba's ``UniTuple(T, n)`` (``UniTuple(T x n)`` as numba prints it) and ``Tuple(T1, T2, ...)``."""
        if _name(node.func) == "Tuple":
            if len(node.args) == 1 and isinstance(node.args[0], (ast.Tuple, ast.List)):  # types.Tuple((a, b))
                return [self.param(a) for a in node.args[0].elts]
            return [self.param(a) for a in node.args]
        count = node.args[1] if len(node.args) == 2 else None
        if not (isinstance(count, ast.Constant) and type(count.value) is int and count.value >= 0):
            raise self.error(node, f"`{ast.unparse(node)}` is not a tuple type numba reads", "write UniTuple(int64, 2)")
        return [self.param(node.args[0]) for _ in range(count.value)]

    def scalar(self, node: ast.expr) -> Any:
        name = _name(node)
        if isinstance(node, ast.Name) and name in self.records:
            from .structs import dtype_to_json

            return {"record": dtype_to_json(self.records[name])}
        if name in NUMBA_SCALARS:
            return NUMBA_SCALARS[name]
        if isinstance(node, ast.Call) and _name(node.func) == "from_dtype":
            raise self.error(
                node,
                "record types (numba.from_dtype(...)) are not read from eager signatures",
                "declare the record as a @struct class and annotate the parameter with it (x: Array[Point])",
            )
        raise self.error(node, f"`{ast.unparse(node)}` is not a numba type name", _HINT)


def result_and_params(text: str) -> tuple[str, list[Param]]:
    """``"float64(float64, int32[:])"`` as numba's result name (``"void"`` when none is written) and the
    parameters: the signatures of numba's CPU ufunc builders (``@vectorize``, ``@guvectorize``)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise SignatureError(f"numba signature {text!r} is not one numba can read", _HINT, None) from None
    reader = _Reader(node)
    if isinstance(node, ast.Call) and not node.keywords:
        return _name(node.func) or "void", [reader.param(a) for a in node.args]
    if isinstance(node, ast.Tuple):
        return "void", [reader.param(a) for a in node.elts]
    raise SignatureError(f"numba signature {text!r} is not one numba can read", _HINT, None)


def parse_layout(layout: str) -> tuple[list[list[str]], list[list[str]]]:
    """``"(m,n),(n)->(m)"``: the core dimensions of each input and each output of a ``@guvectorize``."""
    left, arrow, right = layout.replace(" ", "").partition("->")
    if not arrow:
        raise ValueError(f"the layout {layout!r} has no `->` between the inputs and the outputs")

    def groups(text: str) -> list[list[str]]:
        return [[d for d in g.split(",") if d] for g in re.findall(r"\(([^)]*)\)", text)]

    return groups(left), groups(right)


def format_signature(signature: list[Param]) -> str:
    """``"void(float32[:], int32)"``: a signature as numba writes it (what :func:`parse_signatures` reads)."""
    return "void(" + ", ".join(_typed(s, n) for s, n in signature) + ")"


def _typed(element: Any, ndim: int) -> str:
    """A parameter's type as numba writes it: ``float32``, ``float32[:, :]``, ``UniTuple(int64 x 2)``."""
    return _element(element) + (f"[{', '.join([':'] * ndim)}]" if ndim else "")


def _element(element: Any) -> str:
    if isinstance(element, dict) and "tuple" in element:  # numba's names: UniTuple(int64 x 2), Tuple(int64, float64)
        items = [_typed(e, n) for e, n in element["tuple"]]
        if "names" in element:  # a namedtuple: its fields by name
            return f"NamedTuple({', '.join(f'{n}={t}' for n, t in zip(element['names'], items))})"
        if items and all(i == items[0] for i in items):
            return f"UniTuple({items[0]} x {len(items)})"
        return f"Tuple({', '.join(items)})"
    if isinstance(element, dict):
        from .structs import dtype_from_json

        return record_text(dtype_from_json(element["record"]))
    return _LONG[element]


def record_text(dtype: Any) -> str:
    """numba's name of the record type of a structured dtype:
    ``Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)``."""
    from .types import SCALAR_NAMES

    def type_text(ft: Any) -> str:
        if ft.names is not None:
            return record_text(ft)
        if ft.subdtype is not None:
            base, shape = ft.subdtype
            return f"nestedarray({type_text(base)}, {tuple(shape)})"
        short = SCALAR_NAMES.get(ft.name)
        if short is None:
            raise ValueError(f"a record field of type {ft} has no numba type")
        return _LONG[short]

    fields = ",".join(f"{n}[type={type_text(dtype.fields[n][0])};offset={dtype.fields[n][1]}]" for n in dtype.names)
    return f"Record({fields};{dtype.itemsize};{c_layout(dtype)})"


def _c_alignment(dt: Any) -> int:
    if dt.subdtype is not None:
        return _c_alignment(dt.subdtype[0])
    if dt.names is not None:
        return max([_c_alignment(dt.fields[n][0]) for n in dt.names] or [1])
    return int(dt.itemsize // 2 if dt.kind == "c" else dt.itemsize)


def c_layout(dtype: Any) -> bool:
    """Whether a record is laid out as C lays out its fields (numba's ``aligned``), nested records too."""
    end = 0
    for n in dtype.names:
        ft, offset = dtype.fields[n][:2]
        align = _c_alignment(ft)
        end += -end % align
        if offset != end or (ft.names is not None and not c_layout(ft)):
            return False
        end += ft.itemsize
    align = _c_alignment(dtype)
    return bool(dtype.itemsize == end + -end % align)


def record_name(dtype: Any) -> str:
    """The name a record type goes by in kernels' types and messages: one per layout (``Record_<hash>``)."""
    import hashlib

    return "Record_" + hashlib.sha1(record_text(dtype).encode()).hexdigest()[:10]


def parse_record(text: str, start: int = 0) -> tuple[Any, int]:
    """The structured dtype numba's ``Record(...)`` at ``text[start:]`` names, and where that name ends."""
    import numpy as np

    from .types import SCALAR_DTYPES

    pos = start

    def expect(word: str) -> None:
        nonlocal pos
        if not text.startswith(word, pos):
            raise ValueError(f"expected {word!r} at {text[pos : pos + 20]!r}")
        pos += len(word)

    def until(stops: str) -> str:
        nonlocal pos
        end = pos
        while end < len(text) and text[end] not in stops:
            end += 1
        word, pos = text[pos:end].strip(), end
        return word

    def field_type() -> Any:
        nonlocal pos
        if text.startswith("Record(", pos):
            dtype, pos = parse_record(text, pos)
            return dtype
        if text.startswith("nestedarray(", pos):
            expect("nestedarray(")
            base = field_type()
            expect(",")
            shape = until(")") + ")"
            expect(")")
            expect(")")
            return np.dtype((base, ast.literal_eval(shape.strip())))
        name = until(";,)]")
        if name not in NUMBA_SCALARS:
            raise ValueError(f"{name!r} is not a numba type name")
        return SCALAR_DTYPES[NUMBA_SCALARS[name]]

    expect("Record(")
    names: list[str] = []
    formats: list[Any] = []
    offsets: list[int] = []
    while True:
        names.append(until("["))
        expect("[type=")
        formats.append(field_type())
        expect(";offset=")
        offsets.append(int(until(";]")))
        until("]")  # ;title=... (ignored)
        expect("]")
        if text.startswith(",", pos):
            pos += 1
            continue
        expect(";")
        break
    itemsize = int(until(";"))
    expect(";")
    until(")")
    expect(")")
    spec = {"names": names, "formats": formats, "offsets": offsets, "itemsize": itemsize}
    return np.dtype(spec), pos  # type: ignore[call-overload]


def decorator_argument(func: Any) -> ast.expr | None:
    """The first argument of the decorator call on ``func`` in its source file (None: not found)."""
    import inspect

    try:
        tree = ast.parse(inspect.getsource(inspect.getmodule(func)))  # type: ignore[arg-type]
    except (OSError, TypeError, SyntaxError):
        return None
    line = func.__code__.co_firstlineno
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == func.__name__ and node.decorator_list:
            if min(d.lineno for d in node.decorator_list) == line or node.lineno == line:
                return next((d.args[0] for d in node.decorator_list if isinstance(d, ast.Call) and d.args), None)
    return None


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and node.value is None:
        return "none"
    return None


def _layout(s: ast.Slice) -> bool:
    """``:`` or ``::1`` (C's or Fortran's contiguous dimension): any layout is an array here."""
    step = s.step
    return (
        s.lower is None and s.upper is None and (step is None or (isinstance(step, ast.Constant) and step.value == 1))
    )
