"""The Python path with the compiler's types: the kernel's own source, recompiled with the conversions
the build recorded (the manifest's ``python`` field, written by hatch-hybrid's Python target).

A variable has one type and a literal takes the type of what it meets: ``d = 1`` in a kernel where
``d`` is also ``n >> 1`` (an i32) is the i32 1 on the GPU and natively. Python would keep the Python
int. The build records each such place (line, column, end column of the node, the dtype, and whether
the value is converted or the local right after it is bound); this module parses the function's
module with :mod:`ast`, wraps those nodes in conversions, points the calls of helpers that need the
same at their converted copies, and compiles the result under the module's own file name: pdb,
tracebacks and coverage show the user's lines. No compiler runs here.

In: the kernel's function, the manifest's record. Out: a function that runs like it, or None when
the source cannot be found (the function then runs as written).
"""

from __future__ import annotations

import ast
import copy
import importlib
import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .abi import NONE_USED, NOT_NONE, OPTIONAL, PYTHON_NUMBER
from .python_math import with_ieee_math

Site = tuple[int, int, "int | None"]
_trees: dict[str, ast.Module] = {}


def converter(name: str) -> Callable[[Any], Any]:
    """The conversion to NumPy's ``name`` as the compiled code makes it: a Python int that the type cannot
    hold raises NumPy's OverflowError (the compiled code checks it too), an int becomes a float as C
    converts an i64 (one from 2**63 to 2**64 - 1, a number known at build time, as a u64), a Python float
    is rounded once."""
    if name == WRAPPED_INT:
        return wrap_int64
    if name == NOT_NONE:
        return not_none
    if name.startswith(OPTIONAL):
        number = converter(name[len(OPTIONAL) :])
        return lambda value: None if value is None else number(value)
    if name.startswith(PYTHON_NUMBER):  # one kind of Python number to another (`1 if c else 2.5`: a float)
        python: Callable[[Any], Any] = {"int": int, "float": float, "complex": complex}[name[len(PYTHON_NUMBER) :]]
        return python
    make = np.dtype(name).type
    if np.dtype(name).kind not in "fc":
        return make

    def to_float(value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return make(np.int64(value) if value < 2**63 else np.uint64(value))
        return make(value)

    return to_float


WRAPPED_INT = "int64-wrapped"  # a Python-int operation the devices compute in i64 (hatch-hybrid's record)
_HALF, _MASK = 2**63, 2**64 - 1


def not_none(value: Any) -> Any:
    """A helper's result that may be None, used as a number: a TypeError where it is None, as the devices
    raise it."""
    if value is None:
        raise TypeError(NONE_USED)
    return value


def wrap_int64(value: int) -> int:
    """A Python int computed at run time, wrapped as the devices' i64 wraps (still a Python int: weak in
    promotion, as the compiler typed it). A float here is a Python int to a negative power, which the
    devices type as an int and refuse as NumPy does."""
    if isinstance(value, float):
        raise ValueError("Integers to negative integer powers are not allowed.")
    return value if -_HALF <= value < _HALF else ((value + _HALF) & _MASK) - _HALF


def _site(node: ast.AST) -> Site:
    line, end_line = node.lineno, getattr(node, "end_lineno", node.lineno)  # type: ignore[attr-defined]
    return (line, node.col_offset, node.end_col_offset if end_line == line else None)  # type: ignore[attr-defined]


class _Rewrite(ast.NodeTransformer):
    """Wraps the recorded values in ``__hh_t[k](...)``, rebinds the recorded locals after their binding
    statement, and sends the recorded calls to ``__hh_f[k]``."""

    def __init__(self, record: dict[str, Any], dtypes: list[str]) -> None:
        self.values: dict[Site, list[int]] = {}  # the conversions of one place, innermost first
        self.bound: dict[Site, list[int]] = {}
        # (a wrapped Python-int operation is converted afterwards where its value is converted too)
        for line, col, end, dtype, how in sorted(record["convert"], key=lambda c: c[3] != WRAPPED_INT):
            if dtype not in dtypes:
                dtypes.append(dtype)
            (self.values if how == "value" else self.bound).setdefault((line, col, end), []).append(dtypes.index(dtype))
        self.calls = {(line, col, end): (k, kind) for line, col, end, k, kind in record["calls"]}
        self.missed = len(record["convert"]) + len(self.calls)

    def visit(self, node: ast.AST) -> Any:
        site = _site(node) if isinstance(node, ast.expr) else None
        wrap = self.values.pop(site, None) if site is not None else None
        call = self.calls.pop(site, None) if isinstance(node, ast.Call) and site is not None else None
        node = super().visit(node)
        if call is not None and isinstance(node, ast.Call):
            self.missed -= 1
            node = self._call(node, *call)
        if wrap is not None and isinstance(node, ast.expr):
            for k in wrap:
                self.missed -= 1
                node = ast.Call(_table("__hh_t", k), [node], [])
        return node

    def _call(self, node: ast.Call, k: int, kind: str) -> ast.Call:
        if kind == "method" and isinstance(node.func, ast.Attribute):  # obj.m(a) -> typed_m(obj, a)
            return ast.Call(_table("__hh_f", k), [node.func.value, *node.args], node.keywords)
        return ast.Call(_table("__hh_f", k), node.args, node.keywords)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for name, value in ast.iter_fields(node):
            if name in ("body", "orelse") and isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, name, self._statements(value, node if name == "body" else None))
            elif isinstance(value, list):
                setattr(node, name, [self.visit(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, name, self.visit(value))
        return node

    def _statements(self, stmts: list[ast.stmt], owner: ast.AST | None) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        if isinstance(owner, ast.For):  # a `for` counter: converted where the body starts
            out += self._rebind(owner.target)
        for stmt in stmts:
            out.append(self.visit(stmt))
            targets = (
                stmt.targets
                if isinstance(stmt, ast.Assign)
                else [stmt.target]
                if isinstance(stmt, (ast.AugAssign, ast.AnnAssign))
                else []
            )
            for target in targets:
                out += self._rebind(target)
        return out

    def _rebind(self, target: ast.expr) -> list[ast.stmt]:
        found: list[ast.stmt] = []
        for name in ast.walk(target):
            if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                for k in self.bound.pop(_site(name), []):
                    self.missed -= 1
                    load = ast.Name(name.id, ast.Load())
                    found.append(
                        ast.Assign([ast.Name(name.id, ast.Store())], ast.Call(_table("__hh_t", k), [load], []))
                    )
                    ast.copy_location(found[-1], name)
        return found


def _table(name: str, k: int) -> ast.Subscript:
    return ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(k), ast.Load())


def _tree(path: str) -> ast.Module | None:
    tree = _trees.get(path)
    if tree is None:
        try:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
        except (OSError, SyntaxError, ValueError):
            return None
        _trees[path] = tree
    return tree


def _definition(tree: ast.Module, name: str, line: int) -> ast.FunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name and node.lineno == line:
            return node
    return None


def _original(module: types.ModuleType, name: str, kernel: types.FunctionType | None) -> types.FunctionType | None:
    if kernel is not None:
        return kernel
    found = getattr(module, name, None)
    found = getattr(found, "py_func", found)
    return found if isinstance(found, types.FunctionType) else None


def typed_kernel(
    func: types.FunctionType, record: dict[str, Any], extra_globals: dict[str, Any] | None = None
) -> types.FunctionType | None:
    """The kernel ``func`` compiled again from its source with the recorded conversions (None when its
    source or a converted helper's cannot be read: then it runs as written)."""
    fns: list[Any] = []  # __hh_f: filled once every function is made
    tables: list[Any] = []  # __hh_t
    dtypes: list[str] = []
    made: list[types.FunctionType] = []
    for k, entry in enumerate(record["functions"]):
        try:
            module = importlib.import_module(entry["module"])
        except ImportError:
            return None
        path = getattr(module, "__file__", None)
        tree = _tree(path) if path else None
        found = _definition(tree, entry["name"], entry["line"]) if tree is not None else None
        original = _original(module, entry["name"], func if k == 0 else None)
        if found is None or original is None or path is None:
            return None
        rewrite = _Rewrite(entry, dtypes)
        definition = rewrite.visit(copy.deepcopy(found))
        if rewrite.missed:
            warnings.warn(
                f"hybrid_runtime: {rewrite.missed} of the compiler's conversions in {entry['module']}."
                f"{entry['name']} were not found in its source (was it edited after the build?): the Python "
                "path runs it with Python's types there",
                RuntimeWarning,
                stacklevel=3,
            )
        made.append(_compile(definition, original, path, extra_globals if k == 0 else None, fns, tables))
    tables.extend(converter(name) for name in dtypes)
    fns.extend(with_ieee_math(f) for f in made)
    typed = made[0]
    typed.__wrapped__ = func  # type: ignore[attr-defined]  # what cpu.needs_threads reads
    return typed


def _compile(
    definition: ast.FunctionDef,
    original: types.FunctionType,
    path: str,
    extra_globals: dict[str, Any] | None,
    fns: list[Any],
    tables: list[Any],
) -> types.FunctionType:
    """``definition`` as a function like ``original`` (its globals, closure and defaults), with
    ``__hh_f`` (the typed functions) and ``__hh_t`` (the conversions) bound around it."""
    definition.decorator_list = []
    definition.returns = None
    for arg in [*definition.args.posonlyargs, *definition.args.args, *definition.args.kwonlyargs]:
        arg.annotation = None
    free = list(original.__code__.co_freevars)
    outer = ast.FunctionDef(
        "__hh_make",
        ast.arguments([], [ast.arg(n) for n in ["__hh_f", "__hh_t", *free]], None, [], [], None, []),
        [definition, ast.Return(ast.Name(definition.name, ast.Load()))],
        [],
        None,
    )
    ast.copy_location(outer, definition)
    module = ast.Module([outer], [])
    ast.fix_missing_locations(module)
    code = compile(module, path, "exec", dont_inherit=True)
    globs = original.__globals__ if not extra_globals else {**original.__globals__, **extra_globals}
    space: dict[str, Any] = {}
    exec(code, globs, space)  # noqa: S102 - the package's own source, as importing it ran it
    cells = [c.cell_contents for c in original.__closure__ or ()]
    made: types.FunctionType = space["__hh_make"](fns, tables, *cells)
    made.__defaults__, made.__kwdefaults__ = original.__defaults__, original.__kwdefaults__
    return made
