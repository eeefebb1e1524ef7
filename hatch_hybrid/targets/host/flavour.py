"""The host CPU's lowering flavour: threads as loops, and the C library's math (the Python path's)."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llir

from ... import ir
from ...errors import Loc
from ...lower.flavour import Flavour
from ...lower.ops import I32, PTR
from ...lower.sites import located
from ...typecheck.typed import Callee, TypedFunction
from .lowering import context as hx
from .lowering.function import HostFunctionLowerer
from .lowering.record import HostRecord, sanitizing


def libm_name(name: str) -> str:
    """The C library's function for a math function the lowering asks for (``fast_sinf`` -> ``sinf``:
    the C library has no approximate variants)."""
    return name.removeprefix("fast_")


class HostFlavour(Flavour):
    name = "cpu"
    function_lowerer = HostFunctionLowerer
    shared_is_sequential = True  # a block runs on one worker, its threads as loops

    def __init__(self, triple: str, sanitize: bool = False) -> None:
        """``sanitize``: the module is the kernel's sanitized entry (lowering/sanitize.py)."""
        self.triple = triple
        self.record = HostRecord(
            sanitize=sanitize
        )  # what lowering the module records of its kernel (a flavour lowers one)

    def signature(
        self, tf: TypedFunction, params: list[llir.Type], ret: llir.Type
    ) -> tuple[list[llir.Type], llir.Type, str]:
        """The thread context first; a kernel returns where its thread stopped, and one whose threads meet
        takes the thread's frame (its locals' home) second. The kernel is the per-thread function the
        driver calls (targets/host/driver.py), ``<symbol>__thread``."""
        if not tf.is_kernel:
            return [PTR, *params], ret, ""
        meets = tf.uses_barrier and not self.record.forwarding  # a forwarded kernel's threads never meet
        return [PTR, PTR, *params] if meets else [PTR, *params], I32, "__thread"

    def declared(self, fn: llir.Function, tf: TypedFunction) -> None:
        if tf.is_kernel:
            fn.linkage = "internal"  # the driver's entry is exported
            if tf.uses_barrier and not self.record.forwarding:
                fn.args[1].add_attribute("noalias")  # no other pointer reaches a thread's frame

    def math_function(self, module: llir.Module, name: str, ret: llir.Type, args: list[llir.Value]) -> llir.Function:
        name = libm_name(name)
        fn = module.globals.get(name)
        if fn is None:
            fn = llir.Function(module, llir.FunctionType(ret, [a.type for a in args]), name)
            # not LLVM's builtin: its library-call simplifier rewrites calls it recognises, and not
            # always exactly (fmod(x, y) becomes `frem nnan` once x is known finite and y non-zero,
            # which a NaN y makes poison; pow(1024.0, x) becomes exp2(10 * x), ulps away; pow(x,
            # 0.0) becomes 1.0, which C's pow is not for a signalling NaN). The C library's result
            # is the one the Python path computes. readnone (but for frexp and modf, which store a
            # part through their pointer): errno, the only other memory they write, is never read.
            pointers = any(isinstance(a.type, llir.PointerType) for a in args)
            for attr in ("nobuiltin", "nounwind") if pointers else ("nobuiltin", "nounwind", "readnone"):
                fn.attributes.add(attr)
        return fn

    # ------------------------------------------------------- the GPU's own operations
    # (through the thread context, the lowering's first parameter, and the state machine of lowering/threads.py)
    def thread_register(self, fl: Any, name: str) -> llir.Value:
        return hx.special_register(fl.ops, fl.ctx, name)

    def gpu_call(self, fl: Any, e: ir.Call, callee: Callee) -> Any:
        return fl.call_gpu_host(e, callee)

    def static_shared(self, fl: Any, key: tuple[str, int], size: int, item: int, shape: Any, loc: Loc) -> llir.Value:
        """A slice of the block's buffer, laid out per call site."""
        offset = shared_offset(self.record, key, size, max(item, 8))
        self.record.shared_items.add(item)
        ptr = hx.shared_pointer(fl.ops, fl.ctx, offset)
        if sanitizing(fl.parent):  # the sanitizer's reports name the array an offset lies in
            site = located(fl.tf.fn.module, loc, offset=offset, bytes=size, itemsize=item, shape=list(shape))
            self.record.shared_arrays.setdefault(offset, site)
        return ptr

    def dynamic_shared(self, fl: Any, item: int) -> tuple[llir.Value, llir.Value]:
        self.record.shared_items.add(item)
        return hx.dynamic_shared(fl.ops, fl.ctx)

    def check_failed(self, fl: Any, ok: llir.Value, site_id: int, kind: str, values: tuple[llir.Value, ...]) -> None:
        fl.host_check(ok, site_id, values)

    def print_header(self, fl: Any) -> llir.Value:
        return hx.ctx_pointer(fl.ops, fl.ctx, "print")


def shared_offset(record: HostRecord, key: tuple[str, int], size: int, align: int) -> int:
    """Where a ``gpu.shared_array`` call site's array lies in the block's shared memory (``record`` adds
    up the block's ``shared_bytes``)."""
    found = record.shared_offsets.get(key)
    if found is None:
        align = max(align, 16)
        found = (record.shared_bytes + align - 1) // align * align
        record.shared_bytes = found + size
        record.shared_offsets[key] = found
    return found
