"""numba's eager signatures: ``@cuda.jit("void(float32[:], int32)")``, read without numba.

numba takes a kernel's parameter types from a signature given to ``@cuda.jit``: a string
(``"void(float32[:], int32[:, ::1])"``, ``"(f4[:], i4)"``), the same written as Python
(``void(float32[:], int32)``, a tuple ``(float32[:], int32)``, ``types.float32[:]``), or a list of them
(one compiled variant each; the launch picks the one whose types fit). A string is parsed as Python,
so every form is read from one syntax tree, without importing anything: a name is a type by its last
part (``numba.float32``, ``types.float32``, ``nb.f4`` alike), ``T[:]``, ``T[:, :]``, ``T[::1]``,
``T[:, ::1]`` are arrays of one, two... dimensions (any layout).

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

Param = list[Any]  # [short scalar name, ndim]


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

    def error(self, node: ast.AST, message: str, hint: str = _HINT) -> SignatureError:
        in_file = hasattr(node, "lineno") and getattr(node, "_in_file", True)
        return SignatureError(message, hint, node if in_file else self.where)

    def signature(self, node: ast.expr) -> list[Param]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                parsed = ast.parse(node.value.strip(), mode="eval").body
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
        return [self.scalar(node), 0]

    def scalar(self, node: ast.expr) -> str:
        name = _name(node)
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
    return "void(" + ", ".join(_LONG[s] + (f"[{', '.join([':'] * n)}]" if n else "") for s, n in signature) + ")"


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
