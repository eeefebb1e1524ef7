"""What an LLVM target lowers its own way, asked of one object: the :class:`Flavour` a target gives
:class:`~.function.ModuleLowerer`. Everything else in :mod:`hatch_hybrid.lower` is shared by the targets
that go through LLVM (NVPTX, and every host CPU).

Three kinds of hooks:

* operations: plain LLVM by default (as a CPU backend compiles them, NumPy's results); a target whose
  backend differs overrides them;
* the GPU's own operations (thread indices, barriers, warp calls, shared memory, a failed check,
  the print buffer): every target says how (``fl`` is the :class:`~.function.FunctionLowerer` of the
  function being lowered: its builder, ops and, on the host, its thread context);
* how functions are declared and lowered: ``signature``/``declared`` (the host adds the thread context
  and its per-thread kernel ABI) and ``function_lowerer`` (the host's subclass, whose threads run as loops).

See :mod:`hatch_hybrid.targets.ptx.flavour` and :mod:`hatch_hybrid.targets.host.flavour`.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llir

from .. import ir
from ..errors import Loc
from ..typecheck.typed import Callee, TypedFunction
from ..types import Scalar


class Flavour:
    """The hooks of one LLVM target (the defaults: plain LLVM)."""

    name = "llvm"
    #: the module's target triple
    triple = ""
    #: the :class:`~.function.FunctionLowerer` subclass that lowers the target's functions (None: that class;
    #: the subclass says whether a block's threads run as loops, ``FunctionLowerer.threads_as_loops``)
    function_lowerer: Any = None

    def signature(
        self, tf: TypedFunction, params: list[llir.Type], ret: llir.Type
    ) -> tuple[list[llir.Type], llir.Type, str]:
        """A function's LLVM parameters and result, and the suffix of its symbol, given its own."""
        return params, ret, ""

    def declared(self, fn: llir.Function, tf: TypedFunction) -> None:
        """``fn`` was declared for ``tf`` (its linkage: internal for helpers, external for kernels)."""

    def math_function(self, module: llir.Module, name: str, ret: llir.Type, args: list[llir.Value]) -> llir.Function:
        """The function that computes the C library's ``name`` (``fast_<name>``: its approximate variant
        where the target has one): by default a declaration of that name."""
        fn = module.globals.get(name)
        if fn is None:
            fn = llir.Function(module, llir.FunctionType(ret, [a.type for a in args]), name)
        return fn

    def pow(self, b: llir.IRBuilder, a: llir.Value, e: llir.Value, s: Scalar, result: llir.Value) -> llir.Value:
        """``a ** e`` of floats as computed by :meth:`math_function`'s pow, made to agree with C's."""
        return result

    #: whether a block's shared memory is its own and its threads run one after another (native CPU code):
    #: atomics on it are then ordinary read-modify-writes (intrinsics.plain_rmw)
    shared_is_sequential = False

    def shift_count(self, b: llir.IRBuilder, n: llir.Value, s: Scalar) -> llir.Value:
        """A shift count as the backend's shifts must see it (counts past the width are handled after)."""
        return n

    def int_abs(self, b: llir.IRBuilder, v: llir.Value, s: Scalar) -> llir.Value | None:
        """``abs`` of a signed integer, where the backend needs its own (None: LLVM's compare and select)."""
        return None

    def int_minmax(self, b: llir.IRBuilder, name: str, values: list[llir.Value], s: Scalar) -> llir.Value | None:
        """Python's ``min``/``max`` of integers, where the backend needs its own (None: compare and select)."""
        return None

    def table_space(self, used: dict[int, int], size: int) -> int:
        """The address space of a constant table of ``size`` bytes, given the bytes of the module's tables so
        far in each address space."""
        return 0

    def table_pointer(self, b: llir.IRBuilder, table: llir.GlobalVariable) -> llir.Value:
        """A generic pointer to a table's global."""
        return table

    # ------------------------------------------------------- the GPU's own operations
    def thread_register(self, fl: Any, name: str) -> llir.Value:
        """``thread_idx_x`` ... ``global_size_z`` as i64."""
        raise NotImplementedError

    def gpu_call(self, fl: Any, e: ir.Call, callee: Callee) -> Any:
        """``syncthreads``, ``threadfence``, ``lane_id``, the shuffles and the votes."""
        raise NotImplementedError

    def static_shared(self, fl: Any, key: tuple[str, int], size: int, item: int, shape: Any, loc: Loc) -> llir.Value:
        """A pointer to the block's shared array of ``size`` bytes (items of ``item`` bytes) made at the
        call site ``key``."""
        raise NotImplementedError

    def dynamic_shared(self, fl: Any, item: int) -> tuple[llir.Value, llir.Value]:
        """A pointer to the launch's dynamic shared memory (items of ``item`` bytes), and its bytes (i64)."""
        raise NotImplementedError

    def check_failed(self, fl: Any, ok: llir.Value, site_id: int, kind: str, values: tuple[llir.Value, ...]) -> None:
        """Unless ``ok``: report check site ``site_id`` (with up to two i64 values) and end the thread."""
        raise NotImplementedError

    def print_header(self, fl: Any) -> llir.Value:
        """A pointer to the print buffer's header (its first word: the bytes taken)."""
        raise NotImplementedError
