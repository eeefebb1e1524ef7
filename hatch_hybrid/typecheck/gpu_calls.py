"""Type rules of the ``gpu`` intrinsics (and the ``cuda`` spellings that become them): thread indices,
barriers, warp shuffles, votes and matches, shared and local arrays, atomics.

:class:`GpuCallChecker` is mixed into :class:`~.calls.CallChecker`, which provides ``_args`` and the
rest of the function checker.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import ir
from ..errors import CompileError, Loc
from ..frontend.constants import is_integer
from ..types import (
    NONE,
    WEAK_BOOL,
    WEAK_INT,
    ArrayT,
    Scalar,
    StructT,
    TupleT,
    Type,
    Weak,
    is_bool,
    is_complex,
    is_int,
    is_numeric,
)
from . import rules
from .tables import refuse_write
from .typed import Callee, MethodSym, ProgramLike, SymbolT, TypedFunction
from .views import array_root

#: Static shared memory per block, the same on every arch (larger sizes need dynamic shared memory).
SHARED_MEMORY_LIMIT = 48 * 1024


class GpuCallChecker:
    tf: TypedFunction
    program: ProgramLike
    module: str
    aliases: dict[str, set[int]]
    typevars: dict[str, Type]
    # provided by the call checker and the function checker it is mixed into
    _args: Callable[[ir.Call], list[Type]]
    expr: Callable[..., Type]

    def gpu(self, e: ir.Call, name: str) -> Type:
        tf = self.tf
        if name in rules.GPU_INDEX or name == "syncthreads":
            if e.args:
                raise CompileError(e.loc, f"gpu.{name}() takes no arguments")
            tf.callees[e.nid] = Callee("gpu", name)
            if name == "syncthreads":
                tf.uses_barrier = True
                return NONE
            return WEAK_INT
        if name in ("shared_array", "local_array"):
            return self.static_array(e, name)
        if name in ("grid", "gridsize"):
            return self.grid(e, name)
        if name == "dynamic_shared_array":
            if len(e.args) != 1:
                raise CompileError(e.loc, "gpu.dynamic_shared_array(dtype) takes one argument")
            dtype = self.program.type_of_symbol(self.program._static(self.module, e.args[0]), e.loc, self.typevars)
            if not isinstance(dtype, (Scalar, StructT)):
                raise CompileError(
                    e.args[0].loc, "the dtype of a shared array must be a scalar type or a @struct class"
                )
            tf.callees[e.nid] = Callee("gpu", name, (dtype,))
            return ArrayT(dtype, 1)
        if name in rules.ATOMICS:
            return self.atomic(e, name)
        if name == "grid_wait":  # (a grid barrier's middle: see cuda_spelling._expand_grid_syncs)
            tf.grid_sync = True  # the launch is cooperative; the barriers around it are the block's
            tf.callees[e.nid] = Callee("gpu", name)
            return NONE
        if name in ("lane_id", "lanemask_lt", "threadfence"):
            if e.args:
                raise CompileError(e.loc, f"gpu.{name}() takes no arguments")
            tf.callees[e.nid] = Callee("gpu", name)
            return NONE if name == "threadfence" else WEAK_INT
        if name in rules.WARP_CALLS:
            return self.warp(e, name)
        if name in rules.BIT_OPS:
            args = self._args(e)
            if len(args) != 1 or not is_int(args[0]) or is_bool(args[0]):
                raise CompileError(
                    e.loc, f"gpu.{name}(x) takes one integer", f"convert a float first: gpu.{name}(u32(x))"
                )
            tf.callees[e.nid] = Callee("gpu", name, (args[0],))
            return args[0]
        raise CompileError(
            e.func.loc,
            f"gpu.{name} is not a kernel intrinsic",
            "see the `gpu` section of the docs for the supported intrinsics",
        )

    def warp(self, e: ir.Call, name: str) -> Type:
        """Warp shuffles and votes: all 32 lanes take part (full mask), so they are barriers for the CPU path."""
        nargs = 2 if name in rules.SHUFFLES else 1
        if len(e.args) != nargs and not (nargs == 2 and len(e.args) == 3):
            what = "(value)" if name in rules.MATCHES else "(predicate)"
            what = "(value, lane_or_delta[, width])" if nargs == 2 else what
            raise CompileError(e.loc, f"gpu.{name}{what} takes {'2 or 3 arguments' if nargs == 2 else '1 argument'}")
        args = self._args(e)
        if len(e.args) == 3:  # CUDA's width: segments of that many lanes
            width = self.tf.consts.get(e.args[2].nid)
            if not is_integer(width) or width not in (1, 2, 4, 8, 16, 32):
                raise CompileError(
                    e.args[2].loc,
                    f"the width of gpu.{name} must be a power of two from 1 to 32 known at build time",
                    "write a literal or a module constant: gpu.shfl_down(v, d, 16)",
                )
            args = args[:2]
        if not is_numeric(args[0]):
            raise CompileError(e.args[0].loc, f"gpu.{name} needs a number, not {args[0]}")
        if is_complex(args[0]):
            raise CompileError(
                e.args[0].loc,
                f"gpu.{name} of a complex number ({args[0]}) is not supported",
                "shuffle the parts and rebuild the number: complex(gpu.shfl_down(z.real, d), gpu.shfl_down(z.imag, d))"
                if name in rules.SHUFFLES
                else "match the parts: gpu.match_any(z.real) & gpu.match_any(z.imag)"
                if name in rules.MATCHES
                else f"pass a boolean: gpu.{name}(z != 0)",
            )
        if nargs == 2 and not is_int(args[1]):
            raise CompileError(e.args[1].loc, f"the lane argument of gpu.{name} must be an integer, not {args[1]}")
        if e.mask is not None:  # CUDA's partial mask: the lanes that take part
            mask_t = self.expr(e.mask)
            if not is_int(mask_t) or is_bool(mask_t):
                raise CompileError(e.mask.loc, f"the mask of a warp function must be an integer, not {mask_t}")
        self.tf.uses_barrier = True
        self.tf.callees[e.nid] = Callee("gpu", name, tuple(args))
        if name in rules.SHUFFLES:
            return args[0]
        return WEAK_INT if name in ("ballot", "match_any") else WEAK_BOOL

    def grid(self, e: ir.Call, name: str) -> Type:
        """``cuda.grid(n)``/``cuda.gridsize(n)``: the global thread index (grid size) in n dimensions."""
        for a in e.args:
            self.expr(a)
        n = self.tf.consts.get(e.args[0].nid) if len(e.args) == 1 else None
        if n not in (1, 2, 3) or isinstance(n, bool):
            raise CompileError(e.loc, f"{name}(ndim) takes the number of dimensions, a literal 1, 2 or 3")
        self.tf.consts[e.nid] = n
        self.tf.callees[e.nid] = Callee("gpu", name)
        return WEAK_INT if n == 1 else TupleT((WEAK_INT,) * n)

    def _names_a_type(self, node: ir.Expr) -> bool:
        """Whether ``node`` names a type through a value: ``x.dtype``, ``x.dtype.type``, or a local assigned one."""
        if isinstance(node, ir.Name):
            return isinstance(self.tf.locals.get(node.id), SymbolT)
        return isinstance(node, ir.Attribute) and node.attr in ("dtype", "type")

    def dtype_argument(self, node: ir.Expr, loc: Loc) -> Type | None:
        """The type an argument names as a dtype (``f32``, ``np.int32``, ``int``, ``x.dtype``, a local bound to
        one, a @struct class), or None."""
        dtype = self.program.type_of_symbol(self.program._static(self.module, node), loc, self.typevars)
        if dtype is None and self._names_a_type(node):  # `x.dtype`, or a local `dtype = x.dtype`
            named = self.expr(node)
            if isinstance(named, SymbolT) and not isinstance(named.sym, MethodSym):
                dtype = self.program.type_of_symbol(named.sym, loc, self.typevars)
        if isinstance(dtype, Weak):  # `int`, `float`, `bool`, `complex`: NumPy's dtype of them (np.zeros(4, int))
            dtype = dtype.storage
        return dtype

    def scalar_view(self, e: ir.Call, receiver: Type) -> Type:
        """``x.view(np.int32)`` of a NumPy scalar: the same bits read as another type of the same size, as
        NumPy's ``view`` (libdevice's ``float_as_int``)."""
        target = self.dtype_argument(e.args[0], e.loc) if len(e.args) == 1 and not e.keywords else None
        kinds = "iuf"
        if not isinstance(receiver, Scalar) or receiver.kind not in kinds:
            raise CompileError(
                e.loc,
                f".view() reads the bits of a NumPy integer or float, not of {receiver}",
                "convert the value first: f64(x).view(np.int64)",
            )
        if not isinstance(target, Scalar) or target.kind not in kinds or target.bits != receiver.bits:
            raise CompileError(
                e.loc,
                f"{receiver}.view() takes one dtype: an integer or float type of {receiver.bits} bits",
                f"x.view(np.int{receiver.bits})" if receiver.bits > 8 else "x.view(np.uint8)",
            )
        self.tf.callees[e.nid] = Callee("view", target.name, (receiver,))
        return target

    def static_array(self, e: ir.Call, name: str) -> Type:
        """``gpu.shared_array``/``gpu.local_array(dtype, shape)``: arrays of a compile-time shape."""
        what = "shared" if name == "shared_array" else "per-thread"
        if len(e.args) != 2 or e.keywords:
            raise CompileError(e.loc, f"gpu.{name}(dtype, shape) takes two arguments")
        dtype = self.dtype_argument(e.args[0], e.loc)
        if not isinstance(dtype, (Scalar, StructT)):
            raise CompileError(
                e.args[0].loc,
                f"the dtype of a {what} array must be a scalar type such as f32, or a @struct class",
                f"pass a type: gpu.{name}(f32, 16), gpu.{name}(np.int32, (4, 4)) or a @struct class",
            )
        shape_node = e.args[1]
        dims = shape_node.elts if isinstance(shape_node, ir.TupleExpr) else [shape_node]
        shape: list[int] = []
        known = None
        if not isinstance(shape_node, ir.TupleExpr):
            self.expr(shape_node)
            known = self.tf.consts.get(shape_node.nid)
        if isinstance(known, tuple):  # a module constant tuple: SHAPE = (TILE, TILE + 1)
            dims, values = [shape_node] * len(known), list(known)
        else:
            values = []
            for d in dims:
                if d is not shape_node:
                    self.expr(d)
                values.append(self.tf.consts.get(d.nid))
        for d, value in zip(dims, values):
            if not is_integer(value):
                raise CompileError(
                    d.loc,
                    f"the shape of a {what} array must be known at compile time",
                    "use integer literals, module-level integer constants, or arithmetic on them (TILE + 1)",
                )
            if value <= 0:
                raise CompileError(
                    d.loc,
                    f"the shape of a shared array must be positive, not {value}",
                    "give every dimension at least 1 element",
                )
            shape.append(int(value))
        itemsize = dtype.dtype.itemsize if isinstance(dtype, (Scalar, StructT)) else 1
        size = itemsize * int(np.prod(shape, dtype=object))
        if size > SHARED_MEMORY_LIMIT:
            raise CompileError(
                shape_node.loc,
                f"this shared array takes {size} bytes; a block's static shared memory is at most "
                f"{SHARED_MEMORY_LIMIT} bytes (48 KiB) on every GPU",
                "use a smaller tile, or gpu.dynamic_shared_array with launch(..., shared_bytes=n)",
            )
        self.tf.consts[e.nid] = tuple(shape)
        self.tf.callees[e.nid] = Callee("gpu", name, (dtype,))
        return ArrayT(dtype, len(shape))

    def atomic(self, e: ir.Call, name: str) -> Type:
        nargs = 4 if name == "atomic_cas" else 3
        if len(e.args) != nargs:
            extra = "array, index, expected, value" if nargs == 4 else "array, index, value"
            raise CompileError(e.loc, f"gpu.{name}({extra}) takes {nargs} arguments")
        args = self._args(e)
        arr = args[0]
        refuse_write(e.args[0], arr, f"gpu.{name}")
        if not isinstance(arr, ArrayT):
            raise CompileError(e.args[0].loc, f"the first argument of gpu.{name} must be an array")
        allowed = rules.ATOMIC_ONLY.get(name, rules.ATOMIC_DTYPES)
        if not isinstance(arr.dtype, Scalar) or str(arr.dtype) not in allowed:
            kinds = ", ".join(t for t in ("i32", "i64", "u32", "u64", "f32", "f64") if t in allowed)
            raise CompileError(
                e.args[0].loc,
                f"gpu.{name} does not support arrays of {arr.dtype}",
                f"gpu.{name} works on {kinds}"
                + (
                    "; accumulate f16 values into an f32 array (f32(x)) instead"
                    if str(arr.dtype) == "f16" and "f32" in allowed
                    else ""
                ),
            )
        index = args[1]
        items = index.items if isinstance(index, TupleT) else (index,)
        if len(items) != arr.ndim or not all(is_int(t) for t in items):
            raise CompileError(e.args[1].loc, f"gpu.{name} needs {arr.ndim} integer indices")
        for a, t in zip(e.args[2:], args[2:]):
            if not is_numeric(t) or is_complex(t):
                raise CompileError(a.loc, f"gpu.{name} needs a real number here, not {t}")
        root = array_root(e.args[0])
        if root is not None:
            self.tf.writes.update(self.aliases.get(root, set()))
        self.tf.callees[e.nid] = Callee("gpu", name, tuple(args))
        return arr.dtype
