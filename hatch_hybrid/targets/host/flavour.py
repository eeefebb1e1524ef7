"""The host CPU's lowering flavour: threads as loops, and the C library's math (the Python path's)."""

from __future__ import annotations

from llvmlite import ir as llir

from ...lower.flavour import Flavour


def libm_name(name: str) -> str:
    """The C library's name for a libdevice function (``__nv_sinf`` -> ``sinf``)."""
    for prefix in ("__nv_fast_", "__nv_"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    raise AssertionError(name)


class HostFlavour(Flavour):
    name = "cpu"
    threads_as_loops = True

    def __init__(self, triple: str) -> None:
        self.triple = triple

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
